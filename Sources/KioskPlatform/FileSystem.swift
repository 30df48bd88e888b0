#if canImport(Glibc)
import Glibc
#endif

/// Small file helpers over POSIX calls (no Foundation in the kiosk binary).
public enum FileSystem {
    /// Reads a whole file as UTF-8 (invalid bytes become U+FFFD).
    public static func readText(_ path: String) throws -> String {
        let bytes = try readBytes(path)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func readBytes(_ path: String) throws -> [UInt8] {
        let fd = try retryingInterrupts("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { buf in
                try retryingInterrupts("read", path) { read(fd, buf.baseAddress, buf.count) }
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// Writes a file atomically: a temporary file in the same folder, fsync, then rename,
    /// so a power cut never leaves half a file.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        let tmp = path + ".tmp.\(getpid())"
        let fd = try retryingInterrupts("open", tmp) { open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        var ok = false
        defer {
            if !ok { unlink(tmp) }
        }
        do {
            var offset = 0
            while offset < bytes.count {
                let n = try bytes.withUnsafeBytes { buf in
                    try retryingInterrupts("write", tmp) { write(fd, buf.baseAddress! + offset, buf.count - offset) }
                }
                offset += n
            }
            try retryingInterrupts("fsync", tmp) { fsync(fd) }
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        try retryingInterrupts("rename", path) { rename(tmp, path) }
        ok = true
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Names in a directory (no `.`/`..`), sorted bytewise; empty when it does not exist.
    public static func listDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else {
            if errno == ENOENT || errno == ENOTDIR { return [] }
            throw SystemError("opendir", path)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
