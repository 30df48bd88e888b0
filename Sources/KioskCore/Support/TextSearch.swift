extension StringProtocol {
    /// Whether `part` occurs in this text, compared as UTF-8 bytes (an empty `part` always does).
    /// The standard library's `contains(_:)` for strings lives in _StringProcessing, which the
    /// product's modules do without (Package.swift says why).
    public func containsText<Part: StringProtocol>(_ part: Part) -> Bool {
        let needle = Array(part.utf8)
        guard let first = needle.first else { return true }
        let text = Array(utf8)
        guard text.count >= needle.count else { return false }
        for start in 0...(text.count - needle.count) where text[start] == first {
            if text[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}
