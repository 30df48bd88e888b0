/// Every string the kiosk shows on screen, by the key an operator overrides it with in
/// `[text]` (`play_again = ...`). The English text is the gettext `msgid` of `po/*.po`;
/// `{name}` marks where a number goes, and translations keep the same marks.
public enum UIMessage: String, CaseIterable, Sendable, Hashable {
    case title, start
    case hintChoose = "hint_choose", hintTap = "hint_tap", hintDrag = "hint_drag", hintJoystick = "hint_joystick"
    case modeClassic = "mode_classic", modeTimed = "mode_timed", modeJoystick = "mode_joystick"
    case today, allTime = "all_time"
    case score, demo
    case roundOver = "round_over", playAgain = "play_again", newHighScore = "new_high_score"
    case comboBonus = "combo_bonus", timeBonus = "time_bonus", bonusSeparator = "bonus_separator"
    case touchTest = "touch_test", touchTestCloses = "touch_test_closes", noTouchscreen = "no_touchscreen"
    case contactsDown = "contacts_down", heatmapTouches = "heatmap_touches", gestures
    case gestureTap = "gesture_tap", gestureLongPress = "gesture_long_press", gestureSwipe = "gesture_swipe"
    case gestureDragEnd = "gesture_drag_end", gestureCancelled = "gesture_cancelled"

    /// The English text, and the catalogues' msgid.
    public var english: String {
        switch self {
        case .title: "Bubble Pop"
        case .start: "Start"
        case .hintChoose: "Choose how to play."
        case .hintTap: "Tap the numbers. Swipe the arrows."
        case .hintDrag: "Tap the numbers. Swipe the arrows. Drag to the basket."
        case .hintJoystick: "Steer the catcher with the joystick."
        case .modeClassic: "Classic"
        case .modeTimed: "Timed"
        case .modeJoystick: "Joystick"
        case .today: "Today"
        case .allTime: "All time"
        case .score: "Score {score}"
        case .demo: "Demo - touch to play"
        case .roundOver: "Round over!"
        case .playAgain: "Play again"
        case .newHighScore: "New high score! #{rank}"
        case .comboBonus: "combos +{points}"
        case .timeBonus: "time bonus +{points}"
        case .bonusSeparator: ", "
        case .touchTest: "Touch test: touch anywhere"
        case .touchTestCloses: "closes after {seconds} s without a touch"
        case .noTouchscreen: "no touchscreen"
        case .contactsDown: "contacts down: {count}"
        case .heatmapTouches: "heatmap: {count} touches since start"
        case .gestures: "Gestures"
        case .gestureTap: "tap x{count}"
        case .gestureLongPress: "long press"
        case .gestureSwipe: "swipe"
        case .gestureDragEnd: "drag end"
        case .gestureCancelled: "cancelled"
        }
    }

    /// What a translator or operator reads beside the text (a `#.` comment in the catalogues).
    public var context: String {
        switch self {
        case .title: "The game's name, large on the start screen ([branding] title replaces it)"
        case .start: "The button that starts a round"
        case .hintChoose, .hintTap, .hintDrag, .hintJoystick: "A line under the title on the start screen"
        case .modeClassic, .modeTimed, .modeJoystick: "A button on the start screen that starts that kind of round"
        case .today, .allTime: "Heading of a high-score list"
        case .score: "The score, in the bar at the top and on the round-over screen"
        case .demo: "In the top bar while the game plays itself"
        case .roundOver: "Title of the screen after a round"
        case .playAgain: "The button on the round-over screen"
        case .newHighScore: "Under the button after a round that made the list; {rank} is its place"
        case .comboBonus, .timeBonus: "Points added at the end of a round"
        case .bonusSeparator: "Between the two bonuses on one line"
        case .touchTest, .touchTestCloses, .noTouchscreen, .contactsDown, .heatmapTouches, .gestures:
            "The operator's touch-test screen"
        case .gestureTap, .gestureLongPress, .gestureSwipe, .gestureDragEnd, .gestureCancelled:
            "A gesture's label on the operator's touch-test screen"
        }
    }

    /// The `{name}` marks in `text`, in order.
    public static func placeholders(in text: String) -> [String] {
        var names: [String] = [], current: String? = nil
        for c in text {
            if c == "{" { current = "" } else if c == "}", let name = current {
                names.append(name)
                current = nil
            } else if current != nil { current!.append(c) }
        }
        return names
    }

    /// The problem with `text` as this message's wording (a mark it does not have), or nil.
    public func wordingProblem(_ text: String) -> String? {
        let allowed = Self.placeholders(in: english)
        let unknown = Self.placeholders(in: text).filter { !allowed.contains($0) }
        guard let first = unknown.first else { return nil }
        return allowed.isEmpty ? "text without {...} marks (found {\(first)})"
            : "text whose marks are among " + allowed.map { "{\($0)}" }.joined(separator: ", ") + " (found {\(first)})"
    }
}
