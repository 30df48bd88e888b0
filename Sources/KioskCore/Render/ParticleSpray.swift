/// The spray of sparks a popped bubble leaves: each particle flies out at a random angle and
/// distance, slowing down (ease-out) and fading, all gone after `duration`.
///
/// Everything random is drawn once, at creation, from the game's `SeededGenerator`, so a replay
/// with the same seed shows the same sparks; `particles(at:)` is a pure function of time.
public struct ParticleSpray: Equatable, Sendable {
    /// Random choices for one particle, fixed when the spray starts.
    struct Particle: Equatable, Sendable {
        var direction: Vector2
        var distance: Double
        var radius: Double
        var color: RGBColor
        /// Share of the spray's duration this particle lives, so they do not all vanish at once.
        var life: Double
    }

    /// Numbers the particles' ids, `.particle(spray: id, index:)`; unique among live sprays.
    public let id: Int
    public let origin: Vector2
    public let start: TimeStamp
    public let duration: Duration
    let startRadius: Double
    let fall: Double
    let particles: [Particle]

    /// - Parameters:
    ///   - startRadius: where the particles appear, in pixels from `origin` (a bubble's rim).
    ///   - generator: advanced by exactly five draws per particle.
    public init(id: Int, origin: Vector2, color: RGBColor, start: TimeStamp,
                generator: inout SeededGenerator, count: Int = 30, pxPerMM: Double,
                startRadius: Double = 0, duration: Duration = .seconds(1)) {
        self.id = id
        self.origin = origin
        self.start = start
        self.duration = duration
        self.startRadius = startRadius
        // A slight sag makes the sparks feel like they have weight.
        self.fall = 3 * pxPerMM
        // Three tints only: particles are cached as sprites per colour and size.
        let tints = [color, color.mixed(with: .white, amount: 0.35), color.mixed(with: .white, amount: 0.7)]
        var list: [Particle] = []
        list.reserveCapacity(max(count, 0))
        for _ in 0..<max(count, 0) {
            let angle = generator.uniform(0, 360)
            let distance = generator.uniform(6, 20) * pxPerMM
            let radius = generator.uniform(0.5, 1.2) * pxPerMM
            let tint = tints[generator.integer(in: 0...2)]
            let life = generator.uniform(0.65, 1.0)
            list.append(Particle(direction: Angle.unitVector(degrees: angle), distance: distance,
                                 radius: radius, color: tint, life: life))
        }
        particles = list
    }

    /// The same spray from its own seed, for callers without a shared generator.
    public init(id: Int, origin: Vector2, color: RGBColor, start: TimeStamp, seed: UInt64,
                count: Int = 30, pxPerMM: Double, startRadius: Double = 0, duration: Duration = .seconds(1)) {
        var generator = SeededGenerator(seed: seed)
        self.init(id: id, origin: origin, color: color, start: start, generator: &generator,
                  count: count, pxPerMM: pxPerMM, startRadius: startRadius, duration: duration)
    }

    /// The live particles at `time`: none before `start` or once finished.
    public func particles(at time: TimeStamp) -> [SceneItem] {
        let elapsed = time - start
        guard elapsed >= .zero, elapsed < duration else { return [] }
        let t = elapsed / duration
        var items: [SceneItem] = []
        items.reserveCapacity(particles.count)
        for (index, p) in particles.enumerated() {
            let u = t / p.life
            guard u < 1 else { continue }
            let eased = 1 - (1 - u) * (1 - u) * (1 - u)
            let reach = startRadius + p.distance * eased
            let center = origin + p.direction * reach + Vector2(0, fall * u * u)
            // Stay bright while fast, fade as they slow down.
            let opacity = 1 - u * u
            let shape = ParticleShape(center: center, radius: p.radius, color: p.color, opacity: opacity)
            items.append(SceneItem(id: .particle(spray: id, index: index), shape: .particle(shape)))
        }
        return items
    }

    public func isFinished(at time: TimeStamp) -> Bool {
        time - start >= duration
    }

    /// Every pixel the spray can touch during its life.
    public var maximumBounds: PixelRect {
        var box = PixelRect(around: origin, halfExtent: 1)
        for p in particles {
            let reach = startRadius + p.distance
            let end = origin + p.direction * reach
            box = box.union(PixelRect(around: origin + p.direction * startRadius, halfExtent: p.radius + 2))
            box = box.union(PixelRect(enclosing: Rect(x: end.x - p.radius - 2, y: end.y - p.radius - 2,
                                                      width: 2 * p.radius + 4, height: 2 * p.radius + 4 + fall)))
        }
        return box
    }
}

/// The pop of a bubble: it swells (1.0 to 1.3 by default) and fades out over about 200 ms.
public struct PopAnimation: Equatable, Sendable {
    public var start: TimeStamp
    public var duration: Duration
    public var maxScale: Double

    public init(start: TimeStamp, duration: Duration = .milliseconds(200), maxScale: Double = 1.3) {
        self.start = start
        self.duration = duration
        self.maxScale = maxScale
    }

    /// 0 at the start, 1 when done, clamped.
    public func progress(at time: TimeStamp) -> Double {
        guard duration > .zero else { return 1 }
        return min(max((time - start) / duration, 0), 1)
    }

    /// Eases out: most of the swelling happens at once, which reads as a "pop".
    public func scale(at time: TimeStamp) -> Double {
        let p = progress(at: time)
        return 1 + (maxScale - 1) * (1 - (1 - p) * (1 - p))
    }

    public func opacity(at time: TimeStamp) -> Double { 1 - progress(at: time) }

    public func isFinished(at time: TimeStamp) -> Bool { progress(at: time) >= 1 }

    /// The bubble as drawn at `time`, or nil once the pop is over.
    public func apply(to bubble: BubbleShape, at time: TimeStamp) -> BubbleShape? {
        guard !isFinished(at: time) else { return nil }
        var b = bubble
        b.scale *= scale(at: time)
        b.opacity *= opacity(at: time)
        return b
    }
}
