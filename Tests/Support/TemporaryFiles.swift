import Glibc

/// A fresh folder under /tmp for one test, named `/tmp/<prefix>-XXXXXX`.
public func makeTemporaryDirectory(_ prefix: String = "bubble-kiosk") -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        preconditionFailure("mkdtemp /tmp/\(prefix)-XXXXXX: errno \(errno)")
    }
    return String(cString: p)
}

/// Makes `path` and the folders above it that are missing (mkdir -p); false on a failure.
@discardableResult
public func makeDirectories(_ path: String, mode: mode_t = 0o755) -> Bool {
    var built = ""
    for part in path.split(separator: "/") {
        built += "/" + part
        if mkdir(built, mode) != 0 && errno != EEXIST { return false }
    }
    return true
}

/// Removes `path` and everything in it.
public func removeTree(_ path: String) {
    _ = system("rm -rf '\(path)'")
}

/// A folder nothing can be written in. Root writes anywhere the mode bits do not stop it, so
/// for root it is /proc/self, which takes no files; for others a fresh folder made read-only.
public func makeUnwritableDirectory(_ prefix: String = "bubble-kiosk") -> String {
    if getuid() == 0 { return "/proc/self" }
    let dir = makeTemporaryDirectory(prefix)
    chmod(dir, 0o555)
    return dir
}

/// The whole file at `path`; nil when it cannot be opened or read.
public func readBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return nil }
        if n == 0 { return bytes }
        bytes += chunk[..<n]
    }
}

/// The whole file at `path` as UTF-8 text; nil when it cannot be opened or read.
public func readText(_ path: String) -> String? {
    readBytes(path).map { String(decoding: $0, as: UTF8.self) }
}

/// Writes `bytes` to `path` (created or truncated, with `mode`); traps when it cannot.
public func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) {
    if let failure = writeFailure(path, bytes, mode: mode) { preconditionFailure(failure) }
}

/// Writes `text` to `path` as UTF-8.
public func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) {
    writeFile(path, Array(text.utf8), mode: mode)
}

/// Writes `text` to `path` as UTF-8; false when it cannot (for a test to report, not trap).
public func tryWriteFile(_ path: String, _ text: String, mode: mode_t = 0o644) -> Bool {
    writeFailure(path, Array(text.utf8), mode: mode) == nil
}

/// Writes the file; the failed call with its errno, or nil when it worked.
private func writeFailure(_ path: String, _ bytes: [UInt8], mode: mode_t) -> String? {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { return "open \(path): errno \(errno)" }
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    return written == bytes.count ? nil : "write \(path): errno \(errno)"
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
