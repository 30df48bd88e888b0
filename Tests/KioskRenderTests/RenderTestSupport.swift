import Glibc
import KioskCore
import KioskRender
import KioskTestSupport
import Testing

/// Scenes, pixel helpers and the golden-image comparison shared by the renderer tests.
enum TestScenes {
    static let pxPerMM = 4.0

    static func bubble(_ id: Int, at p: Vector2, diameter: Double = 96, color: Int = 0,
                       content: BubbleContent = .none, scale: Double = 1, opacity: Double = 1) -> SceneItem {
        SceneItem(id: .bubble(id), shape: .bubble(BubbleShape(
            center: p, diameter: diameter, color: .bubble(color), content: content, scale: scale, opacity: opacity)))
    }

    /// `count` bubbles on a grid below a heads-up bar, of every kind, with a score text.
    static func field(size: PixelSize = PixelSize(width: 960, height: 540), count: Int = 24) -> Scene {
        var items: [SceneItem] = [SceneItem(id: .ui("bar"), shape: .panel(PanelShape(
            rect: Rect(x: 0, y: 0, width: Double(size.width), height: 48), color: RGBColor.black.withAlpha(0.35))))]
        let columns = 8
        for i in 0..<count {
            let p = Vector2(70 + Double(i % columns) * 115, 120 + Double(i / columns) * 130)
            let content: BubbleContent = i % 3 == 0 ? .none : i % 3 == 1 ? .taps(1 + i % 3) : .arrow(degrees: Double(i * 37))
            items.append(bubble(i, at: p, diameter: 80 + Double(i % 4) * 8, color: i, content: content))
        }
        items.append(SceneItem(id: .ui("score"), shape: .text(TextShape(
            position: Vector2(16, 34), string: "Score 120", sizePx: 24))))
        return Scene(size: size, pxPerMM: pxPerMM, items: items)
    }

    /// 40 frames of `field()`: a bubble popping with its sparks, a finger moving, the score
    /// changing every 10 frames.
    static func poppingField() -> [Scene] {
        let base = TestScenes.field()
        var spray: ParticleSpray?
        var scenes: [Scene] = []
        for frame in 0..<40 {
            let now = TimeStamp(milliseconds: Double(frame) * 16.7)
            var scene = base
            if frame == 5 {
                spray = ParticleSpray(id: 0, origin: Vector2(415, 250), color: .bubble(3), start: now,
                                      seed: 9, pxPerMM: TestScenes.pxPerMM, startRadius: 30)
            }
            if let i = scene.items.firstIndex(where: { $0.id == .bubble(11) }), frame >= 5,
               case .bubble(let b) = scene.items[i].shape {
                let pop = PopAnimation(start: TimeStamp(milliseconds: 5 * 16.7))
                if let shape = pop.apply(to: b, at: now) {
                    scene.items[i].shape = .bubble(shape)
                } else {
                    scene.items.remove(at: i)
                }
            }
            scene.items += spray?.particles(at: now) ?? []
            scene.items.append(TestScenes.finger(0, at: Vector2(100 + Double(frame) * 19, 300 + Double(frame % 7) * 9)))
            if frame % 10 == 0, let i = scene.items.firstIndex(where: { $0.id == .ui("score") }),
               case .text(var t) = scene.items[i].shape {
                t.string = "Score \(frame * 10)"
                scene.items[i].shape = .text(t)
            }
            scenes.append(scene)
        }
        return scenes
    }

    static func finger(_ slot: Int, at p: Vector2, ghost: Bool = false) -> SceneItem {
        SceneItem(id: .finger(slot), shape: .finger(FingerShape(center: p, radius: 24, ghost: ghost)))
    }

    /// Pixels whose channels are all at least `level`: digits and arrows are white.
    static func whitePixels(_ frame: Frame, in r: PixelRect, level: UInt32 = 235) -> Int {
        var n = 0
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                let p = frame[x, y]
                if (p >> 16) & 0xFF >= level && (p >> 8) & 0xFF >= level && p & 0xFF >= level { n += 1 }
            }
        }
        return n
    }

    /// Sum of all pixels, to notice any change to a frame.
    static func checksum(_ frame: Frame) -> UInt64 {
        var sum: UInt64 = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width { sum = sum &* 31 &+ UInt64(frame[x, y]) }
        }
        return sum
    }
}

/// Per-pixel comparison with a tolerance: font hinting and rounding may move a few edge pixels
/// a little, but a missing digit or arrow changes far more than the allowed share.
struct ImageDifference {
    var differingPixels = 0
    var totalPixels = 0
    var largestChannelDifference: UInt32 = 0
    var sameSize = true

    static let channelTolerance: UInt32 = 48
    static let allowedShare = 0.005

    init(_ a: Frame, _ b: Frame) {
        guard a.width == b.width, a.height == b.height else {
            sameSize = false
            return
        }
        totalPixels = a.width * a.height
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a[x, y], q = b[x, y]
                var worst: UInt32 = 0
                for shift: UInt32 in [0, 8, 16] {
                    let u = (p >> shift) & 0xFF, v = (q >> shift) & 0xFF
                    worst = max(worst, u > v ? u - v : v - u)
                }
                largestChannelDifference = max(largestChannelDifference, worst)
                if worst > Self.channelTolerance { differingPixels += 1 }
            }
        }
    }

    var matches: Bool {
        sameSize && Double(differingPixels) <= Double(totalPixels) * Self.allowedShare
    }

    var summary: String {
        sameSize ? "\(differingPixels) of \(totalPixels) pixels differ by more than \(Self.channelTolerance) "
            + "(largest difference \(largestChannelDifference))" : "sizes differ"
    }
}

/// Golden images live in Tests/KioskRenderTests/Golden. A missing one is written and the test
/// fails, so new goldens are always looked at; `UPDATE_GOLDEN=1` rewrites them on purpose.
enum Golden {
    static let directory: String = {
        let file = #filePath
        let dir = file[..<(file.lastIndex(of: "/") ?? file.endIndex)]
        return String(dir) + "/Golden"
    }()
    static let failureDirectory = "/tmp/bubble-kiosk-golden"

    static func check(_ frame: Frame, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let path = "\(directory)/\(name).png"
        let update = getenv("UPDATE_GOLDEN").map { String(cString: $0) } == "1"
        if update || access(path, F_OK) != 0 {
            do { writeFile(path, try PNGWriter.pngBytes(frame)) } catch {
                Issue.record("could not write golden image: \(error)", sourceLocation: sourceLocation)
                return
            }
            if !update {
                let message = "golden image \(path) did not exist and was created: look at it, commit it, "
                    + "and run again (UPDATE_GOLDEN=1 regenerates goldens deliberately)"
                Issue.record("\(message)", sourceLocation: sourceLocation)
            }
            return
        }
        let expected: Frame
        do { expected = try PNGReader.readPNG(path) } catch {
            Issue.record("could not read golden image: \(error)", sourceLocation: sourceLocation)
            return
        }
        let diff = ImageDifference(frame, expected)
        guard !diff.matches else { return }
        mkdir(failureDirectory, 0o755)
        let actual = "\(failureDirectory)/\(name).actual.png"
        if let bytes = try? PNGWriter.pngBytes(frame) { writeFile(actual, bytes) }
        Issue.record("\(name) differs from its golden image: \(diff.summary); actual image: \(actual)",
                     sourceLocation: sourceLocation)
    }
}
