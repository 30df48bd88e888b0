@testable import KioskCore

/// Writes small evemu recordings for tests, in the format `evemu-record` writes, so gesture
/// tests run the whole path: text -> parser -> decoder -> recogniser.
///
/// The device's axes run 0...999 on a 1000x1000 screen, so device units are screen pixels.
struct EvemuScript {
    /// `axesOnly`: a direct device with `ABS_X`/`ABS_Y` and no button at all.
    enum DeviceKind { case slots, protocolA, singleTouch, axesOnly }

    static let screen = PixelSize(width: 1000, height: 1000)
    let kind: DeviceKind
    private var lines: [String] = []
    private var slot = 0

    init(_ kind: DeviceKind = .slots) { self.kind = kind }

    var header: String {
        var h = "# EVEMU 1.3\nN: Test Touchscreen\nI: 0003 1234 5678 0111\n"
        h += "P: 02 00 00 00 00 00 00 00\n"
        h += "B: 00 0b 00 00 00 00 00 00 00\n"
        // EV_KEY: BTN_TOUCH (0x14a) is bit 2 of byte 0x29.
        h += "B: 01" + String(repeating: " 00", count: 8) + "\n"
        h += "B: 01" + String(repeating: " 00", count: 8) + "\n"
        h += "B: 01" + String(repeating: " 00", count: 8) + "\n"
        h += "B: 01" + String(repeating: " 00", count: 8) + "\n"
        h += "B: 01" + String(repeating: " 00", count: 8) + "\n"
        h += kind == .axesOnly ? "B: 01" + String(repeating: " 00", count: 8) + "\n" : "B: 01 00 04 00 00 00 00 00 00\n"
        let abs: String
        switch kind {
        case .slots: abs = "B: 03 03 00 00 00 00 80 60 02\n"
        case .protocolA: abs = "B: 03 03 00 00 00 00 00 60 02\n"
        case .singleTouch, .axesOnly: abs = "B: 03 03 00 00 00 00 00 00 00\n"
        }
        h += abs
        h += "A: 00 0 999 0 0 0\nA: 01 0 999 0 0 0\n"
        switch kind {
        case .slots:
            h += "A: 2f 0 9 0 0 0\nA: 35 0 999 0 0 0\nA: 36 0 999 0 0 0\nA: 39 0 65535 0 0 0\n"
        case .protocolA:
            h += "A: 35 0 999 0 0 0\nA: 36 0 999 0 0 0\nA: 39 0 65535 0 0 0\n"
        case .singleTouch, .axesOnly:
            break
        }
        return h
    }

    var text: String { header + lines.joined(separator: "\n") + "\n" }

    mutating func event(_ ms: Double, _ type: Int, _ code: Int, _ value: Int) {
        let us = Int((ms * 1000).rounded())
        let usec = String(us % 1_000_000)
        let pad = String(repeating: "0", count: 6 - usec.count)
        let hex = { (v: Int) -> String in
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, 4 - s.count)) + s
        }
        lines.append("E: \(us / 1_000_000).\(pad)\(usec) \(hex(type)) \(hex(code)) \(value)")
    }

    mutating func syn(_ ms: Double) { event(ms, 0, 0, 0) }

    /// Protocol B: a contact in `slot` goes down (or moves) to (x, y).
    mutating func put(_ ms: Double, slot s: Int, id: Int? = nil, _ x: Int, _ y: Int) {
        if s != slot {
            event(ms, 3, 0x2f, s)
            slot = s
        }
        if let id { event(ms, 3, 0x39, id) }
        event(ms, 3, 0x35, x)
        event(ms, 3, 0x36, y)
    }

    /// Protocol B: the contact in `slot` lifts.
    mutating func lift(_ ms: Double, slot s: Int) {
        if s != slot {
            event(ms, 3, 0x2f, s)
            slot = s
        }
        event(ms, 3, 0x39, -1)
    }

    /// A one-finger stroke through `points`, one frame every `stepMS`, lifted after the last.
    /// Protocol B unless the script is single-touch.
    mutating func stroke(_ points: [(Int, Int)], start: Double, stepMS: Double = 10, slot s: Int = 0, id: Int = 1) {
        var t = start
        for (i, p) in points.enumerated() {
            switch kind {
            case .singleTouch, .axesOnly:
                // An axes-only device has no button to press: only positions come.
                if i == 0 && kind == .singleTouch { event(t, 1, 0x14a, 1) }
                event(t, 3, 0, p.0)
                event(t, 3, 1, p.1)
            case .slots:
                put(t, slot: s, id: i == 0 ? id : nil, p.0, p.1)
            case .protocolA:
                event(t, 3, 0x35, p.0)
                event(t, 3, 0x36, p.1)
                event(t, 0, 2, 0)
            }
            syn(t)
            t += stepMS
        }
        switch kind {
        case .singleTouch: event(t, 1, 0x14a, 0)
        case .axesOnly: break
        case .slots: lift(t, slot: s)
        case .protocolA: event(t, 0, 2, 0)
        }
        syn(t)
    }

    /// Points along a straight line, `steps` segments.
    static func line(from a: (Int, Int), to b: (Int, Int), steps: Int) -> [(Int, Int)] {
        (0...steps).map { i in
            let f = Double(i) / Double(steps)
            return (Int((Double(a.0) + f * Double(b.0 - a.0)).rounded()),
                    Int((Double(a.1) + f * Double(b.1 - a.1)).rounded()))
        }
    }

    /// Parses this script and returns the gestures with the given settings.
    func gestures(_ settings: GestureSettings = GestureSettings(), pxPerMM: Double = 4) throws -> [Gesture] {
        let recording = try EvemuRecording.parse(text, file: "script.evemu")
        var out: [Gesture] = []
        Replay.gestures(of: recording, screen: Self.screen,
                        thresholds: GestureThresholds(settings, pxPerMM: pxPerMM)) { out.append($0) }
        return out
    }
}

extension Array where Element == Gesture {
    /// The kinds in order, without drag moves (most tests care about the shape of the sequence).
    var kinds: [Gesture.Kind] { filter { $0.kind != .dragMove }.map(\.kind) }
}
