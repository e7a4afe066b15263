import Synchronization

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
    /// True for makers of heavy trucks, buses, trailers, incomplete chassis and motorcycles (flag `H`), to
    /// which the North American position-7 model-year rule does not apply.
    public var noPosition7Rule: Bool
    @available(*, deprecated, renamed: "noPosition7Rule")
    public var heavyTruck: Bool { noPosition7Rule }
    /// True when ``countryCode`` is the plant's country and wins over the ISO 3780 range of the
    /// WMI's first two characters (flag `P`: a code assigned outside its country's legacy range,
    /// such as Tesla Grünheide's XP7, or GM Uzbekistan's XWB in the old USSR range).
    public var plantCountry: Bool = false

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
    var rules: [CompiledMakeRule] { didSet { flatten() } }
    /// The distinct makes the rules name.
    var makes: [String]
    /// The rules of at most ``flatWidth`` positions, for the per-row match: `flatWidth` masks per
    /// rule, padded with masks that match anything. Bit 63 is never set in a real mask, so a
    /// character outside the code table (clamped to 63) fails where the rule looks and passes
    /// where it does not.
    private(set) var flatMasks: [UInt64] = []
    /// Per flattened rule: from year, to year, make index, weight (the pattern's length).
    private(set) var flatRules: [(fromYear: Int, toYear: Int, make: Int, weight: Int)] = []
    /// The flattened rules by the code of position 4 they allow (64 buckets: codes 0-35, and 63
    /// for a character outside the table), each in rule order. Most rules name position 4, so a
    /// VIN is matched against about a tenth of them (makeIndex: 4.7k → see Benchmarks/README.md).
    private(set) var byFirstCode: [[Int32]] = []
    static let flatWidth = 14

    init(rules: [CompiledMakeRule], makes: [String]) {
        self.rules = rules
        self.makes = makes
        flatten()
    }

    private mutating func flatten() {
        flatMasks.removeAll()
        flatRules.removeAll()
        for rule in rules where rule.masks.count <= Self.flatWidth {
            for m in rule.masks { flatMasks.append(m & ~(1 << 63)) }
            for _ in rule.masks.count..<Self.flatWidth { flatMasks.append(~0) }
            flatRules.append((rule.fromYear, rule.toYear, rule.make, rule.masks.count))
        }
        byFirstCode = Array(repeating: [], count: 64)
        for r in flatRules.indices {
            let first = flatMasks[r * Self.flatWidth]
            for c in 0..<64 where (first >> UInt64(c)) & 1 != 0 { byFirstCode[c].append(Int32(r)) }
        }
    }
}

/// The compiled make rules by entry position in ``WMITable/Index/list``, each compiled on first
/// use (thread-safe): a run pays only for the multi-brand WMIs its VINs use.
final class LazyRuleSets: Sendable {
    /// Byte ranges of each entry's lines in ``WMIData/rules``; empty for none.
    private let ranges: [[Range<Int>]]
    /// nil: not compiled yet; `.some(nil)`: no rules.
    private let sets: Mutex<[WMIRuleSet??]>

    init(ranges: [[Range<Int>]]) {
        self.ranges = ranges
        sets = Mutex([WMIRuleSet??](repeating: nil, count: ranges.count))
    }

    subscript(_ entryIndex: Int) -> WMIRuleSet? {
        guard entryIndex >= 0, entryIndex < ranges.count, !ranges[entryIndex].isEmpty else { return nil }
        return sets.withLock { sets -> WMIRuleSet? in
            if let done = sets[entryIndex] { return done }
            let set = WMITable.compileRules(ranges[entryIndex])
            sets[entryIndex] = .some(set)
            return set
        }
    }
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
        // A byte scan (String.split over Characters costs ~40 ms here, paid by every run).
        forEachLine(WMIData.table) { line in
            // `WMI|manufacturer|makes|country|flags`: the positions of the bars, plus the end.
            var bars: [Int] = []
            for i in line.indices where line[i] == UInt8(ascii: "|") { bars.append(i) }
            guard bars.count >= 3 else { return }
            bars.append(line.count)
            func text(_ from: Int, _ to: Int) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: line[from..<to]), as: UTF8.self)
            }
            let code = text(0, bars[0])
            var makes: [String] = []
            var start = bars[1] + 1
            for i in start...bars[2] where i == bars[2] || line[i] == UInt8(ascii: ",") {
                if i > start { makes.append(text(start, i)) }
                start = i + 1
            }
            let flags = bars.count > 4 ? UnsafeBufferPointer(rebasing: line[(bars[3] + 1)..<bars[4]]) : UnsafeBufferPointer(rebasing: line[0..<0])
            result[code] = WMIEntry(
                code: code, manufacturer: text(bars[0] + 1, bars[1]), makes: makes,
                countryCode: bars[3] > bars[2] + 1 ? text(bars[2] + 1, bars[3]) : nil,
                noPosition7Rule: flags.contains(UInt8(ascii: "H")), plantCountry: flags.contains(UInt8(ascii: "P")))
        }
        return result
    }()

    /// Calls `body` with each non-empty line of `text` (split at `\n`).
    private static func forEachLine(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.withUTF8 { forEachLine($0, body) }
    }

    private static func forEachLine(_ all: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        for i in 0...all.count where i == all.count || all[i] == 0x0A {
            if i > start { body(UnsafeBufferPointer(rebasing: all[start..<i])) }
            start = i + 1
        }
    }

    /// Integer-keyed view of ``entries``: `list` holds the entries, `three` maps a three-character WMI
    /// (base-36 index, see ``index3(_:_:_:)``) to its position in `list` + 1 (0 = none), `six` the
    /// six-character ones (``key6(_:)``), `ruleSets` the compiled make rules by position in `list`.
    /// A class, so that reading it from the global costs one retain; mutated only while being built.
    final class Index: @unchecked Sendable {
        var list: [WMIEntry] = []
        var three: [Int16] = []
        var six: [UInt64: Int16] = [:]
        /// By ``index3(_:_:_:)``: a three-character WMI ending in `9` that also has six-character
        /// entries. Its code is shared by low-volume makers told apart by positions 12-14, so an
        /// unlisted maker is unknown, not the one the three-character entry names (`VF9…999…` is
        /// no Bugatti).
        var shared: [Bool] = []
        var ruleSets = LazyRuleSets(ranges: [])
        /// The ISO country name of each entry's country code.
        var countryNames: [String?] = []
        /// The country name of each entry whose country wins over the ISO 3780 range
        /// (``WMIEntry/plantCountry``), else nil.
        var plantCountryNames: [String?] = []
    }

    static let index: Index = {
        let ix = Index()
        ix.three = [Int16](repeating: 0, count: 36 * 36 * 36)
        ix.shared = [Bool](repeating: false, count: 36 * 36 * 36)
        let ranges = ruleRanges()
        var entryRanges: [[Range<Int>]] = []
        for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let b = Array(key.utf8)
            ix.list.append(entry)
            ix.countryNames.append(entry.countryCode.flatMap { VINCountries.isoNames[$0] })
            ix.plantCountryNames.append(entry.plantCountry ? ix.countryNames[ix.countryNames.count - 1] : nil)
            let position = Int16(ix.list.count)
            if b.count == 3, let i = index3(b[0], b[1], b[2]) {
                ix.three[i] = position
            } else if b.count == 6, let k = b.withUnsafeBufferPointer({ key6($0) }) {
                ix.six[k] = position
                if let i = index3(b[0], b[1], b[2]) { ix.shared[i] = true }
            }
            entryRanges.append(entry.makes.count > 1 ? ranges[key] ?? [] : [])
        }
        ix.ruleSets = LazyRuleSets(ranges: entryRanges)
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
    /// (position 3 is `9`), else the three-character one, unless makers share that code
    /// (``Index/shared``).
    @inline(__always)
    static func lookupIndex(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard b.count >= 3 else { return nil }
        let ix = index
        guard let i = index3(b[0], b[1], b[2]) else { return nil }
        if b.count >= 14 && b[2] == UInt8(ascii: "9") {
            let k = (UInt64(b[0]) << 40) | (UInt64(b[1]) << 32) | (UInt64(b[2]) << 24) | (UInt64(b[11]) << 16)
                | (UInt64(b[12]) << 8) | UInt64(b[13])
            if let p = ix.six[k] { return Int(p) - 1 }
            if ix.shared[i] { return nil }
        }
        let p = ix.three[i]
        return p == 0 ? nil : Int(p) - 1
    }

    /// Where each WMI's lines lie in ``WMIData/rules`` (byte ranges; the file is sorted by WMI, so
    /// usually one range). One pass over the bytes: the rules themselves are compiled per WMI on
    /// first use (``LazyRuleSets``), so a run pays only for the multi-brand WMIs it meets.
    static func ruleRanges() -> [String: [Range<Int>]] {
        var result: [String: [Range<Int>]] = [:]
        var rules = WMIData.rules
        rules.withUTF8 { all in
            var groupStart = 0, groupEnd = 0
            var groupWMI = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            func flush() {
                if groupEnd > groupStart { result[String(decoding: groupWMI, as: UTF8.self), default: []].append(groupStart..<groupEnd) }
            }
            var start = 0
            for i in 0...all.count where i == all.count || all[i] == 0x0A {
                defer { start = i + 1 }
                guard i > start else { continue }
                let line = UnsafeBufferPointer(rebasing: all[start..<i])
                let wmi = UnsafeBufferPointer(rebasing: line[..<(line.firstIndex(of: UInt8(ascii: "|")) ?? line.count)])
                if !wmi.elementsEqual(groupWMI) {
                    flush()
                    groupWMI = wmi
                    groupStart = start
                }
                groupEnd = i
            }
            flush()
        }
        return result
    }

    /// Compiles the rule lines in `ranges` of ``WMIData/rules`` (one WMI's): the same rule set as
    /// compiling ``rules`` for it (makes in order of first appearance, rules in file order); nil
    /// when no line parses.
    static func compileRules(_ ranges: [Range<Int>]) -> WMIRuleSet? {
        var set = WMIRuleSet(rules: [], makes: [])
        var compiled: [CompiledMakeRule] = []
        var masks: [UInt64] = []
        var rules = WMIData.rules
        rules.withUTF8 { all in
            for range in ranges where range.lowerBound >= 0 && range.upperBound <= all.count {
                forEachLine(UnsafeBufferPointer(rebasing: all[range])) { line in
                    // WMI | pattern (may itself contain one `|`) | years | make
                    guard let first = line.firstIndex(of: UInt8(ascii: "|")),
                        let last = line.lastIndex(of: UInt8(ascii: "|")), last > first,
                        let yearsBar = line[..<last].lastIndex(of: UInt8(ascii: "|")), yearsBar > first,
                        let (y0, y1) = parseYears(UnsafeBufferPointer(rebasing: line[(yearsBar + 1)..<last])),
                        compilePattern(UnsafeBufferPointer(rebasing: line[(first + 1)..<yearsBar]), into: &masks)
                    else { return }
                    let make = UnsafeBufferPointer(rebasing: line[(last + 1)...])
                    let m: Int
                    if let i = set.makes.firstIndex(where: { $0.utf8.elementsEqual(make) }) {
                        m = i
                    } else {
                        set.makes.append(String(decoding: make, as: UTF8.self))
                        m = set.makes.count - 1
                    }
                    compiled.append(CompiledMakeRule(masks: masks, fromYear: y0, toYear: y1, make: m))
                }
            }
        }
        set.rules = compiled
        return set.rules.isEmpty ? nil : set
    }

    /// Every WMI's compiled rule set (for tests and tools; a run compiles lazily).
    static func compiledRuleSets() -> [String: WMIRuleSet] {
        ruleRanges().compactMapValues(compileRules)
    }

    /// `from-to`, both decimal.
    private static func parseYears(_ b: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        guard let dash = b.firstIndex(of: UInt8(ascii: "-")), dash > 0, dash <= 6, dash + 1 < b.count, dash + 8 > b.count else {
            return nil
        }
        var a = 0, z = 0
        for c in b[..<dash] {
            guard c >= 0x30, c <= 0x39 else { return nil }
            a = a * 10 + Int(c - 0x30)
        }
        for c in b[(dash + 1)...] {
            guard c >= 0x30, c <= 0x39 else { return nil }
            z = z * 10 + Int(c - 0x30)
        }
        return (a, z)
    }

    /// ``parsePattern(_:)`` compiled to one bit mask per position over ``code`` (`~0` for `.`);
    /// false for an unterminated class.
    private static func compilePattern(_ p: UnsafeBufferPointer<UInt8>, into masks: inout [UInt64]) -> Bool {
        masks.removeAll(keepingCapacity: true)
        let code = self.code
        func bit(_ c: UInt8) -> UInt64 { code[Int(c)] == 255 ? 0 : 1 << UInt64(code[Int(c)]) }
        var i = 0
        while i < p.count {
            let c = p[i]
            if c == UInt8(ascii: ".") {
                masks.append(~0)
                i += 1
            } else if c == UInt8(ascii: "[") {
                var mask: UInt64 = 0
                i += 1
                while i < p.count, p[i] != UInt8(ascii: "]") {
                    if i + 2 < p.count, p[i + 1] == UInt8(ascii: "-"), p[i + 2] != UInt8(ascii: "]"), p[i] <= p[i + 2] {
                        for x in p[i]...p[i + 2] { mask |= bit(x) }
                        i += 3
                    } else {
                        mask |= bit(p[i])
                        i += 1
                    }
                }
                guard i < p.count else { return false }
                masks.append(mask)
                i += 1
            } else {
                masks.append(bit(c))
                i += 1
            }
        }
        return true
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
