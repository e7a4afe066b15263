import Foundation

/// Everything Vinyard can tell about one VIN offline: validity, findings, repair and decoding.
public struct VINAnalysis: Sendable, Hashable {
    /// The VIN trimmed, upper-cased, with spaces and dashes removed.
    public var normalized: String
    /// True when no finding is an error.
    public var valid: Bool
    /// The `vin.*` findings, errors first.
    public var findings: [Finding]
    /// The check digit position 9 should hold; nil when the VIN is not 17 valid characters.
    public var expectedCheckDigit: Character?
    /// The probable intended VIN when exactly one single common typo (O/0, I/1, Q/0, S/5, B/8, Z/2)
    /// makes it fully valid.
    public var suggestion: String?
    /// The ISO 3780 region of position 1 (`North America`, `Europe`, ...).
    public var region: String?
    /// The ISO 3780 country of positions 1-2.
    public var country: String?
    /// The manufacturer as NHTSA vPIC names it, e.g. `American Honda Motor Co., Inc.`.
    public var manufacturer: String?
    /// The make (brand) in canonical spelling, e.g. `Honda`; resolved from the VDS for multi-brand WMIs.
    public var make: String?
    /// The WMI found in the table (three characters, or six for low-volume makers).
    public var wmi: String?
    /// Candidate model years from position 10, ascending, none later than next year.
    public var modelYears: [Int]
    /// The single best model year (position-7 rule for North America, else the latest candidate).
    public var modelYear: Int?
    /// The plant code (position 11).
    public var plant: String?
    /// The serial number (positions 12-17, or 15-17 for low-volume makers).
    public var serial: String?
}

/// The VIN engine (ISO 3779): normalization, check digit, validation, typo repair and offline decoding.
public enum VINEngine {
    /// True for a name a VIN column goes by in the bundled vehicle schema (`VIN`, `FIN`,
    /// `Vehicle Identification Number`, …): a header, not a VIN, at the top of a list.
    public static func isColumnName(_ text: String) -> Bool { JSONReader.isVINName(text) }

    /// Transliteration values by ASCII byte; 255 marks a character that is not allowed in a VIN.
    @usableFromInline static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for d in 0...9 { table[Int(UInt8(ascii: "0")) + d] = UInt8(d) }
        let letters: [(Character, UInt8)] = [
            ("A", 1), ("B", 2), ("C", 3), ("D", 4), ("E", 5), ("F", 6), ("G", 7), ("H", 8),
            ("J", 1), ("K", 2), ("L", 3), ("M", 4), ("N", 5), ("P", 7), ("R", 9),
            ("S", 2), ("T", 3), ("U", 4), ("V", 5), ("W", 6), ("X", 7), ("Y", 8), ("Z", 9),
        ]
        for (c, v) in letters { table[Int(c.asciiValue ?? 0)] = v }
        return table
    }()

    /// Position weights 1-17 (position 9, the check digit, weighs 0).
    @usableFromInline static let weights: [Int] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]

    /// Trims, upper-cases and removes spaces and dashes: ` 1hg-cm8 2633A004352 ` → `1HGCM82633A004352`.
    public static func normalize(_ raw: String) -> String {
        // Already normalized (the common case): upper-case letters and digits only.
        var copy = raw
        let clean = copy.withUTF8 { b in
            b.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
        }
        if clean { return copy }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(17)
        var other = false
        for scalar in raw.unicodeScalars {
            if isSeparator(scalar) { continue }
            if scalar.isASCII {
                var b = UInt8(scalar.value)
                if b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") { b -= 32 }
                bytes.append(b)
            } else {
                other = true
                break
            }
        }
        if other {
            // The same separators as above: a Character that starts with one goes whole (a space
            // carrying a combining mark), and one inside a Character goes too (a zero-width joiner
            // belongs to its neighbour's Character). Whichever path runs, no separator is left, so
            // normalize(normalize(x)) == normalize(x).
            var kept = String.UnicodeScalarView()
            for character in raw {
                guard let first = character.unicodeScalars.first, !isSeparator(first) else { continue }
                for scalar in character.unicodeScalars where !isSeparator(scalar) { kept.append(scalar) }
            }
            return String(kept).uppercased()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What a VIN written by hand or pasted from a document may hold between its characters:
    /// white space, hyphens and dashes of every kind (en, em, figure, minus, non-breaking,
    /// full-width), and invisible joiners and zero-width spaces.
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || separatorScalars.contains(scalar.value)
    }

    private static let separatorScalars: Set<UInt32> = [
        0x2D, 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xFE58, 0xFE63, 0xFF0D,
        0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF,
    ]

    /// The check digit (`0`-`9` or `X`) for a 17-character VIN, ignoring what position 9 holds;
    /// nil when the VIN is not 17 allowed characters.
    public static func checkDigit(for vin: String) -> Character? {
        let bytes = Array(normalize(vin).utf8)
        guard bytes.count == 17, let digit = bytes.withUnsafeBufferPointer({ checkDigitByte($0) }) else { return nil }
        return Character(Unicode.Scalar(digit))
    }

    /// The check digit byte for 17 upper-case bytes, or nil when a character is not allowed.
    @inlinable
    public static func checkDigitByte(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
        guard bytes.count == 17 else { return nil }
        var sum = 0
        var bad: UInt8 = 0
        values.withUnsafeBufferPointer { table in
            weights.withUnsafeBufferPointer { w in
                for i in 0..<17 {
                    let v = table[Int(bytes[i])]
                    bad |= v & 0x80
                    sum &+= Int(v & 0x7F) &* w[i]
                }
            }
        }
        // Position 9 may hold any allowed character (it is weighted 0), but must be allowed.
        guard bad == 0 else { return nil }
        let r = sum % 11
        return r == 10 ? UInt8(ascii: "X") : UInt8(ascii: "0") + UInt8(r)
    }

    /// The fast path: true when the bytes are exactly 17 upper-case allowed characters whose check
    /// digit is right. No allocation; use it to validate millions of VINs.
    @inlinable
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 17, let digit = checkDigitByte(bytes) else { return false }
        return bytes[8] == digit
    }

    /// True when `vin` (after normalization) is 17 allowed characters with a correct check digit.
    public static func isValid(_ vin: String) -> Bool {
        Array(normalize(vin).utf8).withUnsafeBufferPointer { isValid($0) }
    }

    /// The VIN with position 9 replaced by the computed check digit; the input (normalized)
    /// unchanged when it is not 17 allowed characters.
    public static func withCheckDigit(_ vin: String) -> String {
        var bytes = Array(normalize(vin).utf8)
        guard bytes.count == 17, let digit = bytes.withUnsafeBufferPointer({ checkDigitByte($0) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        bytes[8] = digit
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The common one-character typos, both ways.
    static let confusions: [UInt8: [UInt8]] = {
        let pairs: [(Character, Character)] = [
            // DESIGN.md's list: no others (G/6 gave `JM16J1W60E1143959` for a Mazda VIN whose only
            // mistake was its check digit).
            ("O", "0"), ("I", "1"), ("Q", "0"), ("S", "5"), ("B", "8"), ("Z", "2"),
        ]
        var result: [UInt8: [UInt8]] = [:]
        for (a, b) in pairs {
            let x = a.asciiValue ?? 0, y = b.asciiValue ?? 0
            result[x, default: []].append(y)
            result[y, default: []].append(x)
        }
        return result
    }()

    /// Analyzes one raw VIN: normalization, findings, expected check digit, repair and decoding.
    /// - Parameter currentYear: the calendar year; model years never exceed `currentYear + 1`.
    public static func analyze(_ raw: String, currentYear: Int = VINDecoder.currentCalendarYear) -> VINAnalysis {
        analyze(raw, currentYear: currentYear, makeCache: nil)
    }

    /// True when the bytes are a VIN without any finding: 17 allowed characters, right check digit, not a
    /// placeholder, a model-year code at position 10 and a known WMI. No allocation.
    @inline(__always)
    static func isClean(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isValid(b), VINDecoder.yearBase(b[9]) != nil, !isPlaceholder17(b) else { return false }
        return WMITable.lookupIndex(b) != nil
    }

    /// ``placeholderReason(_:)`` != nil for 17 allowed characters (which can never spell the placeholder
    /// words: they all contain O or `/`).
    @inline(__always)
    static func isPlaceholder17(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let first = b[0]
        var same = true
        for i in 1..<17 where i != 8 && b[i] != first { same = false; break }
        if same { return true }
        // `longestRun(b) >= 9 || longestRepeat(b) >= 8` in one pass that asks `follows` only where
        // the byte step can be one (±1; ±2 for H→J, N→P, P→R; ±9 for 9→0): every VIN of a file
        // comes through here, and the two scans with `follows` at each position cost about 500
        // instructions a VIN.
        var up = 1, down = 1, sameRun = 1
        for i in 1..<17 {
            let a = b[i - 1], c = b[i]
            sameRun = c == a ? sameRun + 1 : 1
            switch c &- a {
            case 1, 2, 9, 0xFF, 0xFE, 0xF7:
                up = follows(a, c) ? up + 1 : 1
                down = follows(c, a) ? down + 1 : 1
            default:
                up = 1
                down = 1
            }
            if sameRun >= 8 || up >= 9 || down >= 9 { return true }
        }
        return repeatsPattern(b)
    }

    /// Digits with at most one decimal point or comma (a VIN field's normalization drops the
    /// point), `E`, a `+` and an exponent of one to three digits: `1.23457E+16`, `1,23457E+16`
    /// (European Excel), `1.2E+016`, or `1.23457E16` with its point (as `decode` reads it; a VIN
    /// field's normalization drops the point, so there the `+` tells). Never a string of VIN
    /// characters alone (`111055010271206E1` may be a VIN).
    public static func isScientificNotation<C: Collection<UInt8>>(_ b: C) -> Bool where C.Index == Int {
        guard let e = b.firstIndex(of: UInt8(ascii: "E")), e > b.startIndex else { return false }
        let isDigit = { (c: UInt8) in c >= 0x30 && c <= 0x39 }
        let mantissa = b[..<e]
        let separators = mantissa.filter { !isDigit($0) }
        guard isDigit(mantissa[mantissa.startIndex]), separators.count <= 1,
            separators.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ",") })
        else { return false }
        var exponent = b[(e + 1)...]
        let plus = exponent.first == UInt8(ascii: "+")
        if plus { exponent = exponent.dropFirst() }
        return (plus || !separators.isEmpty) && (1...3).contains(exponent.count) && exponent.allSatisfy(isDigit)
    }

    static func analyze(_ raw: String, currentYear: Int, makeCache: MakeCache?) -> VINAnalysis {
        let normalized = normalize(raw)
        var scratch = normalized
        // Fast path: a clean VIN has no findings; only decoding remains.
        let clean: VINAnalysis? = scratch.withUTF8 { b -> VINAnalysis? in
            guard isClean(b), let digit = checkDigitByte(b) else { return nil }
            var a = VINAnalysis(
                normalized: normalized, valid: true, findings: [], expectedCheckDigit: Character(Unicode.Scalar(digit)),
                suggestion: nil, region: nil, country: nil, manufacturer: nil, make: nil, wmi: nil, modelYears: [],
                modelYear: nil, plant: nil, serial: nil)
            VINDecoder.decode(b, into: &a, currentYear: currentYear, makeCache: makeCache)
            return a
        }
        if let clean { return clean }
        let bytes = Array(normalized.utf8)
        var findings: [Finding] = []
        var analysis = VINAnalysis(
            normalized: normalized, valid: true, findings: [], expectedCheckDigit: nil, suggestion: nil,
            region: nil, country: nil, manufacturer: nil, make: nil, wmi: nil, modelYears: [], modelYear: nil,
            plant: nil, serial: nil)

        func add(_ code: FindingCode, _ severity: Severity, _ message: String, suggestion: String? = nil) {
            findings.append(Finding(code, severity, field: "vin", message: message, suggestion: suggestion))
        }

        // A spreadsheet showed the VIN as a number (`1.23457E+16`: an all-digit value read as a
        // number, its digits beyond 15 lost) and saved it so: no typo to fix, the VIN is gone.
        // One finding that says so (it was a length, and a `+` at a position the point moved).
        if Self.isScientificNotation(bytes) {
            add(
                .vinCharacters, .error,
                "VIN \(quoted(raw.trimmingCharacters(in: .whitespaces))) is a number in a spreadsheet's scientific notation "
                    + "(such as 1.23457E+16): the VIN was lost when the file was saved; format the column as Text and export it again")
            analysis.findings = findings
            analysis.valid = false
            return analysis
        }
        // A placeholder is not a VIN: its one finding says so, and nothing is checked or decoded
        // further. Its length, characters, check digit and position 10 are no mistakes to fix
        // (`UNKNOWN` got vin.length and vin.characters as well, `12345678901234567`
        // vin.check_digit and vin.model_year), a row that holds one has one defect, counted once
        // per code, and `11111111111111111` read as a North American 2001 model with check digit 1.
        if let reason = placeholderReason(bytes) {
            add(.vinPlaceholder, .error, "\(quoted(normalized)) is a placeholder (\(reason)), not a VIN; enter the real VIN from the vehicle or its papers")
            analysis.findings = findings
            analysis.valid = false
            return analysis
        }
        let length = normalized.count
        if length != 17 {
            add(.vinLength, .error, "VIN has \(length) characters, expected 17; check for missing or extra characters")
        }
        let illegal = normalized.enumerated().filter { $0.element.asciiValue.map { values[Int($0)] == 255 } ?? true }
        if !illegal.isEmpty {
            let list = illegal.prefix(5).map { "\($0.element.debugLabel) at position \($0.offset + 1)" }
            add(.vinCharacters, .error, "VIN contains \(list.joined(separator: ", ")); only 0-9 and A-Z without I, O, Q are allowed")
        }

        // Decoding works on any VIN that has at least a WMI.
        if bytes.count >= 3 {
            bytes.withUnsafeBufferPointer { VINDecoder.decode($0, into: &analysis, currentYear: currentYear, makeCache: makeCache) }
        }
        let mandatory = VINDecoder.checkDigitMandatory(bytes)

        if bytes.count == 17 && illegal.isEmpty {
            let digit = bytes.withUnsafeBufferPointer { checkDigitByte($0) }
            if let digit {
                analysis.expectedCheckDigit = Character(Unicode.Scalar(digit))
                if bytes[8] != digit {
                    // Where a single common typo explains the wrong digit (DESIGN.md "Validation"):
                    // where the digit is mandatory, and on Japanese and Korean VINs, whose makers
                    // compute it for the North American market. Elsewhere (Europe, South America,
                    // India, ...) a wrong digit is usually one the maker never computed, and a
                    // substitution that happens to fit is no typo: an audit of real VINs got 7
                    // suggestions there, all wrong (`WVWZZZ3CZFE824021`, VW's Z filler, became
                    // `…3C2…`). There only a letter in the serial's last four positions, which ISO
                    // 3779 makes digits, is taken for the typo (`WBA8E9G52HNU1Z345`).
                    var suggestion = repair(bytes, requireCheckDigit: true, requireMandatoryRegion: mandatory, currentYear: currentYear)
                    var northAmericanTypo = false
                    // Nor a typo in an unknown manufacturer code that makes it a known one whose
                    // check digit is mandatory (`SUX…` for BMW US's `5UX…`, `ZT1…` for `2T1…`):
                    // that VIN passes its check digit, the one written has no maker.
                    if !mandatory, !VINDecoder.computesCheckDigitForExport(bytes), let s = suggestion {
                        let serialLetterFixed = zip(bytes, s.utf8).enumerated().allSatisfy { i, pair in
                            pair.0 == pair.1 || (i >= 13 && pair.0 >= UInt8(ascii: "A"))
                        }
                        let repaired = Array(s.utf8)
                        let makerFixed =
                            analysis.wmi == nil && VINDecoder.checkDigitMandatory(repaired)
                            && repaired.withUnsafeBufferPointer { WMITable.lookupIndex($0) != nil }
                        if !serialLetterFixed && !makerFixed { suggestion = nil }
                        northAmericanTypo = makerFixed
                    }
                    var message = "check digit is \(Character(Unicode.Scalar(bytes[8]))), expected \(Character(Unicode.Scalar(digit)))"
                    if let suggestion {
                        message += "; probable VIN \(suggestion)"
                        // Which character it changes, and the other reading: the check digit itself
                        // mistyped explains any failure (an audit's 2,000 VINs with only a wrong check
                        // digit got a probable VIN changing a right character for 285 of them).
                        let repaired = Array(suggestion.utf8)
                        var other = bytes
                        other[8] = digit
                        if !northAmericanTypo, let i = (0..<17).first(where: { bytes[$0] != repaired[$0] }) {
                            message += " (\(Character(Unicode.Scalar(bytes[i]))) to \(Character(Unicode.Scalar(repaired[i]))) at position \(i + 1))"
                            // Not where the repair is the check digit itself (the two would be one),
                            // nor where the written VIN is no VIN whatever its check digit (a letter
                            // in the serial: `…1Z346`).
                            if i != 8, serialIsDigits(other) {
                                message += ", or \(String(decoding: other, as: UTF8.self)) if the check digit is the typo"
                            }
                        }
                        // The VIN is the repaired one's, whose check digit is mandatory: an error, as
                        // on that VIN (a first-character typo, `SNP…` for `5NP…`, made it a warning
                        // and the row was loaded; an audit planted 21).
                        if northAmericanTypo {
                            message += ", a VIN whose check digit is mandatory (its manufacturer code \(suggestion.prefix(3)) is known, "
                                + "\(String(decoding: bytes.prefix(3), as: UTF8.self)) is not)"
                        }
                        analysis.suggestion = suggestion
                    } else if mandatory {
                        message += "; re-check the VIN against the vehicle or its papers"
                    } else {
                        message += " (the check digit is optional outside North America and China)"
                    }
                    add(.vinCheckDigit, mandatory || northAmericanTypo ? .error : .warning, message, suggestion: suggestion)
                }
            }
        } else if bytes.count == 17 && illegal.count == 1 {
            // Illegal characters: try repairing them (the repair must also pass the check digit where it is
            // mandatory, and on Japanese and Korean VINs, whose makers compute it for export: an audit found
            // 8 of 8 suggestions there failing their own check digit).
            if let suggestion = repair(
                bytes, requireCheckDigit: mandatory || VINDecoder.computesCheckDigitForExport(bytes), requireMandatoryRegion: mandatory,
                currentYear: currentYear)
            {
                analysis.suggestion = suggestion
                if let i = findings.firstIndex(where: { $0.code == .vinCharacters }) {
                    findings[i].message += "; probable VIN \(suggestion)"
                    findings[i].suggestion = suggestion
                }
            }
        }

        if bytes.count == 17 {
            let yearCode = bytes[9]
            if VINDecoder.yearBase(yearCode) == nil && values[Int(yearCode)] != 255 && !VINDecoder.positionTenIsNoYear(bytes) {
                let c = Character(Unicode.Scalar(yearCode))
                if VINDecoder.yearCodeMandatory(bytes) {
                    add(.vinModelYear, .error, "position 10 is \(c), which is not a model-year code (U, Z and 0 are never used); check the VIN")
                } else {
                    add(.vinModelYear, .warning, "position 10 is \(c), not a model-year code (optional outside North America and China); model year not decoded")
                }
            }
            if illegal.isEmpty && analysis.wmi == nil {
                // A small maker's code (position 3 is 9) goes on at positions 12-14.
                let small = bytes.count == 17 && bytes[2] == UInt8(ascii: "9")
                let wmi = VINDecoder.manufacturerCode(bytes)
                add(
                    .vinWMIUnknown, .warning,
                    "manufacturer code \(wmi) is not in the offline WMI table; check "
                        + (small ? "the first three characters and positions 12-14" : "the first three characters"))
            }
        }

        findings.sort { $0.severity > $1.severity }
        analysis.findings = findings
        analysis.valid = !findings.contains { $0.severity == .error }
        return analysis
    }

    /// Single-character substitutions from the confusion pairs; the one candidate that makes the VIN fully
    /// valid (allowed characters and, when required, the check digit; not a placeholder; digits
    /// ending the serial; a known manufacturer code where the repair is in it; a model year the
    /// position-7 rule allows), or nil. So a letter typed into the serial (`1FTFW1E5XPFB1Z346`)
    /// is the typo, not a second confusion elsewhere that happens to pass the check digit too
    /// (B → 8 at position 12 there). Where the VIN's
    /// manufacturer code is unknown, a candidate that makes it a known one wins (`5B1KV58E0DF123456`
    /// is `SB1…`, Toyota UK, not `581…`), also outside the mandatory region.
    /// - Parameter requireMandatoryRegion: the candidate must be a VIN whose check digit is
    ///   mandatory (North America, China); `requireCheckDigit` when not given.
    /// - Parameter currentYear: the year "after next year" counts from.
    static func repair(
        _ bytes: [UInt8], requireCheckDigit: Bool, requireMandatoryRegion: Bool? = nil,
        currentYear: Int = VINDecoder.currentCalendarYear
    ) -> String? {
        guard bytes.count == 17 else { return nil }
        let mandatoryRegion = requireMandatoryRegion ?? requireCheckDigit
        // Serials end in digits (ISO 3779: positions 14-17; 49 CFR 565 for North American cars
        // and light trucks: 13-17): a repair never turns a digit at 13-17 into a letter. Position
        // 12 may be either (Ford writes letters there: `1FTEE1EG6PC565076` is `…PCS65076`), so a
        // European VIN with a digit there can still get a letter (`WBA3A5C51CF256651`, review 15:
        // limiting it to digits lost 361 of 400 Ford repairs).
        // A repair inside the WMI must keep it a manufacturer code of the offline table when it was
        // one (SALVA2BG1CH610186, Land Rover, is not "probably" 5ALVA2BG1CH610186, unknown).
        let knownWMI = bytes.withUnsafeBufferPointer { WMITable.lookupIndex($0) != nil }
        // Position 7 of a VIN the position-7 rule dates holds a letter (2010-2039) or a digit
        // (1980-2009), both legal: swapping one for the other moves the model year by 30 years, and
        // nothing tells which was meant (a 2017 Bolt, `1G1FW6S03H4100000`, was "probably" a 1987
        // car). Only an illegal I, O or Q there is repaired, or a character that dates the VIN
        // after next year (`1HGCM8Z633A004352`, a letter with year code 3: 2033).
        // The rule as it would hold with the right check digit (a Japanese or Korean VIN needs one
        // for it, and a VIN repaired here has a wrong one; found by review).
        let position7Dates = bytes.withUnsafeBufferPointer { buf in
            VINDecoder.position7RuleHolds(
                buf, heavy: WMITable.lookupIndex(buf).map { WMITable.index.list[$0].noPosition7Rule } ?? true, assumingCheckDigit: true)
                && VINDecoder.position7Year(buf, latest: currentYear + 1) != nil
        }
        var candidate = bytes
        var found: [[UInt8]] = []
        for i in 0..<17 {
            guard let alternatives = confusions[bytes[i]] else { continue }
            if i == 6, position7Dates, ![UInt8(ascii: "I"), UInt8(ascii: "O"), UInt8(ascii: "Q")].contains(bytes[i]) { continue }
            for alt in alternatives {
                if i >= 12 && bytes[i] >= 0x30 && bytes[i] <= 0x39 && alt >= 0x41 { continue }
                // Position 10 stays a model-year code (`…2A…` is not "probably" `…ZA…`, nor
                // `…OA…` `…0A…`: U, Z and 0 are never year codes).
                if i == 9, VINDecoder.yearBase(alt) == nil { continue }
                candidate[i] = alt
                let ok = candidate.withUnsafeBufferPointer { buf -> Bool in
                    guard let digit = checkDigitByte(buf) else { return false }
                    return !requireCheckDigit || buf[8] == digit
                }
                guard ok, placeholderReason(candidate) == nil, serialIsDigits(candidate) else { continue }
                let candidateIndex = candidate.withUnsafeBufferPointer { WMITable.lookupIndex($0) }
                let candidateKnown = candidateIndex != nil
                // A typo that turns an unknown manufacturer code into a known one (`5B1` → `SB1`,
                // Toyota UK) may leave the mandatory region: the WMI was the typo. A repair inside
                // the manufacturer code must make it one of the offline table: `HZK…` for Honda
                // Canada's `2HK…` written `H2K…` named no maker (found by audit).
                guard (!mandatoryRegion || VINDecoder.checkDigitMandatory(candidate) || (!knownWMI && candidateKnown))
                    && (i >= 3 || candidateKnown)
                else { continue }
                // Nor a VIN the position-7 rule dates after next year (`1HGCM8Z633A004325`, a
                // letter at position 7 with year code 3, is 2033; an audit got three such).
                let heavy = candidateIndex.map { WMITable.index.list[$0].noPosition7Rule } ?? true
                let consistent = candidate.withUnsafeBufferPointer { buf in
                    !VINDecoder.position7RuleHolds(buf, heavy: heavy)
                        || VINDecoder.position7Year(buf, latest: currentYear + 1) != nil
                }
                if consistent { found.append(candidate) }
            }
            candidate[i] = bytes[i]
        }
        if found.count > 1, !knownWMI {
            // An unknown manufacturer code repaired into a known one wins over a typo elsewhere.
            let known = found.filter { $0.withUnsafeBufferPointer { WMITable.lookupIndex($0) != nil } }
            if !known.isEmpty { found = known }
        }
        return found.count == 1 ? String(decoding: found[0], as: UTF8.self) : nil
    }

    /// Whether a 17-character VIN's serial ends in digits, as ISO 3779 has it: positions 14-17, or
    /// 15-17 for a small maker (position 3 is 9), whose code takes positions 12-14. A repair must
    /// leave them so: `1HGCMB2633A004S52` was suggested for `1HGCM82633A004S52` (found by audit).
    static func serialIsDigits(_ b: [UInt8]) -> Bool {
        let start = b[2] == UInt8(ascii: "9") ? 14 : 13
        return b[start..<17].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Why these bytes are a placeholder rather than a VIN, or nil.
    static func placeholderReason(_ b: [UInt8]) -> String? {
        // Nothing at all is no placeholder but a VIN of 0 characters (`vin.length`).
        guard !b.isEmpty else { return nil }
        let text = String(decoding: b, as: UTF8.self)
        // (And in the languages of the fleet files we read: German, French, Dutch, Spanish,
        // Italian; each but UNBEKANNT has an I or an O no VIN has.)
        for word in ["UNKNOWN", "UNKOWN", "NOVIN", "NONE", "N/A", "MISSING", "UNBEKANNT", "INCONNU", "ONBEKEND", "DESCONOCIDO", "SCONOSCIUTO"]
        where text.hasPrefix(word) {
            return "\(word)"
        }
        // `VIN UNKNOWN`, `VIN-TBA` (spaces and dashes are gone by now).
        for word in ["VINUNKNOWN", "VINTBA", "VINTBD", "VINPENDING"] where text.hasPrefix(word) { return word }
        for word in ["NULL", "TBD", "TBA", "TBC", "NA", "TEST", "XXX", "PENDING", "UNK", "FEHLT", "KEINE", "NV"] where text == word { return word }
        // Short too: `000`, `XXXX`, `00` are fillers, not VINs cut short.
        if b.count >= 2, b.count < 5, b.allSatisfy({ $0 == b[0] }) { return "all one character" }
        if b.count >= 5 {
            // All one character (position 9 may differ, e.g. a computed check digit).
            let first = b[0]
            if b.enumerated().allSatisfy({ $0.element == first || $0.offset == 8 }) { return "all one character" }
            if longestRun(b) >= 9 || (b.count < 9 && longestRun(b) == b.count) { return "a sequence" }
            if repeatsPattern(b) { return "a repeated pattern" }
            if longestRepeat(b) >= 8 { return "masked: one character 8 times in a row" }
        }
        return nil
    }

    /// The length of the longest run of one character (`WDBXXXXXXXXXXXXXX`, a masked VIN: no
    /// real VIN repeats a character 8 times).
    static func longestRepeat<C: RandomAccessCollection>(_ b: C) -> Int where C.Element == UInt8, C.Index == Int {
        var best = b.isEmpty ? 0 : 1, run = 1
        var i = b.startIndex + 1
        while i < b.endIndex {
            run = b[i] == b[i - 1] ? run + 1 : 1
            best = max(best, run)
            i += 1
        }
        return best
    }

    /// True when the bytes (12 or more) repeat a unit of 2 or 3 characters throughout
    /// (`12121212121212121`, `ABCABCABCABCABCAB`), position 9 aside.
    static func repeatsPattern<C: RandomAccessCollection>(_ b: C) -> Bool where C.Element == UInt8, C.Index == Int {
        guard b.count >= 12 else { return false }
        for unit in 2...3 {
            var repeats = true
            for i in unit..<b.count where i != 8 && i - unit != 8 && b[b.startIndex + i] != b[b.startIndex + i - unit] {
                repeats = false
                break
            }
            if repeats { return true }
        }
        return false
    }

    /// The length of the longest run, ascending or descending: digits 0-9 cycling to 0, or
    /// letters A-Z (skipping I, O, Q or not).
    static func longestRun<C: RandomAccessCollection>(_ b: C) -> Int where C.Element == UInt8, C.Index == Int {
        var best = 1, up = 1, down = 1
        var i = b.startIndex + 1
        while i < b.endIndex {
            up = follows(b[i - 1], b[i]) ? up + 1 : 1
            down = follows(b[i], b[i - 1]) ? down + 1 : 1
            best = max(best, up, down)
            i += 1
        }
        return best
    }

    static func follows(_ a: UInt8, _ b: UInt8) -> Bool {
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9"), A = UInt8(ascii: "A"), Z = UInt8(ascii: "Z")
        if a >= zero && a <= nine && b >= zero && b <= nine { return b == a + 1 || (a == nine && b == zero) }
        if a >= A && a < Z && b >= A && b <= Z {
            if b == a + 1 { return true }
            // Skipping the letters VINs never use: H→J, N→P, P→R.
            return (a == UInt8(ascii: "H") && b == UInt8(ascii: "J")) || (a == UInt8(ascii: "N") && b == UInt8(ascii: "P"))
                || (a == UInt8(ascii: "P") && b == UInt8(ascii: "R"))
        }
        return false
    }

    static func quoted(_ s: String) -> String { "\"\(s)\"" }
}

extension Character {
    /// The character for messages: printable ones as themselves, others as a code point.
    var debugLabel: String {
        if let a = asciiValue, a >= 0x21, a < 0x7F { return "'\(self)'" }
        // At least four hex digits, as code points are written: U+0001, U+00C9, U+200B.
        return unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }
}
