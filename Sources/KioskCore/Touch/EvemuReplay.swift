extension Replay {
    /// `gestures(of:)` for a recording read as it goes: events are decoded and recognised one
    /// at a time, so memory stays constant however long the recording is. Returns the span of
    /// the events read; throws at the first malformed line, after emitting what came before it.
    public static func gestures(reading reader: inout EvemuReader, screen: PixelSize,
                                thresholds: GestureThresholds,
                                _ emit: (Gesture) -> Void) throws(RecordingError) -> Span {
        var decoder = TouchDecoder(device: reader.header.device, screen: screen)
        var recognizer = GestureRecognizer(thresholds: thresholds)
        while let event = try reader.next() {
            for frame in decoder.feed(event) {
                recognizer.process(frame, emit)
            }
        }
        let span = Span(start: reader.firstEventTime ?? .zero, end: reader.lastEventTime ?? .zero)
        // Whatever came due before the recording ended (a long press still held).
        recognizer.advance(to: span.end, emit)
        return span
    }
}
