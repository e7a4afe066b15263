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

/// A make rule compiled for fast matching: one bit mask per descriptor position over ``WMITable/code``.
struct CompiledMakeRule: Sendable {
    /// Bit `code` set when that character is allowed; `~0` matches anything.
    var masks: [UInt64]
    var fromYear: Int
    var toYear: Int
    /// Index into ``WMIRuleSet/makes``.
    var make: Int
}

/// The compiled make rules of one multi-brand WMI.
struct WMIRuleSet: Sendable {
    var rules: [CompiledMakeRule]
    /// The distinct makes the rules name.
    var makes: [String]
}

/// The lazily parsed WMI table (``WMIData``): parsed once, on first use, thread-safe.
enum WMITable {
    /// 0-9 → 0-9, A-Z → 10-35, `|` → 36; 255 for anything else.
    static let code: [UInt8] = {
        var t = [UInt8](repeating: 255, count: 256)
        for d in 0..<10 { t[48 + d] = UInt8(d) }
        for l in 0..<26 { t[65 + l] = UInt8(10 + l) }
        t[Int(UInt8(ascii: "|"))] = 36
        return t
    }()

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

    /// Integer-keyed view of ``entries``: `list` holds the entries, `three` maps a three-character WMI
    /// (base-36 index, see ``index3(_:_:_:)``) to its position in `list` + 1 (0 = none), `six` the
    /// six-character ones (``key6(_:)``), `ruleSets` the compiled make rules by position in `list`.
    /// A class, so that reading it from the global costs one retain; mutated only while being built.
    final class Index: @unchecked Sendable {
        var list: [WMIEntry] = []
        var three: [Int16] = []
        var six: [UInt64: Int16] = [:]
        var ruleSets: [WMIRuleSet?] = []
        /// The ISO country name of each entry's country code.
        var countryNames: [String?] = []
    }

    static let index: Index = {
        let ix = Index()
        ix.three = [Int16](repeating: 0, count: 36 * 36 * 36)
        for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let b = Array(key.utf8)
            ix.list.append(entry)
            ix.countryNames.append(entry.countryCode.flatMap { VINCountries.isoNames[$0] })
            let position = Int16(ix.list.count)
            if b.count == 3, let i = index3(b[0], b[1], b[2]) {
                ix.three[i] = position
            } else if b.count == 6, let k = b.withUnsafeBufferPointer({ key6($0) }) {
                ix.six[k] = position
            }
            if entry.makes.count > 1, let rules = WMITable.rules[key] {
                var makes: [String] = []
                var compiled: [CompiledMakeRule] = []
                for rule in rules {
                    let m: Int
                    if let i = makes.firstIndex(of: rule.make) { m = i } else { makes.append(rule.make); m = makes.count - 1 }
                    let masks = rule.classes.map { allowed -> UInt64 in
                        guard let allowed else { return ~0 }
                        var mask: UInt64 = 0
                        for c in allowed where code[Int(c)] != 255 { mask |= 1 << UInt64(code[Int(c)]) }
                        return mask
                    }
                    compiled.append(CompiledMakeRule(masks: masks, fromYear: rule.fromYear, toYear: rule.toYear, make: m))
                }
                ix.ruleSets.append(WMIRuleSet(rules: compiled, makes: makes))
            } else {
                ix.ruleSets.append(nil)
            }
        }
        return ix
    }()

    /// The base-36 index of three characters, or nil when one is not 0-9/A-Z.
    @inline(__always)
    static func index3(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int? {
        let x = code[Int(a)], y = code[Int(b)], z = code[Int(c)]
        guard x < 36, y < 36, z < 36 else { return nil }
        return (Int(x) * 36 + Int(y)) * 36 + Int(z)
    }

    /// The key of a six-character WMI (the bytes packed big-endian), or nil when not 6 bytes.
    @inline(__always)
    static func key6(_ b: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard b.count == 6 else { return nil }
        var k: UInt64 = 0
        for x in b { k = k << 8 | UInt64(x) }
        return k
    }

    /// The position in ``Index/list`` of a VIN's WMI entry: the six-character key for low-volume makers
    /// (position 3 is `9`), else the three-character one.
    @inline(__always)
    static func lookupIndex(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard b.count >= 3 else { return nil }
        let ix = index
        if b.count >= 14 && b[2] == UInt8(ascii: "9") {
            let k = (UInt64(b[0]) << 40) | (UInt64(b[1]) << 32) | (UInt64(b[2]) << 24) | (UInt64(b[11]) << 16)
                | (UInt64(b[12]) << 8) | UInt64(b[13])
            if let p = ix.six[k] { return Int(p) - 1 }
        }
        guard let i = index3(b[0], b[1], b[2]) else { return nil }
        let p = ix.three[i]
        return p == 0 ? nil : Int(p) - 1
    }

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
