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
        switch c {
        case "1"..."5": "North America"
        case "6", "7": "Oceania"
        case "8", "9", "0": "South America"
        case "A"..."H": "Africa"
        case "J"..."R": "Asia"
        case "S"..."Z": "Europe"
        default: nil
        }
    }

    /// True where the check digit is mandatory: North America (1-5, and 7F-70, assigned to the US) and
    /// China (L).
    static func checkDigitMandatory(_ b: [UInt8]) -> Bool {
        guard let first = b.first else { return false }
        if first >= UInt8(ascii: "1") && first <= UInt8(ascii: "5") { return true }
        if first == UInt8(ascii: "L") { return true }
        if first == UInt8(ascii: "7"), b.count > 1, VINCountries.country(first, b[1]) == "United States" { return true }
        return false
    }

    /// Where the model-year code at position 10 is mandatory: the same regions as the check digit.
    static func yearCodeMandatory(_ b: [UInt8]) -> Bool { checkDigitMandatory(b) }

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
        return bestYear(b, candidates: modelYears(b, currentYear), heavy: entry?.heavyTruck ?? false)
    }

    static func modelYears(_ b: [UInt8], _ currentYear: Int) -> [Int] {
        guard b.count == 17 else { return [] }
        return modelYears(forCode: Character(Unicode.Scalar(b[9])), currentYear: currentYear)
    }

    static func bestYear(_ b: [UInt8], candidates: [Int], heavy: Bool) -> Int? {
        guard let latest = candidates.last else { return nil }
        guard b.count == 17, checkDigitMandatory(b), b[0] != UInt8(ascii: "L"), !heavy else { return latest }
        let p7 = b[6]
        let isDigit = p7 >= UInt8(ascii: "0") && p7 <= UInt8(ascii: "9")
        let range = isDigit ? 1980...2009 : 2010...2039
        return candidates.last(where: { range.contains($0) }) ?? latest
    }

    /// The WMI table entry for a VIN: the six-character key for low-volume makers (position 3 is `9`),
    /// else the three-character one.
    static func lookup(_ b: [UInt8]) -> WMIEntry? {
        guard b.count >= 3 else { return nil }
        if b.count >= 14 && b[2] == UInt8(ascii: "9") {
            let key = String(decoding: b[0..<3] + b[11..<14], as: UTF8.self)
            if let entry = WMITable.entries[key] { return entry }
        }
        return WMITable.entries[String(decoding: b[0..<3], as: UTF8.self)]
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
        guard entry.makes.count > 1, b.count == 17, let rules = WMITable.rules[entry.code] else { return entry.make }
        // vPIC's descriptor: positions 4-8, `|`, positions 10-17.
        let descriptor = Array(b[3..<8]) + [UInt8(ascii: "|")] + Array(b[9..<17])
        var inYear: [String: Int] = [:], any: [String: Int] = [:]
        for rule in rules where rule.matches(descriptor) {
            // Longer patterns are more specific: weigh them more.
            let weight = rule.classes.count
            any[rule.make, default: 0] += weight
            if let modelYear, rule.fromYear <= modelYear, modelYear <= rule.toYear {
                inYear[rule.make, default: 0] += weight
            }
        }
        let votes = inYear.isEmpty ? any : inYear
        let best = votes.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }
        return best?.key ?? entry.make
    }

    /// Fills in the decoded parts of an analysis.
    static func decode(_ b: [UInt8], into a: inout VINAnalysis, currentYear: Int) {
        guard b.count >= 2 else { return }
        let country = VINCountries.country(b[0], b[1])
        a.country = country
        a.region = country == "United States" ? "North America" : region(forFirstCharacter: Character(Unicode.Scalar(b[0])))
        let entry = lookup(b)
        if let entry {
            a.wmi = entry.code
            a.manufacturer = entry.manufacturer
            if a.country == nil, let code = entry.countryCode { a.country = VINCountries.isoNames[code] }
        }
        guard b.count == 17 else {
            a.make = entry?.make
            return
        }
        a.modelYears = modelYears(b, currentYear)
        a.modelYear = bestYear(b, candidates: a.modelYears, heavy: entry?.heavyTruck ?? false)
        if let entry { a.make = make(b, entry: entry, modelYear: a.modelYear) }
        a.plant = String(decoding: b[10..<11], as: UTF8.self)
        let lowVolume = b[2] == UInt8(ascii: "9")
        a.serial = String(decoding: b[(lowVolume ? 14 : 11)..<17], as: UTF8.self)
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
        let want = canonicalKey(declared)
        guard !want.isEmpty else { return nil }
        var makes = entry.makes.map(key)
        if b.count == 17 {
            let year = bestYear(b, candidates: modelYears(b, currentCalendarYear), heavy: entry.heavyTruck)
            makes.append(key(make(b, entry: entry, modelYear: year)))
        }
        for m in makes {
            if m == want || aliases[m] == want { return true }
            // "Mercedes-Benz" declared as "Mercedes-Benz Vans", "Land Rover" as "Land Rover Range Rover".
            if want.count >= 3 && (m.hasPrefix(want) || want.hasPrefix(m)) { return true }
        }
        let maker = key(entry.manufacturer)
        if want.count >= 3 && maker.contains(want) { return true }
        if want == "generalmotors" && (maker.contains("generalmotors") || maker.contains("gm")) { return true }
        return false
    }
}
