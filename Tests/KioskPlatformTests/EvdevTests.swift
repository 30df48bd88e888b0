import Glibc
import KioskCore
import Testing
@testable import KioskPlatform
import KioskTestSupport

/// Capabilities as real devices report them (codes from linux/input-event-codes.h).
private enum Devices {
    static let BTN_RIGHT: UInt16 = 0x111, BTN_TOOL_PEN: UInt16 = 0x140, BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    static let KEY_A: UInt16 = 30, BTN_SOUTH: UInt16 = 0x130
    static let INPUT_PROP_POINTER = 0, INPUT_PROP_BUTTONPAD = 2, INPUT_PROP_ACCELEROMETER = 6
    static let ABS_Z: UInt16 = 0x02

    static func axis(_ max: Int32, res: Int32 = 0) -> AxisInfo { AxisInfo(minimum: 0, maximum: max, resolution: res) }

    /// Tests/vm/selftest/touch.desc: direct, 10 slots.
    static let protocolB = TouchDeviceInfo(
        name: "Bubble Kiosk Test Touchscreen",
        axes: [EventCode.ABS_X: axis(1279, res: 5), EventCode.ABS_Y: axis(799, res: 5), EventCode.ABS_MT_SLOT: axis(9),
               EventCode.ABS_MT_POSITION_X: axis(1279, res: 5), EventCode.ABS_MT_POSITION_Y: axis(799, res: 5),
               EventCode.ABS_MT_TRACKING_ID: axis(65535)],
        keys: [EventCode.BTN_TOUCH], properties: [EventCode.INPUT_PROP_DIRECT])
    static let protocolA = TouchDeviceInfo(
        name: "eGalax protocol A",
        axes: [EventCode.ABS_X: axis(2047), EventCode.ABS_Y: axis(2047),
               EventCode.ABS_MT_POSITION_X: axis(2047), EventCode.ABS_MT_POSITION_Y: axis(2047)],
        keys: [EventCode.BTN_TOUCH], properties: [EventCode.INPUT_PROP_DIRECT])
    /// An old resistive panel: no INPUT_PROP_DIRECT, only BTN_TOUCH and ABS_X/Y.
    static let singleTouch = TouchDeviceInfo(
        name: "ADS7846 Touchscreen", axes: [EventCode.ABS_X: axis(4095), EventCode.ABS_Y: axis(4095),
                                            EventCode.ABS_PRESSURE: axis(255)],
        keys: [EventCode.BTN_TOUCH])
    /// QEMU's usb-tablet: BTN_LEFT and ABS_X/Y, nothing direct about it.
    static let qemuTablet = TouchDeviceInfo(
        name: "QEMU QEMU USB Tablet", axes: [EventCode.ABS_X: axis(32767), EventCode.ABS_Y: axis(32767)],
        keys: [EventCode.BTN_LEFT, BTN_RIGHT, 0x112])
    static let touchpad = TouchDeviceInfo(
        name: "SynPS/2 Synaptics TouchPad",
        axes: [EventCode.ABS_X: axis(5000, res: 40), EventCode.ABS_Y: axis(4000, res: 40),
               EventCode.ABS_MT_SLOT: axis(1), EventCode.ABS_MT_POSITION_X: axis(5000, res: 40),
               EventCode.ABS_MT_POSITION_Y: axis(4000, res: 40), EventCode.ABS_MT_TRACKING_ID: axis(65535)],
        keys: [EventCode.BTN_LEFT, EventCode.BTN_TOUCH, EventCode.BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP],
        properties: [INPUT_PROP_POINTER, INPUT_PROP_BUTTONPAD])
    /// A touchpad whose driver forgot INPUT_PROP_POINTER: the finger tool gives it away.
    static let touchpadWithoutProperty = TouchDeviceInfo(
        name: "Elan Touchpad", axes: touchpad.axes, keys: touchpad.keys, properties: [])
    static let keyboard = TouchDeviceInfo(name: "AT Translated Set 2 keyboard", axes: [:], keys: [KEY_A, 1, 2])
    static let joystick = TouchDeviceInfo(
        name: "Gamepad", axes: [EventCode.ABS_X: axis(255), EventCode.ABS_Y: axis(255)], keys: [BTN_SOUTH])
    static let accelerometer = TouchDeviceInfo(
        name: "Accelerometer", axes: [EventCode.ABS_X: axis(512), EventCode.ABS_Y: axis(512), ABS_Z: axis(512)],
        properties: [INPUT_PROP_ACCELEROMETER])
    /// Direct, with ABS_X/ABS_Y, but no button says when a finger is down.
    static let directWithoutButton = TouchDeviceInfo(
        name: "Axes Only", axes: [EventCode.ABS_X: axis(4095), EventCode.ABS_Y: axis(4095)],
        properties: [EventCode.INPUT_PROP_DIRECT])
    static let penTablet = TouchDeviceInfo(
        name: "Wacom Intuos", axes: [EventCode.ABS_X: axis(15200), EventCode.ABS_Y: axis(9500)],
        keys: [EventCode.BTN_TOUCH, BTN_TOOL_PEN])
}

@Suite struct EvdevClassificationTests {
    @Test func touchscreensAreUsedWithTheirProtocol() {
        #expect(Devices.protocolB.touchscreenVerdict == .touchscreen(.multiTouchB(slots: 10)))
        #expect(Devices.protocolA.touchscreenVerdict == .touchscreen(.multiTouchA))
        #expect(Devices.singleTouch.touchscreenVerdict == .touchscreen(.singleTouch))
        #expect(Devices.qemuTablet.touchscreenVerdict == .touchscreen(.absolutePointer))
        #expect(Devices.protocolB.isTouchscreen && Devices.qemuTablet.isTouchscreen)
    }

    @Test(arguments: [
        (Devices.touchpad, "touchpad (INPUT_PROP_POINTER)"),
        (Devices.touchpadWithoutProperty, "touchpad (BTN_TOOL_FINGER without INPUT_PROP_DIRECT)"),
        (Devices.keyboard, "no absolute axes (keyboard, mouse or buttons)"),
        (Devices.joystick, "absolute axes without BTN_TOUCH, BTN_LEFT or INPUT_PROP_DIRECT (joystick?)"),
        (Devices.accelerometer, "accelerometer"),
        (Devices.penTablet, "graphics tablet (pen without INPUT_PROP_DIRECT)"),
        (Devices.directWithoutButton, TouchDeviceInfo.noTouchButton),
    ])
    func othersAreIgnoredWithAReason(device: TouchDeviceInfo, reason: String) {
        #expect(device.touchscreenVerdict == .ignored(reason), "\(device.name)")
        #expect(!device.isTouchscreen)
    }

    @Test func aDirectTouchpadLikeDeviceIsATouchscreen() {
        // Some touchscreens report BTN_TOOL_FINGER too; INPUT_PROP_DIRECT decides.
        var info = Devices.protocolB
        info.keys.insert(EventCode.BTN_TOOL_FINGER)
        #expect(info.touchscreenVerdict == .touchscreen(.multiTouchB(slots: 10)))
    }

    @Test func eventNodesAreRecognisedAndSortedByNumber() throws {
        #expect(EvdevDevice.eventNumber("event12") == 12)
        #expect(EvdevDevice.eventNumber("event") == nil)
        #expect(EvdevDevice.eventNumber("mouse0") == nil)
        #expect(EvdevDevice.eventNumber("event1a") == nil)
        let dir = TemporaryDirectory("evdev-tests")
        for name in ["event10", "event2", "mice", "event0", "by-id"] { dir.touch(name) }
        #expect(EvdevDevice.nodes(in: dir.path) == ["event0", "event2", "event10"].map { "\(dir.path)/\($0)" })
        #expect(EvdevDevice.nodes(in: dir.path + "/missing") == [])
    }
}

@Suite struct InputDeviceReportTests {
    @Test func aTouchscreenShowsProtocolAxesAndThatItWouldBeUsed() {
        let probe = InputDeviceProbe(path: "/dev/input/event1", info: Devices.protocolB,
                                     id: InputDeviceID(bus: 3, vendor: 0, product: 0, version: 1),
                                     eventTypes: [0, 1, 3])
        #expect(probe.reportLines == [
            "/dev/input/event1: \"Bubble Kiosk Test Touchscreen\" (usb 0000:0000)",
            "  capabilities: multi-touch protocol B (10 slots), direct, 1 button",
            "  ABS_X 0..1279, 5 units/mm (256 mm)",
            "  ABS_Y 0..799, 5 units/mm (160 mm)",
            "  ABS_MT_SLOT 0..9",
            "  ABS_MT_POSITION_X 0..1279, 5 units/mm (256 mm)",
            "  ABS_MT_POSITION_Y 0..799, 5 units/mm (160 mm)",
            "  ABS_MT_TRACKING_ID 0..65535",
            "  → would be used",
        ])
    }

    @Test func aKeyboardIsIgnoredWithItsReason() {
        let probe = InputDeviceProbe(path: "/dev/input/event0", info: Devices.keyboard,
                                     id: InputDeviceID(bus: 0x11, vendor: 1, product: 1), eventTypes: [0, 1, 4, 0x11, 0x14])
        #expect(probe.reportLines == [
            "/dev/input/event0: \"AT Translated Set 2 keyboard\" (i8042 0001:0001)",
            "  capabilities: 3 keys",
            "  ignored: no absolute axes (keyboard, mouse or buttons)",
        ])
    }

    @Test func capabilitiesNameSingleTouchPointersAndMissingResolution() {
        let tablet = InputDeviceProbe(path: "/dev/input/event4", info: Devices.qemuTablet,
                                      id: InputDeviceID(bus: 3, vendor: 0x0627, product: 0x0001), eventTypes: [0, 1, 2, 3])
        #expect(tablet.reportLines[1] == "  capabilities: absolute pointer (BTN_LEFT), relative axes, 3 buttons")
        #expect(tablet.reportLines[2] == "  ABS_X 0..32767, resolution unknown")
        let panel = InputDeviceProbe(path: "/dev/input/event5", info: Devices.singleTouch)
        #expect(panel.reportLines[0] == "/dev/input/event5: \"ADS7846 Touchscreen\"")
        #expect(panel.reportLines[1] == "  capabilities: single-touch, pressure, 1 button")
        #expect(panel.reportLines[2] == "  ABS_X 0..4095, resolution unknown")
        #expect(panel.reportLines[4] == "  ABS_PRESSURE 0..255")
    }

    @Test func permissionProblemsSayWhichGroupToJoin() {
        let denied = InputDeviceProbe(path: "/dev/input/event3", error: SystemError("open", "/dev/input/event3", errno: EACCES),
                                      sysfsName: "ELAN Touchscreen")
        #expect(denied.isPermissionDenied)
        #expect(denied.reportLines == [
            "/dev/input/event3 \"ELAN Touchscreen\": permission denied: add the user to the input group "
                + "(usermod -aG input USER, then log in again)",
        ])
        let gone = InputDeviceProbe(path: "/dev/input/event9", error: SystemError("open", "/dev/input/event9", errno: ENOENT))
        #expect(!gone.isPermissionDenied)
        #expect(gone.reportLines == ["/dev/input/event9: cannot open: /dev/input/event9: No such file or directory (open, errno 2)"])
    }

    @Test func probingSomethingThatIsNoInputDeviceReportsTheError() throws {
        let dir = TemporaryDirectory("evdev-tests")
        dir.touch("event3")
        let probe = InputDeviceProbe.probe(dir.path + "/event3")
        #expect(probe.info == nil)
        #expect(probe.error?.call == "libevdev_new_from_fd")
        #expect(probe.reportLines.count == 1 && probe.reportLines[0].contains("cannot open"))
    }
}

/// Tagged for timing: the retry's deadline is compared with the real clock.
@Suite(.tags(.timing)) struct EvdevHotplugTests {
    /// A node that appears but cannot be opened yet (as before udev fixes its permissions) is
    /// tried again on the loop's deadline, not by sleeping.
    @Test func aNewNodeThatIsNotReadyIsRetriedOnADeadline() throws {
        let dir = TemporaryDirectory("evdev-tests")
        let loop = try EventLoop()
        let input = EvdevTouchInput(path: nil, screen: PixelSize(width: 1280, height: 800), grab: false,
                                    directory: dir.path, log: .discard)
        try input.start(loop: loop, deliver: { _ in }, lost: { _, _ in })
        #expect(input.name == "evdev:all(0)")
        #expect(input.nextDeadline == nil)

        // A dangling link fails with ENOENT, one of the "not ready yet" errors.
        symlink(dir.path + "/not-yet", dir.path + "/event7")
        var retried: TimeStamp?
        let giveUp = (EventLoop.now() + .milliseconds(3000))
        let wake = loop.addTimer("input")
        loop.onIteration = { now in
            input.advance(to: now)
            if retried == nil, let due = input.nextDeadline { retried = due }
            if retried != nil || now >= giveUp { loop.stop() }
            loop.arm(wake, at: min(giveUp, input.nextDeadline ?? giveUp))
        }
        try loop.run()
        let due = try #require(retried, "no retry was scheduled")
        #expect((due - EventLoop.now()).inMilliseconds <= 20)
    }
}

/// What the reader feeds `TouchDecoder` after a `SYN_DROPPED`, checked against the decoder.
@Suite struct EvdevResyncTests {
    let screen = PixelSize(width: 1280, height: 800)
    let t0 = TimeStamp(microseconds: 1_000_000)

    func ev(_ type: UInt16, _ code: UInt16, _ value: Int32, at ms: Double = 0) -> InputEvent {
        InputEvent(time: (t0 + .milliseconds(ms)), type: type, code: code, value: value)
    }

    /// A protocol B state: a finger in slot 1 (tracking id 7 at 100,200), slot 1 current.
    func slotState(at ms: Double) -> [InputEvent] {
        let slots: [Int: [UInt16: Int32]] = [
            1: [EventCode.ABS_MT_TRACKING_ID: 7, EventCode.ABS_MT_POSITION_X: 100, EventCode.ABS_MT_POSITION_Y: 200],
        ]
        return EvdevDevice.stateEvents(
            info: Devices.protocolB, slots: 10, currentSlot: 1, at: (t0 + .milliseconds(ms)),
            slotValue: { slot, code in slots[slot]?[code] ?? (code == EventCode.ABS_MT_TRACKING_ID ? -1 : 0) },
            value: { type, code in type == EventCode.EV_KEY && code == EventCode.BTN_TOUCH ? 1 : 0 })
    }

    @Test func aFingerHeldThroughADropReappearsInAResyncFrameAndKeepsItsSlot() {
        var decoder = TouchDecoder(device: Devices.protocolB, screen: screen, deviceIndex: 2)
        // Finger down in slot 0, then the kernel drops events while it lifts and another lands in slot 1.
        var frames = [ev(3, EventCode.ABS_MT_TRACKING_ID, 5), ev(3, EventCode.ABS_MT_POSITION_X, 600),
                      ev(3, EventCode.ABS_MT_POSITION_Y, 400), ev(0, EventCode.SYN_REPORT, 0)].flatMap { decoder.feed($0) }
        #expect(frames.last?.contacts.map(\.slot) == [0])
        let drop = ev(0, EventCode.SYN_DROPPED, 0, at: 30)
        frames = EvdevDevice.resynchronisation(dropped: drop, state: slotState(at: 40)).flatMap { decoder.feed($0) }
        #expect(frames.count == 1)
        #expect(frames[0].resync)
        #expect(frames[0].device == 2)
        #expect(frames[0].contacts.map(\.slot) == [1])
        #expect(frames[0].contacts.first?.position == Vector2(100, 200))
        // The kernel sends no ABS_MT_SLOT while slot 1 stays current: the move must land there.
        frames = [ev(3, EventCode.ABS_MT_POSITION_X, 120, at: 50), ev(0, EventCode.SYN_REPORT, 0, at: 50)]
            .flatMap { decoder.feed($0) }
        #expect(frames.map(\.resync) == [false])
        #expect(frames.last?.contacts.first?.position == Vector2(120, 200))
        frames = [ev(3, EventCode.ABS_MT_TRACKING_ID, -1, at: 60), ev(0, EventCode.SYN_REPORT, 0, at: 60)]
            .flatMap { decoder.feed($0) }
        #expect(frames.last?.contacts == [])
    }

    @Test func stateListsEverySlotWithItsTrackingIDLastThenTheCurrentSlot() {
        let events = slotState(at: 0)
        #expect(events.filter { $0.code == EventCode.ABS_MT_SLOT }.map(\.value) == Array(0...9) + [1])
        let slot1 = events.drop { !($0.code == EventCode.ABS_MT_SLOT && $0.value == 1) }.dropFirst().prefix(3)
        #expect(slot1.map(\.code) == [EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y, EventCode.ABS_MT_TRACKING_ID])
        #expect(events.last?.code == EventCode.SYN_REPORT && events.last?.type == EventCode.EV_SYN)
        #expect(events.contains(InputEvent(time: t0, type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH, value: 1)))
    }

    @Test func aSingleTouchPressHeldThroughADropIsDownAfterTheResync() {
        var decoder = TouchDecoder(device: Devices.singleTouch, screen: screen)
        let state = EvdevDevice.stateEvents(
            info: Devices.singleTouch, slots: -1, currentSlot: 0, at: t0,
            slotValue: { _, _ in 0 },
            value: { type, code in
                switch (type, code) {
                case (EventCode.EV_KEY, EventCode.BTN_TOUCH): return 1
                case (EventCode.EV_ABS, EventCode.ABS_X): return 2048
                case (EventCode.EV_ABS, EventCode.ABS_Y): return 1024
                default: return 0
                }
            })
        #expect(!state.contains { $0.code == EventCode.ABS_MT_SLOT && $0.type == EventCode.EV_ABS })
        let frames = EvdevDevice.resynchronisation(dropped: ev(0, EventCode.SYN_DROPPED, 0), state: state)
            .flatMap { decoder.feed($0) }
        #expect(frames.count == 1 && frames[0].resync)
        #expect(frames[0].contacts.first?.position == Vector2(640, 200))
    }
}

@Suite struct AxisRangeVerdictTests {
    /// A panel whose X axis has no range would put every touch on one spot: not used.
    @Test func aPositionAxisWithoutRangeIsIgnored() {
        let flat = TouchDeviceInfo(
            name: "broken panel",
            axes: [EventCode.ABS_X: AxisInfo(minimum: 7, maximum: 7), EventCode.ABS_Y: AxisInfo(minimum: 0, maximum: 4095)],
            keys: [EventCode.BTN_TOUCH], properties: [EventCode.INPUT_PROP_DIRECT])
        #expect(flat.touchscreenVerdict == .ignored("axis ABS_X has no range (min 7, max 7)"))
        #expect(!flat.isTouchscreen)
        var fixed = flat
        fixed.axes[EventCode.ABS_X] = AxisInfo(minimum: 0, maximum: 4095)
        #expect(fixed.touchscreenVerdict == .touchscreen(.singleTouch))
    }
}
