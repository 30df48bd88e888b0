/// The kiosk's version: the `VERSION` file's, which packages carry (a test keeps them equal).
public enum KioskVersion {
    public static let current = "0.2.0"
}
