internal import CCairo
internal import CPango
import KioskCore
import Synchronization

/// Lays text out with Pango: HarfBuzz shapes every script (Arabic joined and right to left,
/// Devanagari conjuncts, Thai marks) and fontconfig finds a font for what DejaVu Sans lacks.
///
/// Pango is not thread-safe: a typesetter is used on the thread that made it (its owner's, a
/// renderer's), with that thread's font map (Pango keeps one a thread), so the renderers of one
/// thread share their fonts and what fontconfig found for them.
final class Typesetter {
    /// Found through fontconfig (Debian fonts-dejavu-core); characters it lacks come from the
    /// Noto fonts the package recommends, whatever fontconfig picks for the language.
    static let fontFamily = "DejaVu Sans"

    /// Told once per character for the whole process when no installed font has it (the
    /// character is then drawn as a box with its code in it).
    var onMissingGlyph: (String) -> Void = { _ in }

    private let context: OpaquePointer
    private var language = ""

    init() {
        context = pango_font_map_create_context(pango_cairo_font_map_get_default())
        // Grey antialiasing and no metric hinting: text looks the same on every machine,
        // whatever the local fontconfig prefers, which keeps golden images stable.
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            pango_cairo_context_set_font_options(context, options)
            cairo_font_options_destroy(options)
        }
        // Glyphs at their exact (fractional) advances, as cairo placed them before Pango.
        pango_context_set_round_glyph_positions(context, 0)
        use(language: "en")
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(context))
    }

    /// `string` in one line, `size` pixels to the em, shaped for `language` (a tag such as
    /// "de", "ar" or "zh-cn": it picks the fallback fonts and language-specific forms).
    func layout(_ string: String, size: Double, bold: Bool, language: String) -> TextLayout {
        use(language: language)
        let layout = pango_layout_new(context)!
        let font = pango_font_description_new()
        pango_font_description_set_family(font, Self.fontFamily)
        pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_font_description_set_absolute_size(font, max(size, 0) * Double(CPango_scale()))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_text(layout, string, -1)
        if pango_layout_get_unknown_glyphs_count(layout) > 0 { reportMissingGlyphs(layout) }
        return TextLayout(layout)
    }

    private func use(language tag: String) {
        guard tag != language else { return }
        language = tag
        pango_context_set_language(context, pango_language_from_string(tag))
    }

    // MARK: Missing glyphs

    /// Characters already reported, for the whole process.
    private static let reported = Mutex<Set<UInt32>>([])

    /// Reports each character of `layout` no font had, with the font that stood in for it.
    private func reportMissingGlyphs(_ layout: OpaquePointer) {
        let unknown = CPango_glyph_unknown_flag()
        var lines = pango_layout_get_lines_readonly(layout)
        while let node = lines {
            lines = node.pointee.next
            guard let line = node.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) else { continue }
            var runs = line.pointee.runs
            while let run = runs {
                runs = run.pointee.next
                guard let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee else { continue }
                let glyphs = item.glyphs.pointee
                for i in 0..<Int(glyphs.num_glyphs) where glyphs.glyphs[i].glyph & unknown != 0 {
                    let code = glyphs.glyphs[i].glyph & ~unknown
                    guard Self.reported.withLock({ $0.insert(code).inserted }) else { continue }
                    onMissingGlyph(Self.missingGlyphLine(code, font: item.item.pointee.analysis.font))
                }
            }
        }
    }

    /// `text: no installed font has U+E000 "" (font DejaVu Sans Bold); it is drawn as a box`.
    private static func missingGlyphLine(_ code: UInt32, font: UnsafeMutablePointer<PangoFont>?) -> String {
        let hex = String(code, radix: 16, uppercase: true)
        let codePoint = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let character = Unicode.Scalar(code).map { String(Character($0)) } ?? "?"
        var fontName = "no font"
        if let font, let description = pango_font_describe(font) {
            // The size is the text's, not the font's: leave it out.
            pango_font_description_unset_fields(description, PANGO_FONT_MASK_SIZE)
            if let name = pango_font_description_to_string(description) {
                fontName = String(cString: name)
                g_free(name)
            }
            pango_font_description_free(description)
        }
        return "text: no installed font has \(codePoint) \"\(character)\" (font \(fontName)); it is drawn as a box"
    }
}

/// One line of text laid out by a `Typesetter`; its extents are in pixels, relative to the
/// layout's top-left corner.
final class TextLayout {
    private let layout: OpaquePointer
    /// The pixels glyphs cover.
    let ink: Rect
    /// The line's box: its advance across, the fonts' ascent and descent down.
    let logical: Rect
    /// From the top of the line's box to its baseline.
    let baseline: Double

    fileprivate init(_ layout: OpaquePointer) {
        self.layout = layout
        var inkRect = PangoRectangle(), logicalRect = PangoRectangle()
        pango_layout_get_extents(layout, &inkRect, &logicalRect)
        let scale = Double(CPango_scale())
        func rect(_ r: PangoRectangle) -> Rect {
            Rect(x: Double(r.x) / scale, y: Double(r.y) / scale, width: Double(r.width) / scale, height: Double(r.height) / scale)
        }
        ink = rect(inkRect)
        logical = rect(logicalRect)
        baseline = Double(pango_layout_get_baseline(layout)) / scale
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// The advance: how far the next text would start.
    var advance: Double { logical.width }
    /// The fonts' ascent and descent on this line.
    var ascent: Double { baseline - logical.y }
    var descent: Double { logical.maxY - baseline }

    /// Draws the line in the source colour with its baseline's start (the logical box's left
    /// end, whatever the direction) at (x, y).
    func show(_ cr: OpaquePointer, baselineAt x: Double, _ y: Double) {
        cairo_move_to(cr, x - logical.x, y - baseline)
        pango_cairo_show_layout(cr, layout)
    }
}
