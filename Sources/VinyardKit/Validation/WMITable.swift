/// One World Manufacturer Identifier from the offline table (NHTSA vPIC plus a supplement).
public struct WMIEntry: Sendable, Hashable {
    /// The three-character WMI, or six characters (positions 1-3 and 12-14) for low-volume makers.
    public var code: String
    /// The manufacturer as vPIC names it, e.g. `American Honda Motor Co., Inc.`.
    public var manufacturer: String
    /// The makes sold under this WMI in canonical spelling, primary first (e.g. `["Honda"]`).
    public var makes: [String]
    /// The ISO 3166 alpha-2 country of the manufacturer, when known.
    public var countryCode: String?
    /// True for heavy-truck makers, to which the North American position-7 year rule does not apply.
    public var heavyTruck: Bool

    /// The primary make (brand) of this WMI.
    public var make: String { makes.first ?? manufacturer }
}

/// A vPIC VDS pattern that tells which make of a multi-brand WMI a VIN belongs to.
struct WMIMakeRule: Sendable {
    /// One set of allowed characters per descriptor position (positions 4-8, `|`, 10-17); nil = any.
    var classes: [[UInt8]?]
    var fromYear: Int
    var toYear: Int
    var make: String

    func matches(_ descriptor: [UInt8]) -> Bool {
        guard classes.count <= descriptor.count else { return false }
        for (i, allowed) in classes.enumerated() {
            if let allowed, !allowed.contains(descriptor[i]) { return false }
        }
        return true
    }
}

/// The lazily parsed WMI table (``WMIData``): parsed once, on first use, thread-safe.
enum WMITable {
    static let entries: [String: WMIEntry] = {
        var result: [String: WMIEntry] = [:]
        result.reserveCapacity(1200)
        for line in WMIData.table.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false)
            guard f.count >= 4 else { continue }
            let code = String(f[0])
            result[code] = WMIEntry(
                code: code, manufacturer: String(f[1]),
                makes: f[2].split(separator: ",").map(String.init),
                countryCode: f[3].isEmpty ? nil : String(f[3]),
                heavyTruck: f.count > 4 && f[4].contains("H"))
        }
        return result
    }()

    static let rules: [String: [WMIMakeRule]] = {
        var result: [String: [WMIMakeRule]] = [:]
        for line in WMIData.rules.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false)
            // WMI | pattern (may itself contain one `|`) | years | make
            guard f.count >= 4 else { continue }
            let wmi = String(f[0])
            let make = String(f[f.count - 1])
            let years = f[f.count - 2].split(separator: "-")
            let pattern = f[1..<(f.count - 2)].joined(separator: "|")
            guard years.count == 2, let y0 = Int(years[0]), let y1 = Int(years[1]),
                let classes = parsePattern(Array(pattern.utf8))
            else { continue }
            result[wmi, default: []].append(WMIMakeRule(classes: classes, fromYear: y0, toYear: y1, make: make))
        }
        return result
    }()

    /// Parses vPIC's restricted regular expressions: `.`, literals and `[...]` classes with ranges.
    static func parsePattern(_ p: [UInt8]) -> [[UInt8]?]? {
        var classes: [[UInt8]?] = []
        var i = 0
        while i < p.count {
            let c = p[i]
            if c == UInt8(ascii: ".") {
                classes.append(nil)
                i += 1
            } else if c == UInt8(ascii: "[") {
                var set: [UInt8] = []
                i += 1
                while i < p.count, p[i] != UInt8(ascii: "]") {
                    if i + 2 < p.count, p[i + 1] == UInt8(ascii: "-"), p[i + 2] != UInt8(ascii: "]"), p[i] <= p[i + 2] {
                        set.append(contentsOf: p[i]...p[i + 2])
                        i += 3
                    } else {
                        set.append(p[i])
                        i += 1
                    }
                }
                guard i < p.count else { return nil }
                classes.append(set)
                i += 1
            } else {
                classes.append([c])
                i += 1
            }
        }
        return classes
    }
}
