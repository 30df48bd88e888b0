/// Angle arithmetic in plain Swift.
///
/// The core has no C imports, and its own trigonometry also makes replays bit-for-bit the same on
/// every machine, whichever libm it has.
public enum Angle {
    static let pi = 3.141592653589793

    /// `atan2(y, x)` in degrees, in (-180, 180].
    public static func degrees(atan2 y: Double, _ x: Double) -> Double {
        if x == 0 && y == 0 { return 0 }
        var d = radiansAtan2(y, x) * 180 / pi
        if d <= -180 { d += 360 }
        if d > 180 { d -= 360 }
        return d
    }

    /// Smallest absolute difference between two directions, in [0, 180].
    public static func difference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        return d > 180 ? 360 - d : d
    }

    /// Normalises any angle in degrees into (-180, 180].
    public static func normalized(_ a: Double) -> Double {
        var d = a.truncatingRemainder(dividingBy: 360)
        if d <= -180 { d += 360 }
        if d > 180 { d -= 360 }
        return d
    }

    /// The unit vector pointing at `degrees` (screen coordinates, y down).
    public static func unitVector(degrees: Double) -> Vector2 {
        let r = degrees * pi / 180
        return Vector2(cos(r), sin(r))
    }

    static func radiansAtan2(_ y: Double, _ x: Double) -> Double {
        if x > 0 { return atan(y / x) }
        if x < 0 { return y >= 0 ? atan(y / x) + pi : atan(y / x) - pi }
        return y > 0 ? pi / 2 : -pi / 2
    }

    /// Arctangent by argument reduction to |t| <= tan(pi/12) and a short odd series.
    static func atan(_ v: Double) -> Double {
        if v < 0 { return -atan(-v) }
        if v > 1 { return pi / 2 - atan(1 / v) }
        // tan(pi/12) = 2 - sqrt(3); shift by pi/6 to reach the small range.
        let tan15 = 0.2679491924311227
        if v > tan15 {
            let sqrt3 = 1.7320508075688772
            return pi / 6 + atan((v * sqrt3 - 1) / (sqrt3 + v))
        }
        let v2 = v * v
        var term = v
        var sum = v
        var n = 1.0
        // |v| <= 0.268: 14 terms reach double precision.
        for _ in 0..<14 {
            term *= -v2
            n += 2
            sum += term / n
        }
        return sum
    }

    /// Sine by reduction to [-pi, pi] and a Taylor series (enough terms for double precision).
    static func sin(_ r: Double) -> Double {
        var x = r.truncatingRemainder(dividingBy: 2 * pi)
        if x > pi { x -= 2 * pi }
        if x < -pi { x += 2 * pi }
        let x2 = x * x
        var term = x
        var sum = x
        var k = 1.0
        for _ in 0..<16 {
            term *= -x2 / ((k + 1) * (k + 2))
            k += 2
            sum += term
        }
        return sum
    }

    static func cos(_ r: Double) -> Double { sin(r + pi / 2) }
}
