@testable import KioskPlatform
import Testing

/// libmosquitto and OpenSSL loaded when fleet control first needs them, not linked.
@Suite struct MQTTLibraryTests {
    @Test func theInstalledLibrariesLoadWithEveryFunction() throws {
        let library = try MQTTLibrary.require()
        // A call through the table reaches libmosquitto (its words for "no error").
        #expect(MQTTLibrary.string(library.mosquitto_strerror(0)).lowercased().contains("no error"))
        #expect(MQTTLibrary.string(library.X509_verify_cert_error_string(10)).contains("expired"))
    }

    @Test func aMissingLibraryIsOneLineNamingItAndThePackage() {
        guard case .failure(let error) = MQTTLibrary.load(mosquitto: "libmosquitto.so.99", ssl: MQTTLibrary.sslFile) else {
            Issue.record("a library that is not installed loaded")
            return
        }
        #expect(error.description.contains("libmosquitto.so.99"))
        #expect(error.description.contains("libmosquitto1"))
        #expect(!error.description.contains("\n"))
    }

    @Test func aLibraryWithoutTheFunctionsIsRefusedByName() {
        // libc is there and has none of them: the first one looked for is named.
        guard case .failure(let error) = MQTTLibrary.load(mosquitto: "libc.so.6", ssl: MQTTLibrary.sslFile) else {
            Issue.record("libc taken for libmosquitto")
            return
        }
        #expect(error.description.contains("libc.so.6 has no mosquitto_lib_init"))
    }
}
