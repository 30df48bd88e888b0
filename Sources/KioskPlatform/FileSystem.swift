#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Small file helpers over POSIX calls (no Foundation in the kiosk binary).
public enum FileSystem {
    /// What `readText` reads at most unless told otherwise: config and sysfs files are small,
    /// and a bigger one is a mistake (a log, an image, `/dev/zero`) that must not fill memory.
    public static let defaultReadLimit = 1 << 20

    /// Reads a whole regular file of at most `limit` bytes as UTF-8 (invalid bytes become U+FFFD).
    public static func readText(_ path: String, limit: Int = defaultReadLimit) throws -> String {
        let bytes = try readBytes(path, limit: limit)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a whole regular file of at most `limit` bytes; throws `FileRefusal` for anything
    /// else (a FIFO, a device, a directory, a bigger file).
    public static func readBytes(_ path: String, limit: Int = defaultReadLimit) throws -> [UInt8] {
        let file = try openRegularFile(path)
        let fd = file.rawValue
        var st = stat()
        if fstat(fd, &st) == 0, Int(st.st_size) > limit { throw FileRefusal.tooLarge(bytes: Int(st.st_size), limit: limit) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { buf in
                try retryingInterrupts("read", path) { read(fd, buf.baseAddress, buf.count) }
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
            // The size can lie (procfs says 0) or grow while we read.
            if result.count > limit { throw FileRefusal.tooLarge(bytes: result.count, limit: limit) }
        }
        return result
    }

    /// Opens `path` for reading when it is a regular file (after symlinks), else throws
    /// `FileRefusal.notRegular`. O_NONBLOCK keeps the open itself from waiting for a FIFO's writer.
    public static func openRegularFile(_ path: String) throws -> FileDescriptor {
        let file = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        let fd = file.rawValue
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SystemError("fstat", path) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw FileRefusal.notRegular(kind: fileKind(st.st_mode)) }
        // Reads must block as usual (on regular files O_NONBLOCK changes nothing, but be plain).
        // A failed F_GETFL returns -1, which would set every flag: check both calls.
        let flags = try retryingInterrupts("fcntl(F_GETFL)", path) { fcntl(fd, F_GETFL) }
        try retryingInterrupts("fcntl(F_SETFL)", path) { fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return file
    }

    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
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

/// Why a file was not read: the kiosk only reads regular files of bounded size.
public enum FileRefusal: Error, Equatable, CustomStringConvertible {
    /// A FIFO, device, directory or socket: reading it could hang or never end.
    case notRegular(kind: String)
    /// Bigger than the reader allows.
    case tooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .notRegular(let kind):
            return kind == "not a regular file" ? kind : "not a regular file (\(kind))"
        case .tooLarge(let bytes, let limit):
            return "too large (\(bytes) bytes, at most \(Self.size(limit)))"
        }
    }

    /// `1 MiB`, `64 KiB` or plain bytes.
    private static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

/// Reads a file line by line in constant memory, for recordings of any length.
public final class LineReader {
    private let file: FileDescriptor
    private let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var lineNumber = 0

    /// Opens `path`, which must be a regular file.
    public init(path: String) throws {
        self.path = path
        self.file = try FileSystem.openRegularFile(path)
    }

    /// The next line without its line end (see `EvemuLineSplitter.line`), nil at the end.
    public func next() throws(RecordingError) -> String? {
        // Bytes after `start` known to hold no LF; an offset, as `fill` moves the buffer.
        var scanned = 0
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
                lineNumber += 1
                let line = try EvemuLineSplitter.line(buffer[start..<newline], number: lineNumber, file: path)
                start = newline + 1
                return line
            }
            scanned = buffer.count - start
            // One CR may still precede the LF, hence the extra byte.
            if buffer.count - start > EvemuReader.maximumLineBytes + 1 {
                throw EvemuLineSplitter.tooLong(number: lineNumber + 1, file: path)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                let line = try EvemuLineSplitter.line(buffer[start...], number: lineNumber, file: path)
                start = buffer.count
                return line
            }
            try fill()
        }
    }

    private func fill() throws(RecordingError) {
        // Drop what was handed out already, so the buffer never holds more than a chunk and a line.
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { buf in uninterrupted { read(file.rawValue, buf.baseAddress, buf.count) } }
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
        } else if n == 0 {
            atEnd = true
        } else {
            let reason = String(cString: strerror(errno))
            throw RecordingError(file: path, line: lineNumber + 1, message: "cannot read: \(reason)")
        }
    }
}
