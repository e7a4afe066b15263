/// A small direct-mapped memo of multi-brand makes, keyed by WMI, positions 4-8, 10 and 11 and the model
/// year (everything vPIC's make patterns look at). Bounded: 65536 slots (640 KB), no growth.
final class MakeCache {
    static let slots = 1 << 16
    /// Raw storage: no exclusivity checks or array bounds checks on the per-row path.
    private let keys: UnsafeMutablePointer<UInt64>
    private let values: UnsafeMutablePointer<Int16>

    /// What this cache keeps of each WMI entry it has met, by entry index: the compiled rule set
    /// (asking ``LazyRuleSets`` again takes a lock the other mapping workers share) and its own copy
    /// of the manufacturer name (every record holds its VIN's manufacturer, and the table's shared
    /// string would have its reference count updated by every mapping worker and the sink at once).
    private var entries: [EntryCopy?] = []

    private final class EntryCopy {
        let ruleSet: WMIRuleSet?
        let manufacturer: String

        init(_ entryIndex: Int, _ ix: WMITable.Index) {
            ruleSet = ix.ruleSets[entryIndex]
            // A copy with storage of its own (small names are stored inline anyway).
            manufacturer = String(decoding: Array(ix.list[entryIndex].manufacturer.utf8), as: UTF8.self)
        }
    }

    private func entry(_ entryIndex: Int, _ ix: WMITable.Index) -> EntryCopy {
        if entries.isEmpty { entries = Array(repeating: nil, count: ix.list.count) }
        guard entryIndex >= 0, entryIndex < entries.count else { return EntryCopy(entryIndex, ix) }
        if let copy = entries[entryIndex] { return copy }
        let copy = EntryCopy(entryIndex, ix)
        entries[entryIndex] = copy
        return copy
    }

    func manufacturer(_ entryIndex: Int, _ ix: WMITable.Index) -> String { entry(entryIndex, ix).manufacturer }

    init() {
        keys = .allocate(capacity: Self.slots)
        keys.initialize(repeating: .max, count: Self.slots)
        values = .allocate(capacity: Self.slots)
        values.initialize(repeating: -1, count: Self.slots)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// The make for a 17-character VIN whose entry is `entryIndex`; computed once per key.
    func make(_ b: UnsafeBufferPointer<UInt8>, entryIndex: Int, modelYear: Int?) -> String {
        let ix = WMITable.index
        // The entry's fields are read in place: copying the entry retains and releases its four
        // strings, which the other workers share.
        guard ix.list[entryIndex].makes.count > 1, b.count == 17, let set = entry(entryIndex, ix).ruleSet else {
            return ix.list[entryIndex].make
        }
        let primary = ix.list[entryIndex].make
        // Base-36 key of positions 1-8, 10, 11 (< 36^10 < 2^52), then 7 bits of model year. Low-volume
        // WMIs (six characters) also depend on positions 12-14: not cached.
        guard b[2] != UInt8(ascii: "9") else {
            return VINDecoder.makeIndex(b, set: set, modelYear: modelYear).map { set.makes[$0] } ?? primary
        }
        let code = WMITable.code
        var key: UInt64 = 0
        for i in 0..<11 where i != 8 {
            let c = code[Int(b[i])]
            if c >= 36 { return VINDecoder.makeIndex(b, set: set, modelYear: modelYear).map { set.makes[$0] } ?? primary }
            key = key &* 36 &+ UInt64(c)
        }
        let year = modelYear.map { UInt64(max(0, min(126, $0 - 1980))) } ?? 127
        key = key << 7 | year
        let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 48)
        if keys[slot] == key {
            let v = values[slot]
            return v < 0 ? primary : set.makes[Int(v)]
        }
        let pick = VINDecoder.makeIndex(b, set: set, modelYear: modelYear)
        keys[slot] = key
        values[slot] = pick.map { Int16($0) } ?? -1
        return pick.map { set.makes[$0] } ?? primary
    }
}

/// What an import row needs from its VIN: validity, findings and the decoded make, manufacturer, country
/// and model year. Built by ``VINChecker/check(_:currentYear:)``.
public struct VINCheck: Sendable, Hashable {
    /// True when no finding is an error.
    public var valid: Bool
    /// The `vin.*` findings, errors first (empty for a clean VIN).
    public var findings: [Finding]
    /// The make (brand), e.g. `Honda`.
    public var make: String?
    /// The manufacturer as NHTSA vPIC names it.
    public var manufacturer: String?
    /// The ISO 3780 country of positions 1-2 (or of the manufacturer).
    public var country: String?
    /// The single best model year.
    public var modelYear: Int?
    /// The position-10 code and the calendar year, for ``modelYears``.
    var yearCode: UInt8
    var currentYear: Int

    /// Candidate model years from position 10, ascending, none later than next year.
    public var modelYears: [Int] {
        yearCode == 0 ? [] : VINDecoder.modelYears(forCode: Character(Unicode.Scalar(yearCode)), currentYear: currentYear)
    }
}

/// A VIN engine with a per-caller memo of decoded makes: use one per thread (or per pipeline) to analyze
/// millions of VINs. Results are identical to ``VINEngine/analyze(_:currentYear:)``.
public struct VINChecker {
    private let cache = MakeCache()

    public init() {}

    /// ``VINEngine/analyze(_:currentYear:)`` with the make memo.
    public func analyze(_ raw: String, currentYear: Int = VINDecoder.currentCalendarYear) -> VINAnalysis {
        VINEngine.analyze(raw, currentYear: currentYear, makeCache: cache)
    }

    /// The lean check for an import row: the same findings, make, manufacturer, country and model years as
    /// ``analyze(_:currentYear:)``, without building the rest of the analysis for clean VINs.
    public func check(_ vin: String, currentYear: Int = VINDecoder.currentCalendarYear) -> VINCheck {
        let fast: VINCheck? = vin.withUTF8Bytes { b -> VINCheck? in
            guard VINEngine.isClean(b), let entryIndex = WMITable.lookupIndex(b) else { return nil }
            let ix = WMITable.index
            let country = ix.plantCountryNames[entryIndex] ?? VINCountries.fastCountry(b[0], b[1]) ?? ix.countryNames[entryIndex]
            var year: Int?
            let noYear = VINDecoder.positionTenIsNoYear(b)
            if !noYear, let base = VINDecoder.yearBase(b[9]), base <= currentYear + 1 {
                let latest = base + (currentYear + 1 - base) / 30 * 30
                year = VINDecoder.bestYear(b, latest: latest, candidates: nil, heavy: ix.list[entryIndex].noPosition7Rule)
            }
            let make = cache.make(b, entryIndex: entryIndex, modelYear: year)
            return VINCheck(
                valid: true, findings: [], make: make, manufacturer: cache.manufacturer(entryIndex, ix), country: country,
                modelYear: year, yearCode: noYear ? 0 : b[9], currentYear: currentYear)
        }
        if let fast { return fast }
        let a = analyze(vin, currentYear: currentYear)
        let bytes = Array(a.normalized.utf8)
        return VINCheck(
            valid: a.valid, findings: a.findings, make: a.make, manufacturer: a.manufacturer, country: a.country,
            modelYear: a.modelYear,
            // A placeholder, or a number in scientific notation, has no model years (nothing is
            // decoded from it).
            yearCode: bytes.count == 17 && !a.findings.contains(where: { $0.code == .vinPlaceholder })
                && !VINEngine.isScientificNotation(bytes) && !VINDecoder.positionTenIsNoYear(bytes) ? bytes[9] : 0,
            currentYear: currentYear)
    }
}
