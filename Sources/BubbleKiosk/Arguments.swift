import KioskCore

/// A command-line mistake: the caller prints the usage line and exits 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Minimal option parser: `--name value`, `--name=value`, `--flag` and positionals.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - valued: options that take a value (without `--`).
    ///   - flags: options that take none.
    init(_ args: ArraySlice<String>, valued: Set<String>, flags allowedFlags: Set<String>) throws {
        var it = args.makeIterator()
        while let arg = it.next() {
            if arg == "--" {
                while let rest = it.next() { positionals.append(rest) }
                break
            }
            guard arg.hasPrefix("--") else {
                positionals.append(arg)
                continue
            }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if valued.contains(name) {
                guard let value = inlineValue ?? it.next() else {
                    throw UsageError("option --\(echoed(name)) needs a value")
                }
                options[name] = value
            } else if allowedFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                throw UsageError("unknown option --\(echoed(name))")
            }
        }
    }

    func value(_ name: String) -> String? { options[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func size(_ name: String = "size") throws -> PixelSize? {
        guard let text = options[name] else { return nil }
        guard let size = PixelSize(parsing: text) else {
            throw UsageError("--\(name) expects WxH such as 1280x800, each side at most \(PixelSize.maximumSide), got '\(echoed(text))'")
        }
        return size
    }

    func requiredSize(_ name: String = "size") throws -> PixelSize {
        guard let s = try size(name) else { throw UsageError("--\(name) WxH is required") }
        return s
    }

    func seed() throws -> UInt64? {
        guard let text = options["seed"] else { return nil }
        if let v = UInt64(text) { return v }
        if let v = Int64(text) { return UInt64(bitPattern: v) }
        throw UsageError("--seed expects an integer, got '\(echoed(text))'")
    }

    func requiredSeed() throws -> UInt64 {
        guard let s = try seed() else { throw UsageError("--seed N is required") }
        return s
    }

    func int(_ name: String, default def: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return def }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("--\(name) expects a whole number in \(range.lowerBound)...\(range.upperBound), got '\(echoed(text))'")
        }
        return v
    }
}
