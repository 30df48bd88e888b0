import KioskCore
import KioskRender
import KioskTestSupport
import Testing

/// Pictures from files the operator names: any bytes give a picture or a reason, never a crash
/// or an allocation the header did not pass.
@Suite struct PictureTests {
    @Test func aSmallPNGIsReadWithItsSize() throws {
        let dir = TemporaryDirectory("picture")
        let renderer = SceneRenderer(size: PixelSize(width: 30, height: 12))
        renderer.render(Scene(size: PixelSize(width: 30, height: 12), pxPerMM: 4))
        writeFile(dir.path + "/p.png", try PNGWriter.pngBytes(renderer.frame))
        let picture = try Picture(path: dir.path + "/p.png")
        #expect(picture.size == PixelSize(width: 30, height: 12))
    }

    @Test func brokenFilesGiveOneReasonEach() throws {
        let dir = TemporaryDirectory("picture")
        let renderer = SceneRenderer(size: PixelSize(width: 30, height: 12))
        renderer.render(Scene(size: PixelSize(width: 30, height: 12), pxPerMM: 4))
        let good = try PNGWriter.pngBytes(renderer.frame)
        var generator = SeededGenerator(seed: 31)
        var cases: [[UInt8]] = [[], Array(good.prefix(8)), Array(good.prefix(24)), Array(good.prefix(good.count / 2))]
        // Random bytes after a valid signature and header, and single flipped bytes.
        for _ in 0..<40 {
            var bytes = good
            let at = Int.random(in: 8..<bytes.count, using: &generator)
            bytes[at] ^= UInt8.random(in: 1...255, using: &generator)
            cases.append(bytes)
            cases.append(Array(good.prefix(24)) + (0..<Int.random(in: 0..<200, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            })
        }
        for (i, bytes) in cases.enumerated() {
            let path = dir.path + "/case\(i).png"
            writeFile(path, bytes)
            do {
                let p = try Picture(path: path)
                #expect(p.size.width <= Picture.maxSide && p.size.height <= Picture.maxSide)
            } catch {
                #expect(!error.reason.isEmpty && error.description.hasPrefix(path))
            }
        }
        #expect(throws: PictureError.self) { try Picture(path: dir.path + "/missing.png") }
        #expect(throws: PictureError.self) { try Picture(path: dir.path) }
    }
}
