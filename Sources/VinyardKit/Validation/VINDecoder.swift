import Foundation

/// Offline decoding of VIN parts: region, country, WMI manufacturer and make, model years, plant and
/// serial; and the make cross-check.
public enum VINDecoder {
    /// The current calendar year (UTC), the default for "never later than next year".
    public static var currentCalendarYear: Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.component(.year, from: Date())
    }

    /// The ISO 3780 region of a VIN's first character.
    public static func region(forFirstCharacter c: Character) -> String? {
        c.asciiValue.flatMap(region(forFirstByte:))
    }

    /// The manufacturer code as a message names it: positions 1-3, and 12-14 after them for a
    /// small maker's code (position 3 is 9).
    static func manufacturerCode<C: RandomAccessCollection>(_ b: C) -> String where C.Element == UInt8, C.Index == Int {
        let small = b.count == 17 && b[b.startIndex + 2] == UInt8(ascii: "9")
        let n = small ? 6 : min(3, b.count)
        // In place, no array: the make cross-check names the code for its cache on every row.
        return String(unsafeUninitializedCapacity: n) { out in
            for k in 0..<n { out[k] = b[b.startIndex + (k < 3 ? k : k + 8)] }
            return n
        }
    }

    /// True where the check digit is mandatory: North America (1-5, and 7, assigned to the US) and
    /// China (L, and H since SAE assigned it to China). For an array or a buffer of the VIN's bytes.
    @inline(__always)
    static func checkDigitMandatory<C: Collection>(_ b: C) -> Bool where C.Element == UInt8 {
        guard let first = b.first else { return false }
        if first == UInt8(ascii: "7") {
            // Not New Zealand's 7A-7E.
            guard let second = b.dropFirst().first else { return true }
            return !(second >= UInt8(ascii: "A") && second <= UInt8(ascii: "E"))
        }
        return (first >= UInt8(ascii: "1") && first <= UInt8(ascii: "5")) || isChinese(first)
    }

    /// A first character assigned to China: L, and H (SAE's newer allocation).
    @inline(__always)
    static func isChinese(_ first: UInt8) -> Bool { first == UInt8(ascii: "L") || first == UInt8(ascii: "H") }

    /// Japanese (J) and Korean (KL-KR) VINs: their makers compute the check digit for the North
    /// American market, where it is mandatory, and a VIN of theirs seen with a wrong one is more
    /// likely mistyped than one whose digit was never computed (as on many European VINs).
    static func computesCheckDigitForExport<C: RandomAccessCollection>(_ b: C) -> Bool
    where C.Element == UInt8, C.Index == Int {
        guard b.count > 1 else { return false }
        let first = b[b.startIndex], second = b[b.startIndex + 1]
        return first == UInt8(ascii: "J") || (first == UInt8(ascii: "K") && VINCountries.fastCountry(first, second) == "South Korea")
    }

    /// Where the model-year code at position 10 is mandatory: the same regions as the check digit.
    static func yearCodeMandatory(_ b: [UInt8]) -> Bool { checkDigitMandatory(b) }

    /// Mercedes-Benz's European-market VINs (WDB, WDD, W1K, …) carry the model series as digits at
    /// positions 4-6 (`WDD2050081F654321`, a C-Class 205) and no model year: position 10 is the
    /// steering side (a digit, 1 or 2), position 9 part of the model code (a check digit that holds
    /// does so by chance, one VIN in 11). Their US-market VINs have letters there
    /// (`WDDGF8AB2DR123456`) and a model year. Such a VIN decodes no model year, and the declared
    /// one is not checked against it; a letter at position 10 is still read as a year.
    @inline(__always)
    static func positionTenIsNoYear<C: RandomAccessCollection>(_ b: C) -> Bool where C.Element == UInt8, C.Index == Int {
        guard b.count == 17 else { return false }
        let s = b.startIndex
        func digit(_ i: Int) -> Bool { b[s + i] >= UInt8(ascii: "0") && b[s + i] <= UInt8(ascii: "9") }
        guard b[s] == UInt8(ascii: "W"), digit(3), digit(4), digit(5), digit(9) else { return false }
        switch (b[s + 1], b[s + 2]) {
        case (UInt8(ascii: "D"), UInt8(ascii: "B")), (UInt8(ascii: "D"), UInt8(ascii: "C")), (UInt8(ascii: "D"), UInt8(ascii: "D")),
            (UInt8(ascii: "D"), UInt8(ascii: "F")), (UInt8(ascii: "D"), UInt8(ascii: "3")), (UInt8(ascii: "D"), UInt8(ascii: "4")),
            (UInt8(ascii: "1"), UInt8(ascii: "K")), (UInt8(ascii: "1"), UInt8(ascii: "N")), (UInt8(ascii: "1"), UInt8(ascii: "T")),
            (UInt8(ascii: "1"), UInt8(ascii: "V")), (UInt8(ascii: "1"), UInt8(ascii: "W")), (UInt8(ascii: "1"), UInt8(ascii: "Y")),
            (UInt8(ascii: "M"), UInt8(ascii: "X")):
            return true
        default:
            return false
        }
    }

    /// The first year (1980-2009 cycle) a position-10 code stands for; nil for codes never used
    /// (I, O, Q, U, Z, 0).
    static func yearBase(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "H"): 1980 + Int(c - UInt8(ascii: "A"))
        case UInt8(ascii: "J")...UInt8(ascii: "N"): 1988 + Int(c - UInt8(ascii: "J"))
        case UInt8(ascii: "P"): 1993
        case UInt8(ascii: "R")...UInt8(ascii: "T"): 1994 + Int(c - UInt8(ascii: "R"))
        case UInt8(ascii: "V")...UInt8(ascii: "Y"): 1997 + Int(c - UInt8(ascii: "V"))
        case UInt8(ascii: "1")...UInt8(ascii: "9"): 2001 + Int(c - UInt8(ascii: "1"))
        default: nil
        }
    }

    /// The candidate model years for a position-10 code, ascending, from 1980 up to `currentYear + 1`.
    public static func modelYears(forCode code: Character, currentYear: Int = currentCalendarYear) -> [Int] {
        guard let ascii = code.asciiValue, let base = yearBase(ascii) else { return [] }
        var years: [Int] = []
        var year = base
        while year <= currentYear + 1 {
            years.append(year)
            year += 30
        }
        return years
    }

    /// The best model year for a 17-character VIN: for North American cars, MPVs and light trucks the
    /// position-7 rule (a digit means 1980-2009, a letter 2010-2039); otherwise, or when that rule
    /// gives a year after next year, the latest candidate not later than next year.
    public static func modelYear(for vin: String, currentYear: Int = currentCalendarYear) -> Int? {
        let b = Array(VINEngine.normalize(vin).utf8)
        guard b.count == 17 else { return nil }
        let entry = lookup(b)
        // An unknown maker code: no rule (in North America mostly trailer, RV and other low-volume
        // makers, whose position 7 is no year mark; `7XJBB3236TS001714`, a 2026 trailer, read 1996).
        return bestYear(b, candidates: modelYears(b, currentYear), heavy: entry?.noPosition7Rule ?? true)
    }

    static func modelYears(_ b: [UInt8], _ currentYear: Int) -> [Int] {
        guard b.count == 17, !positionTenIsNoYear(b) else { return [] }
        return modelYears(forCode: Character(Unicode.Scalar(b[9])), currentYear: currentYear)
    }

    static func bestYear(_ b: [UInt8], candidates: [Int], heavy: Bool) -> Int? {
        guard let latest = candidates.last else { return nil }
        return b.withUnsafeBufferPointer { bestYear($0, latest: latest, candidates: candidates, heavy: heavy) }
    }

    /// The best model year: the position-7 rule where it holds, else `latest`.
    ///
    /// The rule (49 CFR 565: a digit at position 7 means 1980-2009, a letter 2010-2039) holds for cars,
    /// MPVs and light trucks built for North America: VINs of the North American regions, and
    /// Japanese and Korean VINs whose check digit is right and whose WMI is known, the mark of a US-market
    /// vehicle. Not for heavy trucks, buses, trailers or motorcycles (``WMIEntry/noPosition7Rule``;
    /// callers pass `heavy` for a WMI the table does not know, too),
    /// nor China (its position-7 use differs), nor Europe (S-Z): European
    /// makers compute the check digit for every market, and a European-market car's position 7 is a
    /// model code (`WDD20500XKR456789`, a 2019 Mercedes, would read 1989).
    @inline(__always)
    static func bestYear(_ b: UnsafeBufferPointer<UInt8>, latest: Int, candidates: [Int]?, heavy: Bool) -> Int {
        _ = candidates
        guard position7RuleHolds(b, heavy: heavy) else { return latest }
        return position7Year(b, latest: latest) ?? latest
    }

    /// Whether the position-7 rule holds for these bytes (see ``bestYear(_:latest:candidates:heavy:)``).
    @inline(__always)
    /// - Parameter assumingCheckDigit: take a Japanese or Korean VIN's check digit as right (the
    ///   typo repair asks whether the rule would date the VIN it repairs).
    static func position7RuleHolds(_ b: UnsafeBufferPointer<UInt8>, heavy: Bool, assumingCheckDigit: Bool = false) -> Bool {
        guard b.count == 17, !heavy, !isChinese(b[0]) else { return false }
        if !checkDigitMandatory(b) {
            // Japan (J) and Korea (KL-KR) only: not South America, Africa, India, Turkey, ...,
            // whose position 7 is a model code as in Europe.
            guard computesCheckDigitForExport(b), WMITable.lookupIndex(b) != nil else { return false }
            if !assumingCheckDigit {
                guard let digit = VINEngine.checkDigitByte(b), digit == b[8] else { return false }
            }
        }
        return true
    }

    /// The model year the position-7 rule gives, not later than `latest`; nil when no year of the
    /// position-10 code's cycles fits (a letter at position 7 with code `3` is 2033).
    @inline(__always)
    static func position7Year(_ b: UnsafeBufferPointer<UInt8>, latest: Int) -> Int? {
        let p7 = b[6]
        let isDigit = p7 >= UInt8(ascii: "0") && p7 <= UInt8(ascii: "9")
        guard let base = yearBase(b[9]) else { return nil }
        // The candidates are base, base + 30, ... up to latest.
        var year = base
        while year + 30 <= latest { year += 30 }
        while year >= base {
            if isDigit ? (1980...2009).contains(year) : (2010...2039).contains(year) { return year }
            year -= 30
        }
        return nil
    }

    /// The WMI table entry for a VIN: the six-character key for low-volume makers (position 3 is `9`),
    /// else the three-character one.
    static func lookup(_ b: [UInt8]) -> WMIEntry? {
        b.withUnsafeBufferPointer { buf in WMITable.lookupIndex(buf).map { WMITable.index.list[$0] } }
    }

    /// The WMI table entry for a WMI code (three or six characters) or a whole VIN.
    public static func entry(forWMI wmi: String) -> WMIEntry? {
        let b = Array(VINEngine.normalize(wmi).utf8)
        if b.count == 6 || b.count == 3 { return WMITable.entries[String(decoding: b, as: UTF8.self)] }
        return lookup(b)
    }

    /// The makes sold under a WMI (or the WMI of a VIN), primary first; empty when unknown.
    public static func makes(forWMI wmi: String) -> [String] { entry(forWMI: wmi)?.makes ?? [] }

    /// The make of a VIN: for WMIs shared by several brands, the one vPIC's VDS patterns point to.
    static func make(_ b: [UInt8], entry: WMIEntry, modelYear: Int?) -> String {
        guard entry.makes.count > 1, b.count == 17 else { return entry.make }
        return b.withUnsafeBufferPointer { buf in
            guard let i = WMITable.lookupIndex(buf), WMITable.index.list[i].code == entry.code else { return entry.make }
            return make(buf, entryIndex: i, modelYear: modelYear)
        }
    }

    /// The make of a 17-character VIN whose WMI entry is `entryIndex` in ``WMITable/Index/list``: the make
    /// whose matching rules weigh most (longer patterns weigh more), among the rules for the model year
    /// when any match it; ties go to the alphabetically first make.
    static func make(_ b: UnsafeBufferPointer<UInt8>, entryIndex: Int, modelYear: Int?) -> String {
        let ix = WMITable.index
        let entry = ix.list[entryIndex]
        guard entry.makes.count > 1, b.count == 17, let set = ix.ruleSets[entryIndex] else { return entry.make }
        let pick = makeIndex(b, set: set, modelYear: modelYear)
        return pick.map { set.makes[$0] } ?? entry.make
    }

    /// The winning index into `set.makes`, or nil when no rule matches.
    static func makeIndex(_ b: UnsafeBufferPointer<UInt8>, set: WMIRuleSet, modelYear: Int?) -> Int? {
        let n = set.makes.count
        // vPIC's descriptor: positions 4-8, `|`, positions 10-17, as codes.
        var d: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0)
        let code = WMITable.code
        return withUnsafeMutableBytes(of: &d) { raw -> Int? in
            for i in 0..<5 { raw[i] = code[Int(b[3 + i])] }
            for i in 6..<14 { raw[i] = code[Int(b[3 + i])] }
            // Shift counts: a code outside the table (255) becomes 63, a bit no real mask has.
            var shift = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                         UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            return withUnsafeMutableBytes(of: &shift) { shiftBytes -> Int? in
            let shifts = shiftBytes.bindMemory(to: UInt64.self)
            for i in 0..<14 { shifts[i] = UInt64(min(raw[i], 63)) }
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * n) { votes -> Int? in
                votes.initialize(repeating: 0)
                var anyInYear = false, anyMatch = false
                // Only the rules that allow this position 4 (in rule order; the sums do not
                // depend on it); position 4 need not be tested again.
                set.byFirstCode[Int(shifts[0])].withUnsafeBufferPointer { candidates in
                set.flatMasks.withUnsafeBufferPointer { masks in
                    set.flatRules.withUnsafeBufferPointer { rules in
                        let w = WMIRuleSet.flatWidth
                        for candidate in candidates {
                            let r = Int(candidate)
                            let m = masks.baseAddress! + r * w
                            // Most rules fail on the first position or two: stop there.
                            var hit = true
                            for i in 1..<w where (m[i] >> shifts[i]) & 1 == 0 {
                                hit = false
                                break
                            }
                            guard hit else { continue }
                            let rule = rules[r]
                            votes[n + rule.make] += rule.weight
                            anyMatch = true
                            if let modelYear, rule.fromYear <= modelYear, modelYear <= rule.toYear {
                                votes[rule.make] += rule.weight
                                anyInYear = true
                            }
                        }
                    }
                }
                }
                guard anyMatch else { return nil }
                let base = anyInYear ? 0 : n
                var best = -1
                for m in 0..<n where votes[base + m] > 0 {
                    if best < 0 || votes[base + m] > votes[base + best]
                        || (votes[base + m] == votes[base + best] && set.makes[m] < set.makes[best])
                    {
                        best = m
                    }
                }
                return best < 0 ? nil : best
            }
            }
        }
    }

    /// Fills in the decoded parts of an analysis.
    static func decode(_ b: [UInt8], into a: inout VINAnalysis, currentYear: Int) {
        b.withUnsafeBufferPointer { decode($0, into: &a, currentYear: currentYear) }
    }

    /// Fills in the decoded parts of an analysis; `makeCache`, when given, memoizes multi-brand makes.
    static func decode(
        _ b: UnsafeBufferPointer<UInt8>, into a: inout VINAnalysis, currentYear: Int, makeCache: MakeCache? = nil
    ) {
        guard b.count >= 2 else { return }
        let country = VINCountries.fastCountry(b[0], b[1])
        a.country = country
        a.region =
            country == "United States" ? "North America" : country == "New Zealand" ? "Oceania" : region(forFirstByte: b[0])
        let ix = WMITable.index
        let entryIndex = WMITable.lookupIndex(b)
        if let entryIndex {
            let entry = ix.list[entryIndex]
            a.wmi = entry.code
            a.manufacturer = entry.manufacturer
            if let plant = ix.plantCountryNames[entryIndex] {
                a.country = plant
            } else if a.country == nil {
                a.country = ix.countryNames[entryIndex]
            }
        }
        guard b.count == 17 else {
            a.make = entryIndex.map { ix.list[$0].make }
            return
        }
        a.modelYears = positionTenIsNoYear(b) ? [] : modelYears(forCode: Character(Unicode.Scalar(b[9])), currentYear: currentYear)
        if let latest = a.modelYears.last {
            a.modelYear = bestYear(b, latest: latest, candidates: nil, heavy: entryIndex.map { ix.list[$0].noPosition7Rule } ?? true)
        } else {
            a.modelYear = nil
        }
        if let entryIndex {
            if let makeCache {
                a.make = makeCache.make(b, entryIndex: entryIndex, modelYear: a.modelYear)
            } else {
                a.make = make(b, entryIndex: entryIndex, modelYear: a.modelYear)
            }
        }
        a.plant = String(decoding: UnsafeBufferPointer(rebasing: b[10..<11]), as: UTF8.self)
        let lowVolume = b[2] == UInt8(ascii: "9")
        a.serial = String(decoding: UnsafeBufferPointer(rebasing: b[(lowVolume ? 14 : 11)..<17]), as: UTF8.self)
    }

    /// ``region(forFirstCharacter:)`` for a byte.
    @inline(__always)
    static func region(forFirstByte c: UInt8) -> String? {
        switch c {
        case UInt8(ascii: "1")...UInt8(ascii: "5"): "North America"
        case UInt8(ascii: "7"): "North America"
        case UInt8(ascii: "6"): "Oceania"
        case UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "0"): "South America"
        case UInt8(ascii: "A")...UInt8(ascii: "G"): "Africa"
        case UInt8(ascii: "H"): "Asia"
        // (I, O and Q are never a VIN's first character: no region.)
        case UInt8(ascii: "O"), UInt8(ascii: "Q"): nil
        case UInt8(ascii: "J")...UInt8(ascii: "R"): "Asia"
        case UInt8(ascii: "S")...UInt8(ascii: "Z"): "Europe"
        default: nil
        }
    }

    // MARK: - Make cross-check

    /// Common make spellings and nicknames, normalized (lower-case letters and digits only), to the
    /// canonical make, also normalized.
    static let aliases: [String: String] = [
        "vw": "volkswagen", "volkswagon": "volkswagen", "vwag": "volkswagen",
        "chevy": "chevrolet", "chev": "chevrolet", "chevroletgmc": "chevrolet",
        "mercedes": "mercedesbenz", "merc": "mercedesbenz", "benz": "mercedesbenz", "mb": "mercedesbenz",
        "mercedesamg": "mercedesbenz", "amg": "mercedesbenz", "daimler": "mercedesbenz",
        "landrover": "landrover", "rangerover": "landrover", "lr": "landrover",
        "alfa": "alfaromeo", "rollsroyce": "rollsroyce", "rolls": "rollsroyce",
        "astonmartin": "astonmartin", "aston": "astonmartin",
        "citroen": "citroen", "skoda": "skoda", "seat": "seat", "cupra": "cupra",
        "mini": "mini", "bmwmini": "mini", "minicooper": "mini",
        "vauxhall": "vauxhall", "opelvauxhall": "opel",
        "ram": "ram", "dodgeram": "ram",
        "infinity": "infiniti", "hyundia": "hyundai", "huyndai": "hyundai", "porshe": "porsche",
        "mitsu": "mitsubishi", "subaro": "subaru", "toyta": "toyota", "nissian": "nissan",
        "gm": "generalmotors", "gmc": "gmc", "ssangyong": "ssangyong", "kgm": "ssangyong",
        "lynkco": "lynkco", "lynkandco": "lynkco",
    ]

    /// Makes (keys) by the group that builds them today, for the make cross-check: a make the WMI
    /// lists of the primary make's group (Dodge on a Ram VIN, Lincoln on a Ford one) agrees, one of
    /// another group only where vPIC's patterns do not name it for other VINs (``agreeingMakes``).
    static let brandGroup: [String: String] = {
        let groups: [String: [String]] = [
            "stellantis": [
                "chrysler", "dodge", "ram", "jeep", "fiat", "alfaromeo", "lancia", "maserati", "abarth", "peugeot",
                "citroen", "ds", "opel", "vauxhall", "plymouth", "eagle", "srt",
            ],
            "ford": ["ford", "lincoln", "mercury"],
            "gm": ["chevrolet", "gmc", "buick", "cadillac", "pontiac", "oldsmobile", "saturn", "hummer", "holden", "generalmotors"],
            "volkswagen": ["volkswagen", "audi", "seat", "cupra", "skoda", "porsche", "bentley", "lamborghini", "bugatti"],
            "toyota": ["toyota", "lexus", "scion", "daihatsu"],
            "honda": ["honda", "acura"],
            "nissan": ["nissan", "infiniti", "datsun"],
            "hyundai": ["hyundai", "genesis"],
            "kia": ["kia"],
            "jlr": ["jaguar", "landrover"],
            "bmw": ["bmw", "mini", "rollsroyce"],
            "daimler": ["mercedesbenz", "smart", "maybach", "freightliner", "westernstar", "thomasbuilt", "sterling"],
            "renault": ["renault", "dacia", "alpine"],
            "mazda": ["mazda"], "subaru": ["subaru"], "mitsubishi": ["mitsubishi"], "suzuki": ["suzuki"],
            "volvo": ["volvo", "polestar"], "tesla": ["tesla"], "isuzu": ["isuzu"],
        ]
        var out: [String: String] = [:]
        for (group, makes) in groups { for make in makes { out[make] = group } }
        return out
    }()

    /// The makes (keys) that agree with a 17-character VIN: the make vPIC's VDS patterns pick for
    /// it, and those of `listed` (the WMI's vPIC makes) of the primary make's or the picked make's
    /// group, or that no pattern names (nothing then says they are not this VIN's). vPIC lists
    /// makes once built under a WMI by another group: a Ford truck VIN written as a Mazda or a
    /// Nissan, Chrysler's 1C4 as a Volkswagen or Kia's KNA as a Hyundai passed, though the
    /// patterns name those makes for other VINs. Where no pattern matches the VIN, the primary
    /// make stands for the picked one (as the decoding does), so the answer depends on the WMI and
    /// the decoded make alone; where the WMI has no patterns (Hyundai Russia's Z94 builds Kias),
    /// `listed` as it is.
    static func agreeingMakes(_ b: [UInt8], entry: WMIEntry, modelYear: Int?, listed: [String]) -> [String] {
        guard entry.makes.count > 1 else { return listed }
        return b.withUnsafeBufferPointer { buf -> [String] in
            let ix = WMITable.index
            guard let i = WMITable.lookupIndex(buf), ix.list[i].code == entry.code, let set = ix.ruleSets[i] else {
                return listed
            }
            // No pattern matching this VIN: the primary make, as the decoding says.
            let decided = key(makeIndex(buf, set: set, modelYear: modelYear).map { set.makes[$0] } ?? entry.make)
            let named = Set(set.makes.map(key))
            let groups: Set<String?> = [brandGroup[key(entry.make)], brandGroup[decided]]
            return [decided] + listed.filter { m in brandGroup[m] == nil || groups.contains(brandGroup[m]) || !named.contains(m) }
        }
    }

    /// Lower-case letters and digits only, diacritics folded: `Mercedes-Benz` → `mercedesbenz`.
    static func key(_ s: String) -> String {
        let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        return String(folded.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
            .map(Character.init)).lowercased()
    }

    /// The normalized canonical key of a declared make (`VW` → `volkswagen`).
    static func canonicalKey(_ declared: String) -> String {
        let k = key(declared)
        return aliases[k] ?? k
    }

    /// Whether a declared make agrees with a VIN's WMI: case-, punctuation- and accent-insensitive, with
    /// common aliases (VW, Chevy, Mercedes, Merc, Benz, ...), lenient for WMIs shared by several brands
    /// of one group and for the group itself (e.g. `General Motors`). Nil when the WMI is unknown or the
    /// declared make is empty.
    public static func makeMatches(declared: String, vin: String) -> Bool? {
        let b = Array(VINEngine.normalize(vin).utf8)
        guard let entry = lookup(b) else { return nil }
        // No make is that long (a 50 MB cell was folded several times over).
        guard declared.utf8.count <= 256 else { return false }
        let want = canonicalKey(declared)
        guard !want.isEmpty else { return nil }
        var makes = entry.makes.map(key)
        if b.count == 17 {
            let year = bestYear(b, candidates: modelYears(b, currentCalendarYear), heavy: entry.noPosition7Rule)
            makes = agreeingMakes(b, entry: entry, modelYear: year, listed: makes)
        }
        let maker = key(entry.manufacturer)
        func agrees(_ want: String, byManufacturerName: Bool = true) -> Bool {
            for m in makes {
                if m == want || aliases[m] == want { return true }
                // "Mercedes-Benz" declared as "Mercedes-Benz Vans", "Land Rover" as "Land Rover Range Rover".
                if want.count >= 3 && (m.hasPrefix(want) || want.hasPrefix(m)) { return true }
            }
            if byManufacturerName && want.count >= 3 && maker.contains(want) { return true }
            if want == "generalmotors" && (maker.contains("generalmotors") || maker.contains("gm")) { return true }
            // A group's own name (`Stellantis`, `PSA`, `JLR`) agrees with each of its brands.
            if let group = groupNames[want], makes.contains(where: { brandGroup[$0] == group }) { return true }
            return false
        }
        if agrees(want) { return true }
        // A company name (`Daimler AG`, `Kia Motors Corporation`, `BMW Group`): without the company
        // suffixes of `makes.json` (as the make table takes them off), as a make or a group, not as
        // a piece of the manufacturer's name (`American Motors` is no `American Honda Motor Co.`).
        let suffixes = (try? SchemaCatalog.bundled())?.makes.synonyms
        for rest in suffixes?.withoutSuffixes(folded: key(declared)) ?? [] {
            let stripped = canonicalKey(rest)
            if !stripped.isEmpty, stripped != want, agrees(stripped, byManufacturerName: false) { return true }
        }
        return false
    }

    /// Group and company names (keys) that stand for a ``brandGroup`` as a declared make.
    static let groupNames: [String: String] = [
        "stellantis": "stellantis", "psa": "stellantis", "groupepsa": "stellantis", "psapeugeotcitroen": "stellantis",
        "fca": "stellantis", "fiatchrysler": "stellantis", "fiatchrysleramerica": "stellantis", "chryslergroup": "stellantis",
        "jlr": "jlr", "jaguarlandrover": "jlr", "fujiheavyindustries": "subaru", "fhi": "subaru",
        "mercedesbenzgroup": "daimler", "daimlerchrysler": "daimler", "vag": "volkswagen", "vwgroup": "volkswagen",
        "volkswagengroup": "volkswagen", "volkswagenag": "volkswagen",
        "grouperenault": "renault", "toyotamotorcorporation": "toyota", "tmc": "toyota",
        "geelyholding": "volvo",
    ]
}
