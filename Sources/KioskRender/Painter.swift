internal import CCairo
import KioskCore

/// Draws each kind of shape with cairo paths, at scale 1 and full opacity.
///
/// The sprite cache calls it once per sprite and the naive renderer on every frame, so both
/// draw the same pictures; all sizes derive from the shape's own pixel sizes, which the game
/// scaled from millimetres.
enum Painter {
    static let fullTurn = 2 * Double.pi

    // MARK: Setup

    static func setColor(_ cr: OpaquePointer, _ c: RGBColor, alpha: Double = 1) {
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
    }

    static func circle(_ cr: OpaquePointer, radius: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, 0, 0, max(radius, 0), 0, fullTurn)
    }

    /// Fills the current path with a gradient `pattern` through an image of it. Filled
    /// straight, cairo composites a gradient row by row through pixman's general path, and each
    /// of those calls clears 24 KB of scanline buffers (callgrind at 800x480: memset 28.7% of
    /// all instructions, 123,390 calls, from gradient fills); painted once into an image that
    /// then fills the path, the gradient costs one such call and the fill takes pixman's fast
    /// paths. The image covers the path's extents inside the clip, in device pixels, so the
    /// gradient is sampled at the same pixel centres.
    static func fillWithGradient(_ cr: OpaquePointer, _ pattern: OpaquePointer) {
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        cairo_save(cr)
        defer { cairo_restore(cr) }
        // Paths are kept in device space: with the identity matrix, extents are in pixels.
        cairo_identity_matrix(cr)
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_fill_extents(cr, &x0, &y0, &x1, &y1)
        var cx0 = 0.0, cy0 = 0.0, cx1 = 0.0, cy1 = 0.0
        cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1)
        let left = max(x0, cx0).rounded(.down), top = max(y0, cy0).rounded(.down)
        let right = min(x1, cx1).rounded(.up), bottom = min(y1, cy1).rounded(.up)
        guard left.isFinite, top.isFinite, right.isFinite, bottom.isFinite, right > left, bottom > top,
              right - left < 32768, bottom - top < 32768 else {
            cairo_new_path(cr)
            return
        }
        guard let image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(right - left), Int32(bottom - top)) else {
            cairo_new_path(cr)
            return
        }
        defer { cairo_surface_destroy(image) }
        if let g = cairo_create(image) {
            cairo_translate(g, -left, -top)
            cairo_transform(g, &m)
            cairo_set_source(g, pattern)
            cairo_set_operator(g, CAIRO_OPERATOR_SOURCE)
            cairo_paint(g)
            cairo_destroy(g)
        }
        cairo_surface_flush(image)
        cairo_set_source_surface(cr, image, left, top)
        cairo_fill(cr)
    }

    // MARK: Shapes

    /// Border width: about 3.5% of the diameter, like the seed's 3-point stroke on small bubbles.
    static func bubbleStroke(_ diameter: Double) -> Double { max(1.5, diameter * 0.035) }

    /// A bubble centred on the origin: a radial gradient from a light tint (upper left) to the
    /// colour, a soft highlight for gloss, a border inside the rim, then the content.
    static func bubble(_ cr: OpaquePointer, diameter d: Double, color: RGBColor, content: BubbleContent,
                       typesetter: Typesetter) {
        let r = d / 2
        let light = color.mixed(with: .white, amount: 0.65)
        // The seed's gradient: centred at 20% of the frame, from 5% of the size to the full size.
        let gx = -0.3 * d, gy = -0.3 * d
        if let fill = cairo_pattern_create_radial(gx, gy, 0.05 * d, gx, gy, d) {
            cairo_pattern_add_color_stop_rgb(fill, 0, light.r, light.g, light.b)
            cairo_pattern_add_color_stop_rgb(fill, 0.75, color.r, color.g, color.b)
            circle(cr, radius: r)
            fillWithGradient(cr, fill)
            cairo_pattern_destroy(fill)
        }
        if let gloss = cairo_pattern_create_radial(-0.2 * d, -0.22 * d, 0, -0.2 * d, -0.22 * d, 0.2 * d) {
            cairo_pattern_add_color_stop_rgba(gloss, 0, 1, 1, 1, 0.55)
            cairo_pattern_add_color_stop_rgba(gloss, 1, 1, 1, 1, 0)
            circle(cr, radius: r)
            fillWithGradient(cr, gloss)
            cairo_pattern_destroy(gloss)
        }
        let stroke = bubbleStroke(d)
        setColor(cr, color.mixed(with: .black, amount: 0.18))
        cairo_set_line_width(cr, stroke)
        circle(cr, radius: r - stroke / 2)
        cairo_stroke(cr)

        switch content {
        case .none:
            break
        case .taps(let n):
            digits(cr, "\(n)", size: 0.52 * d, shadowOffset: 0.025 * d, typesetter: typesetter)
        case .arrow(let degrees):
            arrow(cr, length: d, degrees: degrees)
        case .grip:
            grip(cr, diameter: d, drop: 0.025 * d, color: RGBColor.black.withAlpha(0.25))
            grip(cr, diameter: d, drop: 0, color: .white)
        }
    }

    /// A drag bubble's mark: a little basket (a handle over a body with two ridges), white.
    static func grip(_ cr: OpaquePointer, diameter d: Double, drop: Double, color: RGBColor) {
        cairo_save(cr)
        cairo_translate(cr, 0, drop)
        setColor(cr, color)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_width(cr, 0.05 * d)
        // The handle.
        cairo_new_path(cr)
        cairo_arc(cr, 0, -0.02 * d, 0.17 * d, Double.pi, 2 * Double.pi)
        cairo_stroke(cr)
        // The body: wider at the rim than at the base.
        cairo_new_path(cr)
        cairo_move_to(cr, -0.26 * d, -0.02 * d)
        cairo_line_to(cr, 0.26 * d, -0.02 * d)
        cairo_line_to(cr, 0.19 * d, 0.22 * d)
        cairo_line_to(cr, -0.19 * d, 0.22 * d)
        cairo_close_path(cr)
        cairo_stroke(cr)
        // Its weave.
        cairo_set_line_width(cr, 0.03 * d)
        for y in [0.06, 0.14] {
            let half = 0.26 - (y + 0.02) / 0.24 * 0.07
            cairo_move_to(cr, -half * d + 0.02 * d, y * d)
            cairo_line_to(cr, half * d - 0.02 * d, y * d)
        }
        cairo_stroke(cr)
        cairo_restore(cr)
    }

    /// A lifted bubble's shadow in frame coordinates: a dark disc fading out over `blur`
    /// on either side of its rim.
    static func shadow(_ cr: OpaquePointer, center c: Vector2, radius r: Double, blur: Double, opacity: Double) {
        let inner = max(0, r - blur), outer = r + blur
        guard let g = cairo_pattern_create_radial(c.x, c.y, inner, c.x, c.y, outer) else { return }
        cairo_pattern_add_color_stop_rgba(g, 0, 0, 0, 0.04, opacity)
        cairo_pattern_add_color_stop_rgba(g, 0.5, 0, 0, 0.04, opacity * 0.45)
        cairo_pattern_add_color_stop_rgba(g, 1, 0, 0, 0.04, 0)
        cairo_new_path(cr)
        cairo_arc(cr, c.x, c.y, outer, 0, fullTurn)
        fillWithGradient(cr, g)
        cairo_pattern_destroy(g)
    }

    /// The goal: a woven basket filling `rect` (frame coordinates), open at the top, with a rim;
    /// brighter while a carried bubble is over it.
    static func goal(_ cr: OpaquePointer, _ g: GoalShape) {
        let r = g.rect
        let wicker = RGBColor(hex: 0xC8_8A_3C)
        let rimColor = RGBColor(hex: 0xE8_B0_5C)
        let inset = r.width * 0.12, rim = max(3, r.height * 0.12), corner = r.height * 0.12
        // A soft glow behind it when a bubble is about to go in.
        if g.active {
            cairo_new_path(cr)
            cairo_rectangle(cr, r.x - 2, r.y - 2, r.width + 4, r.height + 4)
            cairo_set_source_rgba(cr, 1, 0.84, 0.04, 0.30)
            cairo_fill(cr)
        }
        // The body, narrowing to the bottom.
        cairo_new_path(cr)
        cairo_move_to(cr, r.x + 1, r.y + rim / 2)
        cairo_line_to(cr, r.maxX - 1, r.y + rim / 2)
        cairo_line_to(cr, r.maxX - inset, r.maxY - corner)
        cairo_curve_to(cr, r.maxX - inset, r.maxY, r.maxX - inset, r.maxY, r.maxX - inset - corner, r.maxY - 1)
        cairo_line_to(cr, r.x + inset + corner, r.maxY - 1)
        cairo_curve_to(cr, r.x + inset, r.maxY, r.x + inset, r.maxY, r.x + inset, r.maxY - corner)
        cairo_close_path(cr)
        setColor(cr, wicker.withAlpha(g.active ? 0.85 : 0.6))
        cairo_fill_preserve(cr)
        cairo_save(cr)
        cairo_clip(cr)
        // The weave: diagonal strands both ways.
        setColor(cr, wicker.mixed(with: .black, amount: 0.35).withAlpha(0.7))
        cairo_set_line_width(cr, max(1.5, r.height * 0.035))
        let step = max(6, r.height * 0.2)
        var x = r.x - r.height
        while x < r.maxX + r.height {
            cairo_move_to(cr, x, r.y)
            cairo_line_to(cr, x + r.height, r.maxY)
            cairo_move_to(cr, x + r.height, r.y)
            cairo_line_to(cr, x, r.maxY)
            x += step
        }
        cairo_stroke(cr)
        cairo_restore(cr)
        // The rim.
        cairo_new_path(cr)
        let half = Double.pi / 2
        cairo_arc(cr, r.maxX - rim / 2, r.y + rim / 2, rim / 2, -half, half)
        cairo_arc(cr, r.x + rim / 2, r.y + rim / 2, rim / 2, half, 3 * half)
        cairo_close_path(cr)
        setColor(cr, g.active ? RGBColor(hex: 0xFF_D6_0A) : rimColor)
        cairo_fill(cr)
    }

    /// White bold text centred on the origin by its ink, over a faint shadow for contrast.
    /// Western digits: the same in every language, so the bubble's sprite has none in its key.
    ///
    /// Laid out at one size and scaled: cairo still draws the glyphs at the bubble's size, but
    /// Pango keeps one font for all bubbles, where a font for each diameter (a screen of 400
    /// bubbles has dozens) held 0.8 MB of fonts, font sets and shaping caches.
    static func digits(_ cr: OpaquePointer, _ text: String, size: Double, shadowOffset: Double, typesetter: Typesetter) {
        let line = typesetter.layout(text, size: digitsLayoutSize, bold: true, language: "en")
        let x = -(line.ink.x + line.ink.width / 2), y = -(line.ink.y + line.ink.height / 2)
        cairo_save(cr)
        let scale = size / digitsLayoutSize
        cairo_scale(cr, scale, scale)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.25)
        line.show(cr, baselineAt: x + line.logical.x, y + line.baseline + shadowOffset / scale)
        cairo_set_source_rgb(cr, 1, 1, 1)
        line.show(cr, baselineAt: x + line.logical.x, y + line.baseline)
        cairo_restore(cr)
    }

    /// The size the digits are laid out at, before scaling to the bubble's.
    private static let digitsLayoutSize = 48.0

    /// A white arrow through the origin pointing at `degrees` (y down, so 90 points down).
    static func arrow(_ cr: OpaquePointer, length d: Double, degrees: Double) {
        // The shadow falls straight down whatever the rotation.
        arrowShape(cr, length: d, degrees: degrees, drop: 0.025 * d, color: RGBColor.black.withAlpha(0.25))
        arrowShape(cr, length: d, degrees: degrees, drop: 0, color: .white)
    }

    /// Shaft from the tail to the head's base, then the head; the stroke rounds the corners.
    private static func arrowShape(_ cr: OpaquePointer, length d: Double, degrees: Double, drop: Double, color: RGBColor) {
        let points: [(Double, Double)] = [
            (-0.27, -0.06), (0.02, -0.06), (0.02, -0.18), (0.28, 0),
            (0.02, 0.18), (0.02, 0.06), (-0.27, 0.06),
        ]
        cairo_save(cr)
        cairo_translate(cr, 0, drop)
        cairo_rotate(cr, degrees * Double.pi / 180)
        cairo_new_path(cr)
        for (i, p) in points.enumerated() {
            if i == 0 { cairo_move_to(cr, p.0 * d, p.1 * d) } else { cairo_line_to(cr, p.0 * d, p.1 * d) }
        }
        cairo_close_path(cr)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_width(cr, 0.035 * d)
        setColor(cr, color)
        cairo_fill_preserve(cr)
        cairo_stroke(cr)
        cairo_restore(cr)
    }

    /// A solid spark centred on the origin.
    static func particle(_ cr: OpaquePointer, radius: Double, color: RGBColor) {
        setColor(cr, color)
        circle(cr, radius: radius)
        cairo_fill(cr)
    }

    /// A translucent disc with a ring, all inside `radius`; ghost fingers get a dashed, fainter ring.
    static func finger(_ cr: OpaquePointer, radius: Double, ghost: Bool) {
        let ring = max(2, radius * 0.12)
        cairo_set_source_rgba(cr, 1, 1, 1, ghost ? 0.10 : 0.22)
        circle(cr, radius: radius)
        cairo_fill(cr)
        cairo_set_source_rgba(cr, 1, 1, 1, ghost ? 0.5 : 0.9)
        cairo_set_line_width(cr, ring)
        if ghost {
            var dashes = [radius * 0.35, radius * 0.2]
            cairo_set_dash(cr, &dashes, 2, 0)
        }
        circle(cr, radius: radius - ring / 2)
        cairo_stroke(cr)
        cairo_set_dash(cr, nil, 0, 0)
    }

    /// A capsule with its top-left corner at the origin and a centred white bold title.
    static func button(_ cr: OpaquePointer, width w: Double, height h: Double, title: String,
                       color: RGBColor, pressed: Bool, typesetter: Typesetter, language: String) {
        let r = h / 2
        let base = pressed ? color.mixed(with: .black, amount: 0.25) : color
        cairo_new_path(cr)
        cairo_arc(cr, r, r, r, Double.pi / 2, 3 * Double.pi / 2)
        cairo_arc(cr, max(w - r, r), r, r, -Double.pi / 2, Double.pi / 2)
        cairo_close_path(cr)
        // A faint top-to-bottom shade, so the capsule reads as a button and not a label.
        if let shade = cairo_pattern_create_linear(0, 0, 0, h) {
            let top = base.mixed(with: .white, amount: 0.18)
            cairo_pattern_add_color_stop_rgb(shade, 0, top.r, top.g, top.b)
            cairo_pattern_add_color_stop_rgb(shade, 1, base.r, base.g, base.b)
            cairo_set_source(cr, shade)
            cairo_fill(cr)
            cairo_pattern_destroy(shade)
        }
        // A title longer than the capsule's straight part and some of its ends ("Nochmal
        // spielen") is set smaller to fit, down to half size; translations vary in length.
        var line = typesetter.layout(title, size: 0.45 * h, bold: true, language: language)
        let room = max(w - 0.6 * h, 1)
        if line.advance > room {
            line = typesetter.layout(title, size: 0.45 * h * max(room / line.advance, 0.5), bold: true, language: language)
        }
        // Centre horizontally by advance and vertically by the fonts' ascent and descent, so
        // titles with and without descenders sit on the same line.
        cairo_set_source_rgb(cr, 1, 1, 1)
        line.show(cr, baselineAt: (w - line.advance) / 2, (h + line.ascent - line.descent) / 2)
    }

    /// Text with its baseline's left end at the origin.
    static func text(_ cr: OpaquePointer, _ line: TextLayout, color: RGBColor) {
        setColor(cr, color)
        line.show(cr, baselineAt: 0, 0)
    }

    // MARK: Whole shapes

    /// Draws any shape where the scene puts it, with paths (the naive renderer, and oversize
    /// items the sprite cache should not hold); text in the scene's `language`.
    static func shape(_ cr: OpaquePointer, _ shape: SceneShape, typesetter: Typesetter, language: String) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        switch shape {
        case .bubble(let b):
            guard b.opacity > 0, b.scale > 0 else { return }
            if b.opacity < 1 {
                // Else the group below is a whole-screen surface: 8 MB at 1080p, every frame.
                let r = b.bounds
                cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
                cairo_clip(cr)
            }
            if let s = b.shadow {
                shadow(cr, center: s.center, radius: s.radius, blur: s.blur, opacity: s.opacity)
            }
            cairo_translate(cr, b.center.x, b.center.y)
            cairo_scale(cr, b.drawnScale, b.drawnScale)
            withOpacity(cr, b.opacity) {
                bubble(cr, diameter: b.diameter, color: b.color, content: b.content, typesetter: typesetter)
            }
        case .particle(let p):
            guard p.opacity > 0 else { return }
            cairo_translate(cr, p.center.x, p.center.y)
            particle(cr, radius: p.radius, color: p.color.withAlpha(p.color.a * p.opacity))
        case .finger(let f):
            cairo_translate(cr, f.center.x, f.center.y)
            finger(cr, radius: f.radius, ghost: f.ghost)
        case .button(let b):
            cairo_translate(cr, b.rect.x, b.rect.y)
            button(cr, width: b.rect.width, height: b.rect.height, title: b.title,
                   color: b.color, pressed: b.pressed, typesetter: typesetter, language: language)
        case .text(let t):
            let line = typesetter.layout(t.string, size: t.sizePx, bold: t.bold, language: language)
            let shift: Double = switch t.alignment {
            case .left: 0
            case .center: line.advance / 2
            case .right: line.advance
            }
            cairo_translate(cr, t.position.x - shift, t.position.y)
            text(cr, line, color: t.color)
        case .panel(let p):
            panel(cr, p)
        case .goal(let g):
            goal(cr, g)
        case .polyline(let l):
            polyline(cr, l)
        case .cells(let c):
            cells(cr, c)
        case .image:
            break  // pictures are the scene renderer's (it holds them by name)
        }
    }

    /// Draws `body` at `opacity` as a whole (through a group), so overlapping parts do not
    /// show through each other.
    private static func withOpacity(_ cr: OpaquePointer, _ opacity: Double, _ body: () -> Void) {
        guard opacity < 1 else { return body() }
        cairo_push_group(cr)
        body()
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, opacity)
    }
}
