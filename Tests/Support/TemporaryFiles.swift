import Glibc

/// A fresh folder under /tmp for one test, named `/tmp/<prefix>-XXXXXX`.
public func makeTemporaryDirectory(_ prefix: String = "bubble-kiosk") -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        preconditionFailure("mkdtemp /tmp/\(prefix)-XXXXXX: errno \(errno)")
    }
    return String(cString: p)
}

/// Removes `path` and everything in it.
public func removeTree(_ path: String) {
    _ = system("rm -rf '\(path)'")
}

/// Writes `bytes` to `path` (created or truncated, with `mode`); traps when it cannot.
public func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    precondition(fd >= 0, "open \(path): errno \(errno)")
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    precondition(written == bytes.count, "write \(path): errno \(errno)")
}

/// Writes `text` to `path` as UTF-8.
public func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) {
    writeFile(path, Array(text.utf8), mode: mode)
}

/// A fresh folder under /tmp, removed with its files when the value goes away.
public final class TemporaryDirectory {
    public let path: String

    public init(_ prefix: String = "bubble-kiosk") { path = makeTemporaryDirectory(prefix) }

    /// Creates the empty file `name` in the folder.
    public func touch(_ name: String) {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        if fd >= 0 { close(fd) }
    }

    deinit { removeTree(path) }
}

/// Makes the file `path` one whose opening for writing fails with EACCES. Root writes any mode,
/// so for root it becomes a link to a sysfs file no one may write.
public func makeUnwritable(_ path: String) {
    if getuid() == 0 {
        unlink(path)
        symlink("/sys/kernel/uevent_seqnum", path)
    } else {
        chmod(path, 0o444)
    }
}
