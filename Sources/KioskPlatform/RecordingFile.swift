import KioskCore

extension EvemuReader {
    /// Opens the recording at `path` and reads its header, for reading events as they are used.
    /// Throws `FileRefusal` or `SystemError` when the file cannot be read, `RecordingError` for
    /// a malformed header.
    public static func open(path: String) throws -> EvemuReader {
        let lines = try LineReader(path: path)
        return try EvemuReader(file: path) { () throws(RecordingError) -> String? in try lines.next() }
    }
}
