/// What the joystick mode adds to a round's scene, and the start screen's mode buttons.
enum JoystickScene {
    static let baseColor = RGBColor(hex: 0x0A_84_FF, alpha: 0.35)
    static let knobColor = RGBColor(hex: 0x30_D1_58, alpha: 0.9)
    static let catcherColor = RGBColor(hex: 0xFF_D6_0A, alpha: 0.85)

    /// A disc: a panel whose corners are rounded all the way.
    static func disc(_ center: Vector2, radius r: Double, color: RGBColor) -> SceneShape {
        .panel(PanelShape(rect: Rect(x: center.x - r, y: center.y - r, width: 2 * r, height: 2 * r),
                          color: color, cornerRadius: r))
    }

    /// The catcher (a yellow disc with a dark core), the base, the knob and the readout
    /// (angle and distance, above the base). Drawn over the bubbles.
    static func items(_ play: JoystickPlay, field: PlayField) -> [SceneItem] {
        let stick = play.stick
        let r = play.catcherRadius
        var items = [
            SceneItem(id: .ui("catcher"), shape: disc(play.catcher, radius: r, color: catcherColor)),
            SceneItem(id: .ui("catcher-core"), shape: disc(play.catcher, radius: r * 0.55,
                                                            color: RGBColor(hex: 0x14_1F_33, alpha: 0.8))),
            SceneItem(id: .ui("joystick-base"), shape: disc(stick.base, radius: stick.radius, color: baseColor)),
            SceneItem(id: .ui("joystick-knob"), shape: disc(stick.knob, radius: stick.knobRadius, color: knobColor)),
        ]
        let above = stick.base.y - stick.radius - field.px(2.5)
        let y = above - field.px(5) < field.area.y ? stick.base.y + stick.radius + field.px(7) : above
        items.append(SceneItem(id: .ui("joystick-readout"), shape: .text(TextShape(
            position: Vector2(stick.base.x, y), string: stick.readout, sizePx: field.px(5),
            color: .white, alignment: .center, bold: true))))
        return items
    }

    /// One large button per offered mode.
    static func modeButtons(_ buttons: [(mode: Round.Mode, rect: Rect)], words: MessageCatalogue,
                            accent: RGBColor) -> [SceneItem] {
        buttons.map { b in
            let color: RGBColor = switch b.mode {
            case .classic: accent
            case .timed: RGBColor(hex: 0xFF_6B_0A)
            case .joystick: RGBColor(hex: 0x28_A7_45)
            }
            return SceneItem(id: .ui("button-\(b.mode.rawValue)"),
                             shape: .button(ButtonShape(rect: b.rect, title: title(b.mode, words), color: color)))
        }
    }

    static func title(_ mode: Round.Mode, _ words: MessageCatalogue) -> String {
        switch mode {
        case .classic: words.text(.modeClassic)
        case .timed: words.text(.modeTimed)
        case .joystick: words.text(.modeJoystick)
        }
    }
}
