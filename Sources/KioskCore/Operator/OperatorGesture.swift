/// What an operator gesture asks the kiosk for.
public enum OperatorAction: String, Sendable {
    /// Open (or close) the touch-test screen.
    case touchTest = "touch-test"
    /// End the process with `ExitStatus.operatorReset`, for a fresh start.
    case reset
}

/// The gestures the detector knows. Raw values are the names `[operator]` and the log use.
public enum OperatorGestureKind: String, Sendable, CaseIterable {
    /// Five or more fingers held still at once.
    case fiveFingerHold = "five-finger-hold"
    /// Long presses in two diagonally opposite corners at the same time.
    case oppositeCorners = "opposite-corners"
    /// Long presses in all four corners, one after another, going round.
    case fourCorners = "four-corners"
}

/// A recognised operator gesture.
public struct OperatorGesture: Equatable, Sendable {
    public var action: OperatorAction
    public var kind: OperatorGestureKind
    /// When it was complete (the last hold reached its time).
    public var time: TimeStamp
    /// The device of the contact that completed it.
    public var device: Int
    /// Its contacts still down: the game has their gestures cancelled, and does not see them
    /// again until they lift.
    public var contacts: [ContactRef]

    public init(action: OperatorAction, kind: OperatorGestureKind, time: TimeStamp, device: Int, contacts: [ContactRef]) {
        self.action = action
        self.kind = kind
        self.time = time
        self.device = device
        self.contacts = contacts
    }
}

/// `[operator] touch_test_gesture`: which gesture opens and closes the touch-test screen.
public enum TouchTestGestureSetting: String, Sendable, CaseIterable {
    case fiveFingerHold = "five-finger-hold"
    case oppositeCorners = "opposite-corners"
    case both
    case off

    var fiveFingers: Bool { self == .fiveFingerHold || self == .both }
    var oppositeCorners: Bool { self == .oppositeCorners || self == .both }
}

/// `[operator] reset_gesture`: which gesture asks for the operator reset.
public enum ResetGestureSetting: String, Sendable, CaseIterable {
    case fourCorners = "four-corners"
    case off
}

/// One of the screen's four corners, numbered clockwise (y down) from the top left.
public enum ScreenCorner: Int, Sendable, CaseIterable {
    case topLeft = 0, topRight, bottomRight, bottomLeft

    /// The corner diagonally across.
    public var opposite: ScreenCorner { ScreenCorner(rawValue: (rawValue + 2) % 4)! }

    /// +1 when `next` follows this corner clockwise, -1 counter-clockwise, 0 otherwise.
    func turn(to next: ScreenCorner) -> Int {
        switch (next.rawValue - rawValue + 4) % 4 {
        case 1: return 1
        case 3: return -1
        default: return 0
        }
    }
}
