/// One metric family in Prometheus' text exposition format (version 0.0.4, what node_exporter's
/// textfile collector reads): a name, a HELP text, a TYPE, and its samples.
public struct MetricFamily: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge, summary, untyped
    }

    /// One line of the family: the family's name plus `suffix` (`""`, `_sum`, `_count`), labels, value.
    public struct Sample: Equatable, Sendable {
        public var suffix: String
        public var labels: [Label]
        public var value: Double

        public init(suffix: String = "", _ labels: [Label] = [], _ value: Double) {
            self.suffix = suffix
            self.labels = labels
            self.value = value
        }
    }

    public struct Label: Equatable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(_ name: String, _ kind: Kind, help: String, _ samples: [Sample]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.samples = samples
    }

    /// A summary from the latest samples (quantiles 0.5 and 0.95, nearest rank) and the all-time
    /// `count` and `sum`. With no samples the quantiles are NaN, as client libraries write them.
    public static func summary(_ name: String, help: String, recent: [Double], count: Int, sum: Double) -> MetricFamily {
        let timing = Timing(recent)
        let nan = Double.nan
        return MetricFamily(name, .summary, help: help, [
            Sample([Label("quantile", "0.5")], recent.isEmpty ? nan : timing.median),
            Sample([Label("quantile", "0.95")], recent.isEmpty ? nan : timing.p95),
            Sample(suffix: "_sum", [], sum),
            Sample(suffix: "_count", [], Double(count)),
        ])
    }
}

/// Prometheus' text exposition format, written by hand (no client library, no Foundation).
public enum PrometheusText {
    /// The families as one text: `# HELP`, `# TYPE`, then the samples, each line ending in LF.
    public static func render(_ families: [MetricFamily]) -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                out += family.name + sample.suffix
                if !sample.labels.isEmpty {
                    out += "{" + sample.labels.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }
                        .joined(separator: ",") + "}"
                }
                out += " " + format(sample.value) + "\n"
            }
        }
        return out
    }

    /// HELP text: backslash and line feed escaped.
    public static func escapeHelp(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A label value: backslash, double quote and line feed escaped.
    public static func escapeLabelValue(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A value as Go's ParseFloat reads it: whole numbers without a fraction, `NaN`, `+Inf`, `-Inf`.
    public static func format(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        return NumberText.trimmed(v)
    }

    /// Metric names: `[a-zA-Z_:][a-zA-Z0-9_:]*`; label names the same without colons.
    public static func isValidName(_ name: String, label: Bool = false) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool {
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || (!label && c == ":")
        }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ($0 >= "0" && $0 <= "9") }
    }
}
