import KioskCore
import KioskPlatform
import Testing

/// The parts of the DRM and fbdev displays that need no kernel: mode strings and choice,
/// connector names, CRTC choice, pixel density sanity, rotation maps and the rotated copy.
struct DisplayLogicTests {
    // MARK: modes

    @Test(arguments: [("1920x1080", DRMModeRequest(width: 1920, height: 1080)),
                      ("1280x800@75", DRMModeRequest(width: 1280, height: 800, refresh: 75)),
                      ("800x480@60", DRMModeRequest(width: 800, height: 480, refresh: 60))])
    func parsesModeRequests(text: String, expected: DRMModeRequest) {
        #expect(DRMModeRequest(parsing: text) == expected)
        #expect(DRMModeRequest(parsing: text)?.description == text)
    }

    @Test(arguments: ["", "1920", "1920x", "x1080", "0x1080", "1920x1080@", "1920x1080@abc", "1920x1080@0",
                      "1920x1080@60@2", "1920 x 1080", "-1x5"])
    func rejectsBadModeRequests(text: String) {
        #expect(DRMModeRequest(parsing: text) == nil)
    }

    let modes = [DRMMode(width: 1920, height: 1080, refresh: 60, preferred: true),
                 DRMMode(width: 1920, height: 1080, refresh: 50),
                 DRMMode(width: 1920, height: 1080, refresh: 60, interlaced: true),
                 DRMMode(width: 1280, height: 720, refresh: 50),
                 DRMMode(width: 1280, height: 720, refresh: 60),
                 DRMMode(width: 1280, height: 720, refresh: 59)]

    @Test func choosesPreferredModeWithoutRequest() {
        #expect(DRMModeRequest.choose(nil, among: modes)?.description == "1920x1080@60")
        #expect(DRMModeRequest.choose(nil, among: []) == nil)
        // No preferred mode: the first progressive one.
        let plain = [DRMMode(width: 720, height: 576, refresh: 50, interlaced: true), DRMMode(width: 640, height: 480, refresh: 60)]
        #expect(DRMModeRequest.choose(nil, among: plain)?.description == "640x480@60")
    }

    @Test func choosesRequestedMode() {
        let choose = { (text: String) in DRMModeRequest.choose(DRMModeRequest(parsing: text)!, among: self.modes)?.description }
        #expect(choose("1920x1080") == "1920x1080@60")
        #expect(choose("1920x1080@50") == "1920x1080@50")
        #expect(choose("1280x720") == "1280x720@60")
        // 59.94 Hz modes are listed as 59 or 60: either matches within 1 Hz, the higher wins.
        #expect(choose("1280x720@60") == "1280x720@60")
        #expect(choose("1280x720@58") == "1280x720@59")
        #expect(choose("1280x720@75") == nil)
        #expect(choose("1024x768") == nil)
    }

    @Test func connectorNamesFollowTheKernel() {
        #expect(DRMConnector.name(type: 11, typeID: 1) == "HDMI-A-1")
        #expect(DRMConnector.name(type: 15, typeID: 1) == "Virtual-1")
        #expect(DRMConnector.name(type: 14, typeID: 2) == "eDP-2")
        #expect(DRMConnector.name(type: 16, typeID: 1) == "DSI-1")
        #expect(DRMConnector.name(type: 99, typeID: 3) == "Type99-3")
    }

    // MARK: CRTC choice

    private func connector(current: UInt32, encoders: [UInt32]) -> DRMConnector {
        DRMConnector(id: 30, name: "HDMI-A-1", status: .connected, mmWidth: 0, mmHeight: 0, modes: modes,
                     encoderIDs: encoders, currentEncoderID: current)
    }

    @Test func prefersTheCurrentEncodersCRTC() {
        let encoders: [UInt32: DRMEncoder] = [40: DRMEncoder(id: 40, crtcID: 52, possibleCRTCs: 0b11)]
        #expect(DRMDevice.assignCRTCs(for: [connector(current: 40, encoders: [40])], encoders: encoders, crtcIDs: [51, 52]) == [52])
    }

    @Test func scansPossibleCRTCsSkippingBusyOnes() {
        let encoders: [UInt32: DRMEncoder] = [40: DRMEncoder(id: 40, crtcID: 0, possibleCRTCs: 0b001),
                                              41: DRMEncoder(id: 41, crtcID: 0, possibleCRTCs: 0b110)]
        let c = connector(current: 0, encoders: [40, 41])
        #expect(DRMDevice.assignCRTCs(for: [c], encoders: encoders, crtcIDs: [51, 52, 53]) == [51])
        #expect(DRMDevice.assignCRTCs(for: [c], encoders: encoders, crtcIDs: [51, 52, 53], busy: [51]) == [52])
        #expect(DRMDevice.assignCRTCs(for: [c], encoders: encoders, crtcIDs: [51, 52, 53], busy: [51, 52, 53]) == [nil])
        #expect(DRMDevice.assignCRTCs(for: [connector(current: 0, encoders: [])], encoders: encoders, crtcIDs: [51]) == [nil])
    }
}
