/// Plays a recording through the decoder and the gesture recogniser on virtual time,
/// as fast as the machine allows.
public enum Replay {
    /// Where the recording's time starts (its first event) and ends (its last).
    public struct Span: Equatable, Sendable {
        public var start: TimeStamp
        public var end: TimeStamp
    }

    /// The time span of a recording's events.
    public static func span(of recording: EvemuRecording) -> Span {
        Span(start: recording.events.first?.time ?? .zero, end: recording.events.last?.time ?? .zero)
    }

    /// Decodes every event into frames and frames into gestures, handing each gesture on in order.
    public static func gestures(of recording: EvemuRecording, screen: PixelSize,
                                thresholds: GestureThresholds, _ emit: (Gesture) -> Void) {
        var decoder = TouchDecoder(device: recording.device, screen: screen)
        var recognizer = GestureRecognizer(thresholds: thresholds, screen: screen)
        for event in recording.events {
            for frame in decoder.feed(event) {
                recognizer.process(frame, emit)
            }
        }
        // Whatever came due before the recording ended (a long press still held).
        recognizer.advance(to: span(of: recording).end, emit)
        // Nothing can bounce back after the last event: lifts still waiting are final.
        recognizer.finishInput(emit)
    }
}
