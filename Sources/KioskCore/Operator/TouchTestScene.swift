/// Draws the touch-test screen from a `TouchTestModel`: a millimetre grid with the gesture
/// recogniser's edge margin, the heatmap since start under it, the devices, every contact with
/// its labels and the lines through it, trails, and the recent gestures where they happened.
///
/// Sizes come from millimetres (labels are 4.5 mm tall), so it reads the same on every panel.
public enum TouchTestScene {
    /// Grid lines every 10 mm, stronger every 50 mm.
    public static let gridMM = 10.0
    public static let majorEvery = 5

    static let background = RGBColor(hex: 0x0B_12_20)
    static let gridColor = RGBColor(hex: 0x3A_4A_66, alpha: 0.6)
    static let majorColor = RGBColor(hex: 0x6B_7F_A3, alpha: 0.8)
    static let marginColor = RGBColor(hex: 0xFF_9F_0A)
    static let textColor = RGBColor(hex: 0xE6_EC_F5)
    static let dimText = RGBColor(hex: 0xA8_B4_C8)
    static let stuckColor = RGBColor(hex: 0xFF_2D_55)
    static let gestureColor = RGBColor(hex: 0xFF_D6_0A)
    /// Contacts take the bubble colours by slot; stuck ones are red whatever their slot.
    static let contactPalette: [RGBColor] = [
        RGBColor(hex: 0x30_D1_58), RGBColor(hex: 0x0A_84_FF), RGBColor(hex: 0xBF_5A_F2), RGBColor(hex: 0x1F_B5_CF),
        RGBColor(hex: 0xFF_9F_0A), RGBColor(hex: 0x5E_5C_E6), RGBColor(hex: 0xFF_D6_0A), RGBColor(hex: 0x64_D2_FF),
    ]

    /// The colour of contact `slot`, or the stuck colour.
    public static func color(slot: Int, stuck: Bool) -> RGBColor {
        stuck ? stuckColor : contactPalette[((slot % contactPalette.count) + contactPalette.count) % contactPalette.count]
    }

    /// The screen at `time`; `heatmap` (touch-downs since start) is drawn under the grid.
    /// `timeout` is said in the header. Its words are `words`' (the numbers and technical
    /// labels stay as `gestures` prints them, for the operator comparing the two).
    public static func scene(_ model: TouchTestModel, heatmap: TouchHeatmap? = nil, timeout: Duration? = nil,
                             words: MessageCatalogue = .english, at time: TimeStamp) -> Scene {
        var b = Builder(size: model.screen, pxPerMM: model.pxPerMM, words: words)
        if let heatmap, !heatmap.isEmpty { b.heatmap(heatmap) }
        b.grid(edgeMargin: model.edgeMargin)
        b.header(model, heatmap: heatmap, timeout: timeout)
        for t in model.recentTrails(at: time) {
            b.add("tt-trail-\(t.device)-\(t.trackingID)", .polyline(PolylineShape(
                points: t.points.map(\.position), color: color(slot: t.slot, stuck: false).withAlpha(0.8), width: b.px(1.2))))
        }
        let gestures = model.gestures
        for (i, g) in gestures.enumerated() {
            // A double tap's second tap replaces its first on the screen (the list keeps both).
            let superseded = g.kind == .tap && gestures[(i + 1)...].contains {
                $0.kind == .tap && $0.device == g.device && $0.count > g.count && $0.position.distance(to: g.position) <= b.px(16)
            }
            if !superseded { b.gesture(g, index: i, strength: TouchTestModel.strength(of: g, at: time)) }
        }
        for c in model.contacts { b.contact(c) }
        b.gestureList(model.gestures, at: time)
        var scene = Scene(size: model.screen, pxPerMM: model.pxPerMM, background: background, items: b.items)
        scene.language = words.language.tag
        return scene
    }

    /// The heatmap alone on a screen of `size` (the `touch-heatmap` command's picture): the map,
    /// the grid, a title and the colour scale.
    public static func heatmapScene(_ heatmap: TouchHeatmap, size: PixelSize, pxPerMM: Double, title: String) -> Scene {
        var b = Builder(size: size, pxPerMM: pxPerMM)
        b.heatmap(heatmap)
        b.cellGrid()
        b.panelText("title", [title, heatmap.isEmpty ? "no touches recorded"
                              : "\(heatmap.total) touches, at most \(heatmap.maximum) in one cell (\(TouchHeatmap.columns)x\(TouchHeatmap.rows) cells)"],
                    at: Vector2(b.px(4), b.px(4)))
        b.legend(maximum: heatmap.maximum)
        return Scene(size: size, pxPerMM: pxPerMM, background: background, items: b.items)
    }

    /// Collects items; all sizes in millimetres through `px`.
    struct Builder {
        let size: PixelSize
        let pxPerMM: Double
        var words = MessageCatalogue.english
        var items: [SceneItem] = []
        var width: Double { Double(size.width) }
        var height: Double { Double(size.height) }
        /// Label text height.
        var textPx: Double { max(px(4.5), 12) }
        var line: Double { textPx * 1.3 }

        init(size: PixelSize, pxPerMM: Double, words: MessageCatalogue = .english) {
            self.size = size
            self.pxPerMM = pxPerMM
            self.words = words
        }

        func px(_ mm: Double) -> Double { mm * pxPerMM }

        mutating func add(_ name: String, _ shape: SceneShape) {
            items.append(SceneItem(id: .ui(name), shape: shape))
        }

        mutating func text(_ name: String, _ s: String, at p: Vector2, color: RGBColor = TouchTestScene.textColor,
                           align: TextAlignment = .left, bold: Bool = false, scale: Double = 1) {
            add(name, .text(TextShape(position: p, string: s, sizePx: textPx * scale, color: color, alignment: align, bold: bold)))
        }

        mutating func heatmap(_ h: TouchHeatmap) {
            add("tt-heatmap", .cells(CellGridShape(rect: Rect(x: 0, y: 0, width: width, height: height),
                                                   columns: TouchHeatmap.columns, rows: TouchHeatmap.rows,
                                                   values: h.intensities, opacity: 0.55)))
        }

        /// Millimetre grid lines, the screen's border and the edge margin.
        mutating func grid(edgeMargin: Double) {
            let step = px(TouchTestScene.gridMM)
            guard step >= 4 else { return }
            var i = 1
            while Double(i) * step < width {
                let x = Double(i) * step
                let major = i % TouchTestScene.majorEvery == 0
                add("tt-grid-x\(i)", .polyline(PolylineShape(points: [Vector2(x, 0), Vector2(x, height)],
                                                             color: major ? majorColor : gridColor, width: major ? 1.5 : 1)))
                if major { text("tt-grid-x\(i)-mm", "\(i * Int(TouchTestScene.gridMM)) mm", at: Vector2(x + 3, height - px(2)),
                                color: dimText, scale: 0.7) }
                i += 1
            }
            i = 1
            while Double(i) * step < height {
                let y = Double(i) * step
                let major = i % TouchTestScene.majorEvery == 0
                add("tt-grid-y\(i)", .polyline(PolylineShape(points: [Vector2(0, y), Vector2(width, y)],
                                                             color: major ? majorColor : gridColor, width: major ? 1.5 : 1)))
                if major { text("tt-grid-y\(i)-mm", "\(i * Int(TouchTestScene.gridMM)) mm", at: Vector2(width - px(2), y - 3),
                                color: dimText, align: .right, scale: 0.7) }
                i += 1
            }
            add("tt-border", .polyline(PolylineShape(points: corners(inset: 1), color: .white.withAlpha(0.7), width: 2, closed: true)))
            if edgeMargin > 1 {
                add("tt-margin", .polyline(PolylineShape(points: corners(inset: edgeMargin), color: marginColor.withAlpha(0.9),
                                                         width: 1.5, closed: true)))
            }
        }

        /// The heatmap's own cells, as thin lines (the command's picture).
        mutating func cellGrid() {
            for c in 1..<TouchHeatmap.columns {
                let x = width * Double(c) / Double(TouchHeatmap.columns)
                add("hm-x\(c)", .polyline(PolylineShape(points: [Vector2(x, 0), Vector2(x, height)], color: gridColor, width: 1)))
            }
            for r in 1..<TouchHeatmap.rows {
                let y = height * Double(r) / Double(TouchHeatmap.rows)
                add("hm-y\(r)", .polyline(PolylineShape(points: [Vector2(0, y), Vector2(width, y)], color: gridColor, width: 1)))
            }
        }

        func corners(inset d: Double) -> [Vector2] {
            [Vector2(d, d), Vector2(width - d, d), Vector2(width - d, height - d), Vector2(d, height - d)]
        }

        /// Lines of text on a translucent panel with its top left at `origin`.
        mutating func panelText(_ name: String, _ lines: [String], at origin: Vector2, bold first: Bool = true) {
            let longest = lines.map { TextShape(position: .zero, string: $0, sizePx: textPx).estimatedWidth }.max() ?? 0
            let w = min(longest * 0.72 + px(4), width - origin.x - px(2))
            add("\(name)-panel", .panel(PanelShape(rect: Rect(x: origin.x, y: origin.y, width: max(w, 0),
                                                              height: line * Double(lines.count) + px(3)),
                                                   color: RGBColor.black.withAlpha(0.6), cornerRadius: px(1.5))))
            for (i, s) in lines.enumerated() {
                text("\(name)-\(i)", s, at: Vector2(origin.x + px(2), origin.y + px(1.5) + line * (Double(i) + 0.8)),
                     color: i == 0 ? .white : textColor, bold: first && i == 0)
            }
        }

        mutating func header(_ m: TouchTestModel, heatmap: TouchHeatmap?, timeout: Duration?) {
            let native = m.transform.native
            let density = NumberText.decimal(m.pxPerMM, places: 1)
            var lines = [words.text(.touchTest) + (timeout.map { "; " + words.text(.touchTestCloses, ["seconds": Int($0.inSeconds.rounded())]) } ?? ""),
                         "game \(m.screen)  panel \(native)  rotation \(m.transform.rotation)°  \(density) px/mm  "
                             + "grid \(Int(TouchTestScene.gridMM)) mm  edge margin \(Int((m.edgeMargin / m.pxPerMM).rounded())) mm"]
            if m.transform.calibration != TouchTransform.identityMatrix {
                lines.append("calibration " + m.transform.calibration.map { NumberText.decimal($0, places: 3) }.joined(separator: " "))
            }
            lines += m.devices.isEmpty ? [words.text(.noTouchscreen)] : m.devices.map(\.summary)
            var status = words.text(.contactsDown, ["count": m.contacts.count])
            if let heatmap { status += "; " + words.text(.heatmapTouches, ["count": heatmap.total]) }
            lines.append(status)
            panelText("tt-header", lines, at: Vector2(px(4), px(4)))
        }

        /// A contact: lines through it across the screen, a ring, a dot, and its labels beside it.
        mutating func contact(_ c: TouchTestModel.Contact) {
            let id = "tt-contact-\(c.device)-\(c.slot)"
            let color = TouchTestScene.color(slot: c.slot, stuck: c.stuck)
            let p = c.game
            add("\(id)-h", .polyline(PolylineShape(points: [Vector2(0, p.y), Vector2(width, p.y)], color: color.withAlpha(0.45), width: 1)))
            add("\(id)-v", .polyline(PolylineShape(points: [Vector2(p.x, 0), Vector2(p.x, height)], color: color.withAlpha(0.45), width: 1)))
            let r = px(7)
            let ring = (0..<48).map { i in p + Angle.unitVector(degrees: Double(i) * 7.5) * r }
            add("\(id)-ring", .polyline(PolylineShape(points: ring, color: color, width: px(0.8), closed: true)))
            add("\(id)-dot", .particle(ParticleShape(center: p, radius: px(1.2), color: color)))
            var lines = ["dev \(c.device)  slot \(c.slot)  id \(c.trackingID)" + (c.stuck ? "  STUCK" : ""),
                         "game \(Self.point(c.game))",
                         "panel \(Self.point(c.panel))"]
            if let pressure = c.pressure { lines.append("pressure \(pressure)") }
            // Beside the ring, on whichever side keeps the labels on the screen.
            let blockWidth = px(52), blockHeight = line * Double(lines.count)
            let right = p.x + r + px(2) + blockWidth <= width
            let below = p.y + r + blockHeight <= height
            let x = right ? p.x + r + px(2) : p.x - r - px(2)
            let top = below ? p.y + r * 0.3 : p.y - r * 0.3 - blockHeight
            for (i, s) in lines.enumerated() {
                text("\(id)-label\(i)", s, at: Vector2(x, top + line * (Double(i) + 0.8)), color: i == 0 ? color : textColor,
                     align: right ? .left : .right, bold: i == 0)
            }
        }

        /// A gesture where it happened: a ring for taps and long presses, an arrow for swipes.
        mutating func gesture(_ g: Gesture, index: Int, strength: Double) {
            guard strength > 0 else { return }
            let id = "tt-gesture-\(g.device)-\(g.slot)-\(g.time.microseconds)-\(g.kind.rawValue)"
            let color = gestureColor.withAlpha(strength)
            switch g.kind {
            case .tap, .longPress:
                let r = px(g.kind == .tap ? 4 + 1.5 * Double(min(g.count, 5)) : 10)
                let ring = (0..<36).map { i in g.position + Angle.unitVector(degrees: Double(i) * 10) * r }
                add("\(id)-ring", .polyline(PolylineShape(points: ring, color: color, width: px(g.kind == .tap ? 0.6 : 1.2), closed: true)))
                text("\(id)-label", g.kind == .tap ? words.text(.gestureTap, ["count": g.count]) : words.text(.gestureLongPress), at: g.position + Vector2(0, -r - px(1.5)),
                     color: color, align: .center, bold: true)
            case .swipe:
                let head = px(5)
                let back = Angle.unitVector(degrees: g.angleDegrees + 180)
                let left = g.position + rotate(back, by: 28) * head, rightWing = g.position + rotate(back, by: -28) * head
                add("\(id)-shaft", .polyline(PolylineShape(points: [g.start, g.position], color: color, width: px(1.2))))
                add("\(id)-head", .polyline(PolylineShape(points: [left, g.position, rightWing], color: color, width: px(1.2))))
                text("\(id)-label", Self.swipeLabel(g, pxPerMM: pxPerMM), at: (g.start + g.position) / 2 + Vector2(0, -px(2.5)),
                     color: color, align: .center, bold: true)
            case .dragEnd, .cancel:
                text("\(id)-label", words.text(g.kind == .cancel ? .gestureCancelled : .gestureDragEnd), at: g.position + Vector2(0, -px(4)),
                     color: color, align: .center)
            case .dragStart, .dragMove:
                break
            }
        }

        func rotate(_ v: Vector2, by degrees: Double) -> Vector2 {
            let u = Angle.unitVector(degrees: degrees)
            return Vector2(v.x * u.x - v.y * u.y, v.x * u.y + v.y * u.x)
        }

        /// The recent gestures, newest first, in a panel at the bottom left.
        mutating func gestureList(_ gestures: [Gesture], at time: TimeStamp) {
            guard !gestures.isEmpty else { return }
            let lines = [words.text(.gestures)] + gestures.reversed().map { g in
                let what: String = switch g.kind {
                case .tap: words.text(.gestureTap, ["count": g.count])
                case .longPress: words.text(.gestureLongPress)
                case .swipe: words.text(.gestureSwipe) + " " + Self.swipeLabel(g, pxPerMM: pxPerMM)
                case .dragEnd: words.text(.gestureDragEnd)
                case .cancel: words.text(.gestureCancelled)
                case .dragStart, .dragMove: g.kind.rawValue
                }
                return "\(what) at \(Self.point(g.position))  dev \(g.device) slot \(g.slot)"
            }
            panelText("tt-gestures", lines, at: Vector2(px(4), height - px(6) - line * Double(lines.count) - px(3)))
        }

        /// `45° 310 mm/s`: the swipe's direction (screen coordinates, y down, as `gestures`
        /// prints it) and its speed at the lift.
        static func swipeLabel(_ g: Gesture, pxPerMM: Double) -> String {
            "\(Int(g.angleDegrees.rounded()))° \(Int((g.speed / pxPerMM).rounded())) mm/s"
        }

        static func point(_ p: Vector2) -> String { "\(Int(p.x.rounded())), \(Int(p.y.rounded()))" }

        /// The colour scale under the heatmap: the ramp from 1 touch to the busiest cell's count.
        mutating func legend(maximum: Int) {
            let w = min(px(60), width * 0.4), h = px(4)
            let x0 = width - w - px(4), y0 = height - h - px(6)
            let n = 16
            add("hm-legend-panel", .panel(PanelShape(rect: Rect(x: x0 - px(2), y: y0 - line - px(1), width: w + px(4), height: h + line + px(3)),
                                                     color: RGBColor.black.withAlpha(0.6), cornerRadius: px(1))))
            add("hm-legend", .cells(CellGridShape(rect: Rect(x: x0, y: y0, width: w, height: h), columns: n, rows: 1,
                                                  values: (0..<n).map { max(0.08, Double($0 + 1) / Double(n)) }, opacity: 1)))
            text("hm-legend-low", "1", at: Vector2(x0, y0 - px(1.5)), color: textColor, scale: 0.8)
            text("hm-legend-high", "\(max(maximum, 1))", at: Vector2(x0 + w, y0 - px(1.5)), color: textColor, align: .right, scale: 0.8)
        }
    }
}
