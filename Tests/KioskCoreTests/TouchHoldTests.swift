import KioskCore
import Testing

/// `TouchHold`: a whole touch kept from the game until every finger of it lifted.
@Suite struct TouchHoldTests {
    static func frame(device: Int = 0, _ ids: Int...) -> TouchFrame {
        TouchFrame(time: .zero, device: device,
                   contacts: ids.enumerated().map { TouchPoint(slot: $0.offset, trackingID: $0.element, position: Vector2(10, 10)) })
    }

    @Test func nothingIsKeptWhileItHoldsNothing() {
        var hold = TouchHold()
        hold.hold(Self.frame())  // no finger down: nothing to hold
        #expect(!hold.isHolding)
        let kept = hold.keeps(Self.frame(1))
        #expect(!kept && hold.keptFrames == 0)
    }

    /// Fingers joining the held touch, on its device or another, are kept with it; the frame
    /// with the last lift is kept too, the next touch is not.
    @Test func keepsEveryFrameUntilTheLastFingerLifted() {
        var hold = TouchHold()
        hold.hold(Self.frame(1))
        var kept = [hold.keeps(Self.frame(1, 2)), hold.keeps(Self.frame(device: 1, 7))]
        #expect(hold.devices == [0, 1])
        kept.append(hold.keeps(Self.frame()))
        #expect(hold.isHolding, "device 1 still has a finger down")
        kept.append(hold.keeps(Self.frame(device: 1)))
        #expect(!hold.isHolding)
        kept.append(hold.keeps(Self.frame(3)))
        #expect(kept == [true, true, true, true, false])
        #expect(hold.keptFrames == 4)
    }

    @Test func aVanishedDeviceAndAReleaseLetGo() {
        var hold = TouchHold()
        hold.hold(devices: [0, 2])
        hold.forget(device: 2)
        #expect(hold.devices == [0])
        hold.release()
        let kept = hold.keeps(Self.frame(1))
        #expect(!hold.isHolding && !kept)
    }
}
