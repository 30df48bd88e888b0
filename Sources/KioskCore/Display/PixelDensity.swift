/// Pixel density: from a screen's reported physical size when the numbers are believable, and the
/// one rule that decides which density the kiosk uses.
public enum PixelDensity {
    /// About 13 to 1000 dpi: beyond that the EDID (or fbdev) is reporting nonsense, such as
    /// an aspect ratio (16x9) or a projector's "size".
    public static let believable: ClosedRange<Double> = 0.5...40

    /// Pixels per millimetre of a `pixels`-sized mode on a `mmWidth` x `mmHeight` screen; nil
    /// when a size is 0, a density is outside `believable` or the two axes disagree by more
    /// than a quarter (pixels are square on every panel the kiosk targets).
    public static func pxPerMM(pixels: PixelSize, mmWidth: Int, mmHeight: Int) -> Double? {
        guard mmWidth > 0, mmHeight > 0, pixels.width > 0, pixels.height > 0 else { return nil }
        let horizontal = Double(pixels.width) / Double(mmWidth)
        let vertical = Double(pixels.height) / Double(mmHeight)
        guard believable.contains(horizontal), believable.contains(vertical),
              max(horizontal, vertical) / min(horizontal, vertical) <= 1.25 else { return nil }
        return (horizontal + vertical) / 2
    }

    /// The density in use: `[display] px_per_mm` when set, else what the display reports, else
    /// `DisplaySettings.fallbackPxPerMM`.
    public static func resolve(configured: Double?, reported: Double? = nil) -> Double {
        configured ?? reported ?? DisplaySettings.fallbackPxPerMM
    }
}
