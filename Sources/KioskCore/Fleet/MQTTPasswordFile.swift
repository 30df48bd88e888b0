/// The password in `[mqtt] password_file`: the file's first line, ended by LF, CR LF or a lone
/// CR (a file written on Windows or by a tool that ends lines with CR must not send its CR as
/// part of the password, which a broker refuses as "not authorised" with no hint).
public enum MQTTPasswordFile {
    /// The password and, when something about it is worth a warning, what.
    public static func password(from bytes: [UInt8]) -> (password: String, warning: String?) {
        let end = bytes.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? bytes.endIndex
        let line = bytes[..<end]
        if line.isEmpty {
            return ("", bytes.isEmpty ? "the file is empty: logging in with an empty password"
                              : "the first line is empty: logging in with an empty password")
        }
        return (String(decoding: line, as: UTF8.self), nil)
    }
}
