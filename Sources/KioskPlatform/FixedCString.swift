/// The text of a fixed-size, NUL-padded C char array: a struct field such as
/// `fb_fix_screeninfo.id` or `drm_mode_property.name`, which Swift imports as a tuple.
public func fixedCString<Field>(_ field: Field) -> String {
    withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
