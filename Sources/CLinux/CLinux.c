// The functions live in include/CLinux.h; SwiftPM needs one C file per C target.
