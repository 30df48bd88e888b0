internal import CMosquitto

/// libmosquitto and the OpenSSL functions fleet control calls, loaded the first time a
/// connection is set up: a kiosk without `[mqtt]` never maps them (1.8 MB of resident pages).
/// The package depends on libmosquitto1, which brings libssl.
enum MQTTLibrary {
    static let mosquittoFile = "libmosquitto.so.1"
    static let sslFile = "libssl.so.3"

    /// The functions, once loaded and initialised; or why not.
    private nonisolated(unsafe) static let loaded: Result<UnsafePointer<cmosquitto_library>, MQTTSetupError> = {
        switch load(mosquitto: mosquittoFile, ssl: sslFile) {
        case .failure(let error):
            return .failure(error)
        case .success(let table):
            // libmosquitto's process-wide setup (OpenSSL's among it), once; never undone, since
            // connections may come and go for the whole life of the process.
            let rc = table.pointee.mosquitto_lib_init()
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                return .failure(MQTTSetupError("libmosquitto did not initialise: \(MQTTLibrary.string(table.pointee.mosquitto_strerror(rc)))"))
            }
            return .success(table)
        }
    }()

    /// The loaded functions, or an error naming the library that is missing and the package.
    static func require() throws -> cmosquitto_library {
        try loaded.get().pointee
    }

    /// The functions, for code that runs only after `require` succeeded (a connection exists).
    static var functions: cmosquitto_library {
        guard case .success(let table) = loaded else { fatalError("fleet control used without its libraries") }
        return table.pointee
    }

    /// A library's words (its functions give them as C strings that are never freed).
    static func string(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) } ?? ""
    }

    /// `mosquitto` and `ssl` (file names as the dynamic loader finds them) loaded, and every
    /// function found in them.
    static func load(mosquitto: String, ssl: String) -> Result<UnsafePointer<cmosquitto_library>, MQTTSetupError> {
        var why = [CChar](repeating: 0, count: 512)
        if let table = cmosquitto_library_load(mosquitto, ssl, &why, why.count) { return .success(table) }
        let reason = why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return .failure(MQTTSetupError("fleet control needs libmosquitto and OpenSSL (Debian's libmosquitto1): \(reason)"))
    }
}

/// The loaded functions (`MQTTLibrary.functions`), as the MQTT client's code calls them.
var mqtt: cmosquitto_library { MQTTLibrary.functions }
