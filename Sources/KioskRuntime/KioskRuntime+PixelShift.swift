import KioskCore

/// Against burn-in (`[display] pixel_shift`, `PixelShift`): the game's picture is drawn a few
/// pixels off every few minutes, and the game gets each touch where its picture was under the
/// finger. The touch-test screen is never moved: it shows the panel's exact coordinates.
extension KioskRuntime {
    /// The policy as the settings and the layout are now (a reload or a resize changes it).
    var pixelShift: PixelShift {
        PixelShift(enabled: settings.display.pixelShift, pxPerMM: session.game.field.pxPerMM)
    }

    /// Where the game's picture is drawn now: the policy's offset, except that a move waits
    /// while a finger is down, so a drag never jumps under it.
    func gameOffset(at now: TimeStamp) -> PixelOffset {
        fingerDown ? stage.shownOffset : pixelShift.offset(at: now)
    }

    /// The game's scene as drawn at `offset`.
    func shiftedGameScene(_ offset: PixelOffset, at now: TimeStamp) -> Scene {
        stage.scenes.scene(session, at: now).shifted(by: offset)
    }

    /// A touch frame in screen coordinates as the game takes it: moved back by the offset shown
    /// when it came, so it lands where the game laid out what was under the finger, and kept
    /// on the screen as `TouchTransform` keeps it.
    func unshifted(_ frame: TouchFrame) -> TouchFrame {
        let offset = stage.shownOffset
        guard !offset.isZero else { return frame }
        let size = session.game.field.size
        var f = frame
        for i in f.contacts.indices {
            let p = f.contacts[i].position - offset.vector
            f.contacts[i].position = Vector2(min(max(p.x, 0), Double(size.width)), min(max(p.y, 0), Double(size.height)))
        }
        return f
    }
}
