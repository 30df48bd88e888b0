import KioskCore
import KioskPlatform
import Testing

/// Which CRTC drives which screen when the kiosk uses several (drm-howto's rule, without the kernel).
@Suite struct CRTCAssignmentTests {
    static func connector(_ id: UInt32, encoders: [UInt32], current: UInt32 = 0) -> DRMConnector {
        DRMConnector(id: id, name: "HDMI-A-\(id)", status: .connected, mmWidth: 0, mmHeight: 0,
                     modes: [DRMMode(width: 1280, height: 720, refresh: 60, preferred: true)],
                     encoderIDs: encoders, currentEncoderID: current)
    }

    @Test func eachScreenGetsItsOwnCRTC() {
        // Two encoders that can both use either CRTC (bits 0 and 1).
        let encoders: [UInt32: DRMEncoder] = [10: DRMEncoder(id: 10, crtcID: 0, possibleCRTCs: 0b11),
                                              11: DRMEncoder(id: 11, crtcID: 0, possibleCRTCs: 0b11)]
        let result = DRMDevice.assignCRTCs(for: [Self.connector(1, encoders: [10]), Self.connector(2, encoders: [11])],
                                           encoders: encoders, crtcIDs: [100, 101])
        #expect(result == [100, 101])
    }

    @Test func aLitCRTCStaysWithItsScreenEvenWhenItComesSecond() {
        // Screen 2 is lit on CRTC 100 (the console); the new main screen 1 must not take it.
        let encoders: [UInt32: DRMEncoder] = [10: DRMEncoder(id: 10, crtcID: 0, possibleCRTCs: 0b11),
                                              11: DRMEncoder(id: 11, crtcID: 100, possibleCRTCs: 0b11)]
        let result = DRMDevice.assignCRTCs(for: [Self.connector(1, encoders: [10]), Self.connector(2, encoders: [11], current: 11)],
                                           encoders: encoders, crtcIDs: [100, 101])
        #expect(result == [101, 100])
    }

    @Test func busyCRTCsAndTooManyScreens() {
        let encoders: [UInt32: DRMEncoder] = [10: DRMEncoder(id: 10, crtcID: 0, possibleCRTCs: 0b11),
                                              11: DRMEncoder(id: 11, crtcID: 0, possibleCRTCs: 0b01)]
        // CRTC 101 lights a screen the kiosk does not use: only 100 is left, for the first screen.
        let result = DRMDevice.assignCRTCs(for: [Self.connector(1, encoders: [10]), Self.connector(2, encoders: [11])],
                                           encoders: encoders, crtcIDs: [100, 101], busy: [101])
        #expect(result == [100, nil])
    }
}
