import KioskCore
import KioskTestSupport
import Testing

/// `[display] outputs`: which connected screens show the game, main first.
@Suite struct OutputSelectionTests {
    static func connector(_ name: String, _ presence: OutputCandidate.Presence = .connected, modes: Bool = true,
                          monitor: String? = nil) -> OutputCandidate {
        OutputCandidate(name: name, presence: presence, hasModes: modes,
                        monitorMatches: { wanted in monitor.map { "edid:\($0)".lowercased() == wanted.lowercased() } ?? false })
    }

    @Test func parsing() {
        #expect(OutputSelection(parsing: "first") == .first)
        #expect(OutputSelection(parsing: " ALL ") == .all)
        #expect(OutputSelection(parsing: "HDMI-A-2, edid:7MT0174J0ABL") == .named(["HDMI-A-2", "edid:7MT0174J0ABL"]))
        #expect(OutputSelection(parsing: "HDMI-A-1,,DP-1") == nil, "an empty name is a typo")
        #expect(OutputSelection(parsing: String(repeating: "x", count: 65)) == nil)
        #expect(OutputSelection.problem("all") == nil)
        #expect(OutputSelection.problem("a,") != nil)
        #expect(OutputSelection.named(["HDMI-A-1", "DP-1"]).description == "HDMI-A-1,DP-1")
    }

    @Test func firstTakesTheFirstConnectedScreen() {
        let list = [Self.connector("DP-1", .disconnected), Self.connector("HDMI-A-1"), Self.connector("HDMI-A-2")]
        #expect(OutputSelection.first.choose(among: list) == [1])
    }

    @Test func aScreenThatCannotDetectIsUsedOnlyWhenNothingSaysConnected() {
        let panel = Self.connector("DSI-1", .unknown)
        #expect(OutputSelection.first.choose(among: [panel, Self.connector("HDMI-A-1")]) == [1])
        #expect(OutputSelection.first.choose(among: [panel, Self.connector("HDMI-A-1", .disconnected)]) == [0])
        #expect(OutputSelection.all.choose(among: [panel]) == [0])
    }

    @Test func nothingConnectedChoosesNothing() {
        let list = [Self.connector("HDMI-A-1", .disconnected), Self.connector("HDMI-A-2", modes: false)]
        #expect(OutputSelection.first.choose(among: list).isEmpty)
        #expect(OutputSelection.all.choose(among: list).isEmpty)
        #expect(OutputSelection.named(["HDMI-A-1"]).choose(among: list).isEmpty)
    }

    @Test func allTakesEveryConnectedScreenInTheCardsOrder() {
        let list = [Self.connector("HDMI-A-1"), Self.connector("DP-1", .disconnected), Self.connector("HDMI-A-2"),
                    Self.connector("DSI-1", .unknown)]
        #expect(OutputSelection.all.choose(among: list) == [0, 2])
    }

    @Test func namesPickScreensInTheirOrderAndByMonitor() {
        let list = [Self.connector("HDMI-A-1", monitor: "SMALL"), Self.connector("HDMI-A-2", monitor: "BIG")]
        #expect(OutputSelection.named(["hdmi-a-2", "HDMI-A-1"]).choose(among: list) == [1, 0])
        // The big monitor stays main when its cable moves to the other port.
        let swapped = [Self.connector("HDMI-A-1", monitor: "BIG"), Self.connector("HDMI-A-2", monitor: "SMALL")]
        #expect(OutputSelection.named(["edid:big"]).choose(among: swapped) == [0])
        #expect(OutputSelection.named(["edid:BIG", "HDMI-A-1"]).choose(among: swapped) == [0], "no screen twice")
        #expect(OutputSelection.named(["HDMI-A-3"]).choose(among: list).isEmpty)
    }

    @Test func unknownConnectorNamesAreReportedButMonitorsMayComeLater() {
        let list = [Self.connector("HDMI-A-1")]
        #expect(OutputSelection.named(["HDMI-A-9", "edid:LATER", "HDMI-A-1"]).unknownNames(among: list) == ["HDMI-A-9"])
        #expect(OutputSelection.all.unknownNames(among: list).isEmpty)
    }

    @Test func theConfigKeyAcceptsAndRefuses() {
        let good = loadConfig("[display]\noutputs = HDMI-A-1, edid:ABC\n")
        #expect(good.diagnostics.isEmpty)
        #expect(good.settings.display.outputSelection == .named(["HDMI-A-1", "edid:ABC"]))
        let bad = loadConfig("[display]\noutputs = HDMI-A-1,\n")
        #expect(bad.diagnostics.count == 1)
        #expect(bad.settings.display.outputSelection == .first, "a broken line keeps the default")
    }
}

/// A mirrored screen shows the game scaled to fit, centred, with black bars.
@Suite struct MirrorFitTests {
    @Test func aWideScreenGetsBarsAtTheSides() {
        let fit = MirrorFit(source: PixelSize(width: 1280, height: 800), target: PixelSize(width: 1920, height: 1080))
        #expect(fit.scale == 1.35)
        #expect(fit.placed == PixelRect(x: 96, y: 0, width: 1728, height: 1080))
        #expect(fit.targetRect(of: PixelRect(x: 0, y: 0, width: 10, height: 10)) == PixelRect(x: 96, y: 0, width: 15, height: 15))
        #expect(fit.targetRect(of: PixelRect(x: 1270, y: 790, width: 10, height: 10))
            == PixelRect(x: 1809, y: 1065, width: 15, height: 15))
        #expect(fit.targetRect(of: PixelRect(x: 0, y: 0, width: 0, height: 5)) == nil)
    }

    @Test func aPortraitGameOnALandscapeScreenIsPillarboxed() {
        let fit = MirrorFit(source: PixelSize(width: 800, height: 1280), target: PixelSize(width: 1024, height: 768))
        #expect(fit.scale == 0.6)
        #expect(fit.placed == PixelRect(x: 272, y: 0, width: 480, height: 768))
        let whole = fit.targetRect(of: PixelRect(x: 0, y: 0, width: 800, height: 1280))
        #expect(whole == fit.placed, "the whole picture fills exactly the placed part")
    }

    @Test func aTallerScreenGetsBarsAboveAndBelow() {
        let fit = MirrorFit(source: PixelSize(width: 1920, height: 1080), target: PixelSize(width: 1280, height: 1024))
        #expect(fit.placed.width == 1280 && fit.placed.height == 720 && fit.placed.y == 152)
    }
}

/// The watchdog's rule: keep-alives only while frames reach the screen.
@Suite struct FrameDeliveryTests {
    @Test func framesShownInTimeAreHealthy() {
        var d = FrameDelivery()
        let t = TimeStamp(seconds: 100, microseconds: 0)
        #expect(d.isHealthy(at: t))
        d.handedOver(at: t)
        #expect(d.isHealthy(at: t + .seconds(4)))
        d.shown()
        #expect(d.isHealthy(at: t + .seconds(60)))
    }

    @Test func aFrameThatNeverShowsTurnsUnhealthyAndIsReportedOnce() {
        var d = FrameDelivery()
        let t = TimeStamp(seconds: 100, microseconds: 0)
        d.handedOver(at: t)
        // Later frames do not restart the wait: the oldest unshown one counts.
        d.handedOver(at: t + .seconds(3))
        #expect(!d.isHealthy(at: t + FrameDelivery.stuckAfter))
        let first = d.shouldReport(at: t + .seconds(6)), second = d.shouldReport(at: t + .seconds(7))
        #expect(first && !second)
        d.shown()
        #expect(d.isHealthy(at: t + .seconds(8)))
        d.handedOver(at: t + .seconds(10))
        let early = d.shouldReport(at: t + .seconds(11)), again = d.shouldReport(at: t + .seconds(16))
        #expect(!early && again, "a new stuck spell is reported again")
    }

    @Test func drawingNothingOnPurposeOwesNoFrame() {
        var d = FrameDelivery()
        let t = TimeStamp(seconds: 100, microseconds: 0)
        d.handedOver(at: t)
        d.idle()
        #expect(d.isHealthy(at: t + .seconds(60)))
    }
}

/// Touch inputs keep mapping onto the panel size they were made for; a main screen of another
/// size later is reached by scaling.
@Suite struct TouchAfterAnotherScreenTests {
    @Test func touchScalesFromTheInputsPanelToTheNewOne() {
        let t = TouchTransform(native: PixelSize(width: 1920, height: 1080), input: PixelSize(width: 1280, height: 800))
        #expect(!t.isIdentity)
        let p = t.apply(Vector2(640, 400))
        #expect(p.x == 960 && p.y == 540)
        let back = t.panelPosition(ofGame: Vector2(960, 540))
        #expect(back.x == 640 && back.y == 400)
        #expect(TouchTransform(native: PixelSize(width: 800, height: 480)).isIdentity)
    }
}
