extension Scene {
    /// The whole picture moved by `offset` (`PixelShift`): every item, the background still
    /// filling the screen, so the edge the picture leaves shows the background. Whole pixels
    /// keep every item's sprite and snapping exactly as it was, only elsewhere.
    public func shifted(by offset: PixelOffset) -> Scene {
        guard !offset.isZero else { return self }
        var moved = self
        let v = offset.vector
        for i in moved.items.indices { moved.items[i].shape = moved.items[i].shape.shifted(by: v) }
        return moved
    }
}

extension SceneShape {
    /// The same shape, drawn `v` further right and down.
    public func shifted(by v: Vector2) -> SceneShape {
        switch self {
        case .bubble(var s):
            s.center += v
            return .bubble(s)
        case .particle(var s):
            s.center += v
            return .particle(s)
        case .finger(var s):
            s.center += v
            return .finger(s)
        case .button(var s):
            s.rect = s.rect.shifted(by: v)
            return .button(s)
        case .text(var s):
            s.position += v
            return .text(s)
        case .panel(var s):
            s.rect = s.rect.shifted(by: v)
            return .panel(s)
        case .goal(var s):
            s.rect = s.rect.shifted(by: v)
            return .goal(s)
        case .polyline(var s):
            s.points = s.points.map { $0 + v }
            return .polyline(s)
        case .cells(var s):
            s.rect = s.rect.shifted(by: v)
            return .cells(s)
        case .image(var s):
            s.rect = s.rect.shifted(by: v)
            return .image(s)
        }
    }
}
