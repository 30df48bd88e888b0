import KioskCore
import KioskPlatform
import KioskRender

/// `PREFIX/screenshot/set`: the screen's picture, made into PNG away from the loop.
extension FleetLayer {
    func publishScreenshot(_ host: LayerHost) {
        guard encoder == nil else { return }
        guard let mailbox = encoded else {
            log(.warning, "mqtt: screenshot/set: no mailbox for the picture; ignored")
            return
        }
        let shot = HandedOver(host.screenSnapshot())
        do {
            encoder = try WorkerThread(name: "mqtt-png") {
                do {
                    mailbox.post(.png(try PNGWriter.pngBytes(shot.buffer)))
                } catch {
                    mailbox.post(.failed("\(error)"))
                }
            }
        } catch {
            log(.error, "mqtt: screenshot: \(error)")
        }
    }

    func screenshotDone(_ outcome: ScreenshotOutcome) {
        encoder?.join()
        encoder = nil
        guard let names else { return }
        // The command's result: its line is folded with the command's when screenshots repeat.
        guard let host else { return report(outcome, names) }
        host.logging(spell: Self.spellName(.screenshot), newEvent: false) { report(outcome, names) }
    }

    private func report(_ outcome: ScreenshotOutcome, _ names: FleetNames) {
        switch outcome {
        case .png(let png):
            let sent = connection?.publish(MQTTMessage(topic: names.screenshotTopic, payload: png, retain: true)) ?? false
            log(sent ? .info : .warning, "mqtt: screenshot of \(png.count / 1024) KiB "
                + (sent ? "published" : "not published: the connection is down or its queue full"))
        case .failed(let why):
            log(.error, "mqtt: screenshot: \(why)")
        }
    }
}

/// What the PNG thread hands back.
enum ScreenshotOutcome: Sendable {
    case png([UInt8])
    case failed(String)
}

/// A snapshot handed to the PNG thread: a copy made for it that the loop keeps no reference to,
/// so only that thread ever touches its pixels.
struct HandedOver: @unchecked Sendable {
    let buffer: PixelBuffer
    init(_ buffer: PixelBuffer) { self.buffer = buffer }
}
