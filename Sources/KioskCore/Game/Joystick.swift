/// The on-screen joystick of the joystick mode: a base circle that a finger can drag anywhere on
/// the screen, and a knob that follows another finger but never leaves the base's radius and
/// snaps back to the centre when that finger lifts. The same rules as the SwiftUI seed
/// (`joystick-control.txt`), as plain values fed by gestures.
public struct Joystick: Equatable, Sendable {
    /// A finger, by input device and touch slot.
    public struct Finger: Hashable, Sendable {
        public var device: Int
        public var slot: Int

        public init(device: Int, slot: Int) {
            self.device = device
            self.slot = slot
        }
    }

    /// Centre of the base circle.
    public private(set) var base: Vector2
    /// The base's radius: how far the knob can go from the centre.
    public let radius: Double
    /// Where the knob is; `base` when nobody steers.
    public private(set) var knob: Vector2
    /// The finger steering the knob, if any.
    public private(set) var steering: Finger?
    /// The finger dragging the base, if any.
    public private(set) var moving: Finger?
    /// Where the steering finger last was (the knob follows it, clamped, also when the base moves).
    private var steerFinger: Vector2?
    /// The base's centre minus the moving finger's position when it grabbed the base, so the
    /// base does not jump to the finger.
    private var grabOffset = Vector2.zero
    /// The area the base's centre stays in.
    public let bounds: Rect

    public init(base: Vector2, radius: Double, bounds: Rect) {
        self.base = base
        self.radius = radius
        self.knob = base
        self.bounds = bounds
    }

    /// Radius of the knob, drawn and hit.
    public var knobRadius: Double { radius * 0.45 }

    /// The knob's offset from the centre.
    public var offset: Vector2 { knob - base }

    /// The knob's distance from the centre in pixels, 0...radius.
    public var distance: Double { offset.length }

    /// `distance` as a share of the radius, 0...1: what the catcher's speed follows.
    public var deflection: Double { radius > 0 ? min(1, distance / radius) : 0 }

    /// The knob's direction as the seed reads it out: whole degrees 0...359, counter-clockwise
    /// from the right (so up is 90 on a screen whose y runs down); 0 at the centre.
    public var readoutDegrees: Int {
        var d = Int(-offset.angleDegrees)
        if d < 0 { d += 360 }
        return d
    }

    /// The readout as shown above the base: `90°  32 px`.
    public var readout: String { "\(readoutDegrees)°  \(Int(distance.rounded())) px" }

    /// What a contact going down at `point` would take: the knob (on it, or anywhere on the base
    /// while nobody steers), or the base's ring; nil off the joystick.
    public enum Part: Sendable { case knob, base }

    public func part(at point: Vector2, margin: Double) -> Part? {
        if steering == nil && point.distance(to: knob) <= knobRadius + margin { return .knob }
        guard point.distance(to: base) <= radius + margin else { return nil }
        if moving == nil { return .base }
        return steering == nil ? .knob : nil
    }

    /// A finger takes the knob: it follows the finger from now on.
    public mutating func grabKnob(_ finger: Finger, at point: Vector2) {
        steering = finger
        steer(to: point)
    }

    /// The knob follows the finger, clamped to the base's radius (the seed's `fingerDrag`).
    public mutating func steer(to point: Vector2) {
        steerFinger = point
        let d = point - base
        let length = d.length
        knob = length <= radius || length == 0 ? point : base + d * (radius / length)
    }

    /// A finger takes the base (the seed's `simpleDrag`).
    public mutating func grabBase(_ finger: Finger, at point: Vector2) {
        moving = finger
        grabOffset = base - point
    }

    /// The base follows its finger (kept on the screen); a steered knob stays clamped around it.
    public mutating func moveBase(to point: Vector2) {
        let p = point + grabOffset
        base = Vector2(min(max(p.x, bounds.x), bounds.maxX), min(max(p.y, bounds.y), bounds.maxY))
        if let f = steerFinger { steer(to: f) } else { knob = base }
    }

    /// A finger lifted (or its contact was cancelled): the knob snaps back to the centre, the
    /// base stays where it was put. True when the finger held part of the joystick.
    @discardableResult
    public mutating func release(_ finger: Finger) -> Bool {
        var held = false
        if steering == finger {
            steering = nil
            steerFinger = nil
            knob = base
            held = true
        }
        if moving == finger {
            moving = nil
            held = true
        }
        return held
    }

    /// True while this finger holds the knob or the base.
    public func holds(_ finger: Finger) -> Bool { steering == finger || moving == finger }
}
