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
        var events = recording.events.makeIterator()
        play(device: recording.device, screen: screen, thresholds: thresholds,
             next: { () throws(Never) in events.next() }, end: { span(of: recording).end }, emit)
    }

    /// The same for a recording read as it goes: events are decoded and recognised one at a
    /// time, so memory stays constant however long the recording is. Returns the span of the
    /// events read; throws at the first malformed line, after emitting what came before it.
    public static func gestures(reading reader: inout EvemuReader, screen: PixelSize,
                                thresholds: GestureThresholds,
                                _ emit: (Gesture) -> Void) throws(RecordingError) -> Span {
        try play(device: reader.header.device, screen: screen, thresholds: thresholds,
                 next: { () throws(RecordingError) in try reader.next() },
                 end: { reader.lastEventTime ?? .zero }, emit)
        return Span(start: reader.firstEventTime ?? .zero, end: reader.lastEventTime ?? .zero)
    }

    /// The one replay loop both forms share.
    private static func play<E: Error>(device: TouchDeviceInfo, screen: PixelSize, thresholds: GestureThresholds,
                                       next: () throws(E) -> InputEvent?, end: () -> TimeStamp,
                                       _ emit: (Gesture) -> Void) throws(E) {
        var decoder = TouchDecoder(device: device, screen: screen)
        var recognizer = GestureRecognizer(thresholds: thresholds, screen: screen)
        while let event = try next() {
            for frame in decoder.feed(event) {
                recognizer.process(frame, emit)
            }
        }
        // Whatever came due before the recording ended (a long press still held).
        recognizer.advance(to: end(), emit)
        // Nothing can bounce back after the last event: lifts still waiting are final.
        recognizer.finishInput(emit)
    }
}
