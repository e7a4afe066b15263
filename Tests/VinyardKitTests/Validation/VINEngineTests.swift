import Testing
@testable import VinyardKit

@Suite struct VINEngineTests {
    static let samples = [
        "1FTFW1E57KFA14352", "1HGCV1F52MA000123", "1C4PJMAK2CW184491", "2HKRM3H38EH550410",
        "1FTFW1E5XPFB12346", "KNAFU4A2XD5739551", "JM1GJ1W65E1143959", "4JGBB86E06A006500",
        "1HGCM82633A004352",
    ]

    @Test(arguments: samples) func samplesAreValid(vin: String) {
        let a = VINEngine.analyze(vin, currentYear: 2025)
        #expect(a.valid, "\(a.findings)")
        #expect(a.findings.isEmpty)
        #expect(VINEngine.isValid(vin))
        #expect(a.expectedCheckDigit == Array(vin)[8])
    }

    @Test func normalizes() {
        #expect(VINEngine.normalize(" 1hg-cm8 2633a004352\t") == "1HGCM82633A004352")
        // Dashes of every kind and invisible characters pasted from documents (found by review).
        for separator in ["\u{2014}", "\u{2011}", "\u{2012}", "\u{2212}", "\u{200B}", "\u{FEFF}", "\u{FF0D}", "\u{2060}"] {
            let vin = "1hg\(separator)CM82633A004352"
            #expect(VINEngine.normalize(vin) == "1HGCM82633A004352", "\(vin.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(VINEngine.normalize(VINEngine.normalize(vin)) == VINEngine.normalize(vin))
        }
        #expect(VINEngine.analyze("1hg cm82633a-004352").valid)
    }

    @Test func checkDigit() {
        #expect(VINEngine.checkDigit(for: "1M8GDM9AXKP042788") == "X")
        #expect(VINEngine.checkDigit(for: "1HGCM82633A004352") == "3")
        #expect(VINEngine.checkDigit(for: "1HGCM82633A00435") == nil)
        #expect(VINEngine.checkDigit(for: "1HGCM82633A00435O") == nil)
        #expect(VINEngine.withCheckDigit("1HGCM826?3A004352") == "1HGCM826?3A004352")
        #expect(VINEngine.withCheckDigit("1HGCM826Z3A004352") == "1HGCM82633A004352")
    }

    @Test func decodesHonda() {
        let a = VINEngine.analyze("1HGCM82633A004352", currentYear: 2025)
        #expect(a.region == "North America")
        #expect(a.country == "United States")
        #expect(a.make == "Honda")
        #expect(a.manufacturer == "American Honda Motor Co., Inc.")
        #expect(a.modelYear == 2003)
        #expect(a.modelYears == [2003])
        #expect(a.plant == "A")
        #expect(a.serial == "004352")
    }

    @Test func lengthFinding() {
        let a = VINEngine.analyze("1HGCM82633A00435")
        #expect(!a.valid)
        #expect(a.findings.contains { $0.code == .vinLength && $0.severity == .error && $0.field == "vin" })
    }

    @Test(arguments: ["1HGCM82633A0O4352", "1HGCM82633A00435!", "1HGCM8263IA004352"])
    func characterFinding(vin: String) {
        let a = VINEngine.analyze(vin)
        #expect(a.findings.contains { $0.code == .vinCharacters && $0.severity == .error })
        #expect(!a.valid)
    }

    @Test func illegalLetterIsRepaired() {
        let a = VINEngine.analyze("1HGCM82633A0O4352")
        #expect(a.suggestion == "1HGCM82633A004352")
    }

    @Test func northAmericanCheckDigitIsError() {
        let a = VINEngine.analyze("1HGCM82643A004352")
        let f = a.findings.first { $0.code == .vinCheckDigit }
        #expect(f?.severity == .error)
        #expect(a.expectedCheckDigit == "3")
        #expect(f?.message.contains("expected 3") == true)
    }

    @Test func chineseCheckDigitIsError() {
        // A valid Chinese VIN, then a wrong check digit.
        let good = VINEngine.withCheckDigit("LRW3E7FA0LC000001")
        #expect(VINEngine.analyze(good).valid)
        var bytes = Array(good)
        bytes[8] = bytes[8] == "1" ? "2" : "1"
        let a = VINEngine.analyze(String(bytes))
        #expect(a.findings.first { $0.code == .vinCheckDigit }?.severity == .error)
    }

    @Test func europeanFillerIsWarning() {
        let a = VINEngine.analyze("WVWZZZ1JZXW000001", currentYear: 2025)
        #expect(a.valid)
        #expect(a.findings.first { $0.code == .vinCheckDigit }?.severity == .warning)
        #expect(a.suggestion == nil)
        #expect(a.make == "Volkswagen")
        #expect(a.country == "Germany")
        #expect(a.region == "Europe")
    }

    /// A repair never puts a letter into positions 13-17 (49 CFR 565: numeric for North American
    /// cars; ISO 3779: 14-17): a Ford's wrong check digit is not "probably" a Z at position 13,
    /// the one substitution that would fix it.
    @Test func repairKeepsTheSerialDigits() {
        let a = VINEngine.analyze("1FTFW1E57KFA24302", currentYear: 2025)
        #expect(a.findings.first { $0.code == .vinCheckDigit }?.severity == .error)
        #expect(a.suggestion == nil)
        // A letter typed into the serial is still repaired.
        #expect(VINEngine.analyze("1FTFW1E57KFA143S2").suggestion == "1FTFW1E57KFA14352")
        // Position 12 may take a letter: Ford writes them there (an S typed as 5 is repaired).
        #expect(VINEngine.analyze("1FTEW1EP9JF814352", currentYear: 2026).suggestion == "1FTEW1EP9JFB14352")
        #expect(VINEngine.analyze("1FTEW1EP3JF214352", currentYear: 2026).suggestion == "1FTEW1EP3JFZ14352")
    }

    /// O and Q, never a VIN's first character, name no region (O read as Asia); a small maker's
    /// code (position 3 is 9) is named with positions 12-14 in its warning.
    @Test func illegalFirstCharactersAndSmallMakerCodes() {
        for vin in ["OHGCM82633A004352", "QHGCM82633A004352", "IHGCM82633A004352"] {
            #expect(VINEngine.analyze(vin, currentYear: 2026).region == nil, "\(vin)")
        }
        let small = VINEngine.analyze("1G9AB12C4JA999123", currentYear: 2026)
        #expect(small.findings.first { $0.code == .vinWMIUnknown }?.message.contains("manufacturer code 1G9999 ") == true,
                "\(small.findings.map(\.message))")
    }

    /// A repair keeps position 10 a model-year code: `2` is not "probably" a `Z`, nor `O`/`Q`
    /// a `0` (U, Z and 0 are never year codes), however well the check digit then fits (found
    /// by review: 139 of 1,367 random suggestions were themselves invalid).
    @Test func repairKeepsTheModelYearCode() {
        for vin in ["1HGCM82622A004352", "1HGCM8269OA004352", "1HGCM8269QA004352"] {
            let a = VINEngine.analyze(vin, currentYear: 2026)
            #expect(a.suggestion == nil, "\(vin): \(a.suggestion ?? "")")
            if let s = a.suggestion { #expect(VINEngine.analyze(s, currentYear: 2026).valid) }
        }
    }

    @Test func typoRepair() {
        // 2 typed as Z at position 7.
        let a = VINEngine.analyze("1HGCM8Z633A004352")
        #expect(a.suggestion == "1HGCM82633A004352")
        #expect(a.findings.first { $0.code == .vinCheckDigit }?.suggestion == "1HGCM82633A004352")
        #expect(a.findings.first { $0.code == .vinCheckDigit }?.message.contains("probable VIN 1HGCM82633A004352") == true)
        // S typed for 5.
        #expect(VINEngine.analyze("1FTFW1E57KFA143S2").suggestion == "1FTFW1E57KFA14352")
        // Outside North America and China the wrong digit is a warning, and a single typo that
        // explains it is still reported (DESIGN.md: a check-digit failure reports the probable VIN).
        let mazda = VINEngine.analyze("JM1GJ1W6SE1143959")
        #expect(mazda.suggestion == "JM1GJ1W65E1143959")
        #expect(mazda.findings.first { $0.code == .vinCheckDigit }?.severity == .warning)
        // Not on European, South American or Indian VINs, whose makers often never compute the digit:
        // a substitution that happens to fit is no typo (real VINs from an audit, all suggested wrongly),
        // unless it turns a letter in the serial's last four positions (digits by ISO 3779) into a digit.
        #expect(VINEngine.analyze("WBA8E9G52HNU1Z345", currentYear: 2026).suggestion == "WBA8E9G52HNU12345")
        for vin in ["VF1RFB0085B123456", "WVWZZZ3CZFE824021", "WDB4633461X203172", "92TA92DZXRMC09006", "MD2B65GX9PCF91987", "95VCB1K589M017683"] {
            let a = VINEngine.analyze(vin, currentYear: 2026)
            #expect(a.suggestion == nil, "\(vin): \(a.suggestion ?? "")")
            #expect(a.findings.first { $0.code == .vinCheckDigit }?.severity == .warning, "\(vin)")
            #expect(a.findings.first { $0.code == .vinCheckDigit }?.message.contains("optional") == true, "\(vin)")
        }
        // A repair never turns a serial digit at positions 14-17 into a letter: these are wrong
        // check digits, not typos (8 → B would have "fixed" both).
        #expect(VINEngine.analyze("1C4AEHRK0JC000896").suggestion == nil)
        #expect(VINEngine.analyze("2HKCWJPW0CR001798").suggestion == nil)
        // Nor does it turn a known manufacturer code into an unknown one: S → 5 would pass the
        // check digit here, but 5AL is no WMI (Land Rover's SAL is).
        let landRover = VINEngine.analyze("SALVA2BG1CH610186")
        #expect(landRover.manufacturer != nil)
        #expect(VINEngine.analyze("5ALVA2BG1CH610186").manufacturer == nil)
        #expect(landRover.suggestion == nil)
        #expect(landRover.findings.first { $0.code == .vinCheckDigit }?.message.contains("5AL") == false)
        // A typo that made the WMI unknown is still repaired back to the known one.
        #expect(VINEngine.analyze("IHGCM82633A004352").suggestion == "1HGCM82633A004352")
        #expect(VINEngine.analyze("1HGCM82633A004352").manufacturer != nil)
    }

    @Test func noRepairWhenAmbiguousOrAbsent() {
        // Position 9 changed to another digit: no confusion pair explains it.
        let a = VINEngine.analyze("1HGCM82643A004352")
        #expect(a.suggestion == nil)
    }

    @Test(arguments: ["11111111111111111", "00000000000000000", "12345678901234567", "ABCDEFGHJKLMNPRST",
                      "ABCDEFGHIJKLMNOPQ", "UNKNOWN", "UNKNOWNUNKNOWN123", "NONE"])
    func placeholders(vin: String) {
        let a = VINEngine.analyze(vin)
        // The placeholder finding alone: not also vin.length, vin.characters, vin.check_digit or
        // vin.model_year for what is not a VIN at all.
        #expect(a.findings.map(\.code) == [.vinPlaceholder])
        #expect(a.findings.first?.severity == .error)
        // Nothing is decoded from what is not a VIN.
        #expect(a.region == nil && a.country == nil && a.manufacturer == nil && a.modelYears.isEmpty && a.modelYear == nil)
        #expect(a.expectedCheckDigit == nil && a.plant == nil && a.serial == nil)
        #expect(!a.valid)
        #expect(a.suggestion == nil)
    }

    /// The one-pass placeholder check of the fast path agrees with the scans it stands for, on
    /// VINs drawn from small alphabets (so runs, repeats and patterns are common) and on crafted ones.
    @Test func fastPlaceholderCheckAgreesWithTheScans() {
        var rng = SystemRandomNumberGenerator()
        let alphabets: [[UInt8]] = [Array("0123456789".utf8), Array("ABCDEFGHJKLMNPRSTUVWXYZ".utf8), Array("0189".utf8),
                                    Array("HJNPR".utf8), Array("AB1".utf8)]
        var crafted = ["98765432109876543", "ZYXWVUTSRPNMLKJHG", "12121212121212121", "ABCABCABCABCABCAB",
                       "WDBXXXXXXXXXXXXXX", "1HGCM82633A004352", "WDB1234561A000000", "X0123456789ZZZZZZ",
                       "ABCDEFGHJKLMNPRST", "1FAA6V0EXGR000000"].map { Array($0.utf8) }
        for _ in 0..<20000 {
            let alphabet = alphabets[Int.random(in: 0..<alphabets.count, using: &rng)]
            crafted.append((0..<17).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
        }
        for vin in crafted {
            let first = vin[0]
            let allSame = (1..<17).allSatisfy { $0 == 8 || vin[$0] == first }
            let expected = allSame || VINEngine.longestRun(vin) >= 9 || VINEngine.repeatsPattern(vin)
                || VINEngine.longestRepeat(vin) >= 8
            let fast = vin.withUnsafeBufferPointer { VINEngine.isPlaceholder17($0) }
            #expect(fast == expected, "\(String(decoding: vin, as: UTF8.self))")
            if fast != expected { break }
        }
    }

    @Test func allOnesPassesCheckDigitButIsPlaceholder() {
        #expect(VINEngine.isValid("11111111111111111"))
        #expect(!VINEngine.analyze("11111111111111111").valid)
    }

    @Test func modelYearCodeFinding() {
        // North America: error. Europe: warning.
        let na = VINEngine.withCheckDigit("1HGCM8263UA004352")
        #expect(VINEngine.analyze(na).findings.first { $0.code == .vinModelYear }?.severity == .error)
        let eu = VINEngine.analyze("WDB124082ZA123456")
        #expect(eu.findings.first { $0.code == .vinModelYear }?.severity == .warning)
        #expect(eu.modelYear == nil)
        #expect(eu.modelYears.isEmpty)
    }

    @Test func unknownWMI() {
        let vin = VINEngine.withCheckDigit("9ZZAA11A0JA000001")
        let a = VINEngine.analyze(vin)
        #expect(a.findings.contains { $0.code == .vinWMIUnknown && $0.severity == .warning })
        #expect(a.valid)
    }

    @Test func modelYearRules() {
        // Position 7 digit → 1980-2009; letter → 2010-2039.
        #expect(VINDecoder.modelYear(for: "1HGCM82633A004352", currentYear: 2025) == 2003)
        #expect(VINDecoder.modelYear(for: "1FTFW1E57KFA14352", currentYear: 2025) == 2019)
        #expect(VINDecoder.modelYear(for: VINEngine.withCheckDigit("1FTFW18500KFA1435"), currentYear: 2025) == nil)
        #expect(VINDecoder.modelYear(for: VINEngine.withCheckDigit("1G1JC5240T7000001"), currentYear: 2025) == 1996)
        // Never later than next year: a letter at position 7 with code Y (2030) falls back to 2000.
        #expect(VINDecoder.modelYear(for: VINEngine.withCheckDigit("1G1JC5E40Y7000001"), currentYear: 2025) == 2000)
        // Outside North America: the latest candidate not later than next year.
        #expect(VINDecoder.modelYear(for: "KNAFU4A2XD5739551", currentYear: 2025) == 2013)
        #expect(VINDecoder.modelYear(for: "WVWZZZ1JZXW000001", currentYear: 2025) == 1999)
        // Code T is 1996 or 2026: 2026 only once it is next year.
        #expect(VINDecoder.modelYear(for: "WVWZZZ1JZTW000001", currentYear: 2024) == 1996)
        #expect(VINDecoder.modelYear(for: "WVWZZZ1JZTW000001", currentYear: 2025) == 2026)
        #expect(VINDecoder.modelYear(for: "WVWZZZ1JZSW000001", currentYear: 2023) == 1995)
        #expect(VINDecoder.modelYear(for: "WVWZZZ1JZSW000001", currentYear: 2024) == 2025)
        #expect(VINDecoder.modelYears(forCode: "A", currentYear: 2025) == [1980, 2010])
        #expect(VINDecoder.modelYears(forCode: "A", currentYear: 2039) == [1980, 2010, 2040])
        #expect(VINDecoder.modelYears(forCode: "Y", currentYear: 2025) == [2000])
        #expect(VINDecoder.modelYears(forCode: "1", currentYear: 2025) == [2001])
        #expect(VINDecoder.modelYears(forCode: "Z", currentYear: 2025) == [])
        #expect(VINDecoder.modelYears(forCode: "S", currentYear: 2025) == [1995, 2025])
        #expect(VINDecoder.modelYear(for: "KNAFU4A2XS5739551", currentYear: 2025) == 2025)
        #expect(VINDecoder.modelYear(for: "KNAFU4A2XT5739551", currentYear: 2025) == 2026)
        #expect(VINDecoder.modelYear(for: "KNAFU4A2XV5739551", currentYear: 2025) == 1997)
        // Europe: a right check digit and a digit at position 7 (a model code there) still give the
        // latest candidate; Korea keeps the rule.
        #expect(VINEngine.analyze("WDD20500XKR456789").valid)
        #expect(VINDecoder.modelYear(for: "WDD20500XKR456789", currentYear: 2026) == 2019)
        #expect(VINDecoder.modelYear(for: VINEngine.withCheckDigit("KNAFU4120V5739551"), currentYear: 2025) == 1997)
        #expect(VINDecoder.modelYear(for: VINEngine.withCheckDigit("KNAFU4120E5739551"), currentYear: 2025) == 1984)
    }

    @Test func noPosition7RulesSkipPosition7Rule() {
        // Peterbilt with a digit at position 7 and code E: 2014, not 1984.
        let vin = VINEngine.withCheckDigit("1XPWD40X0ED215307")
        #expect(VINDecoder.modelYear(for: vin, currentYear: 2025) == 2014)
    }

    @Test func lowVolumeSerial() {
        let vin = VINEngine.withCheckDigit("1A9AB12C0JA123456")
        let a = VINEngine.analyze(vin)
        #expect(a.serial == "456")
        #expect(a.plant == "A")
    }

    @Test func regionsAndCountries() {
        #expect(VINEngine.analyze("JM1GJ1W65E1143959").country == "Japan")
        #expect(VINEngine.analyze("2HKRM3H38EH550410").country == "Canada")
        #expect(VINEngine.analyze(VINEngine.withCheckDigit("3VWFE21C04M000001")).country == "Mexico")
        #expect(VINEngine.analyze(VINEngine.withCheckDigit("SALGS2SE0LA000001")).country == "United Kingdom")
        #expect(VINEngine.analyze(VINEngine.withCheckDigit("VF1RFB00X60000001")).make == "Renault")
        #expect(VINDecoder.region(forFirstCharacter: "6") == "Oceania")
        // SAE's newer allocation: H is China (check digit mandatory), 7 the United States, and
        // 9X-92 no longer Trinidad and Tobago.
        let chinese = VINEngine.analyze("HE9XR1C40PS083871", currentYear: 2026)
        #expect(chinese.country == "China")
        #expect(chinese.region == "Asia")
        #expect(chinese.findings.first { $0.code == .vinCheckDigit }?.severity == .error)
        #expect(VINEngine.analyze("HE9XR1C48PS083871", currentYear: 2026).findings.allSatisfy { $0.code != .vinCheckDigit })
        #expect(VINEngine.analyze(VINEngine.withCheckDigit("7SAYGDEE0NF000001")).country == "United States")
        #expect(VINEngine.analyze("92TA92DZXRMC09006", currentYear: 2026).country != "Trinidad and Tobago")
        #expect(VINEngine.analyze(VINEngine.withCheckDigit("UU1HSDJ0X4G000001")).country == "Romania")
        #expect(VINDecoder.region(forFirstCharacter: "9") == "South America")
        #expect(VINDecoder.region(forFirstCharacter: "A") == "Africa")
        #expect(VINDecoder.region(forFirstCharacter: "L") == "Asia")
    }

    @Test func multiBrandWMIResolvesMake() {
        #expect(VINEngine.analyze("1C4PJMAK2CW184491").make == "Jeep")
        #expect(VINDecoder.makes(forWMI: "1C4").contains("Dodge"))
        #expect(VINDecoder.makes(forWMI: "1HG") == ["Honda"])
        #expect(VINDecoder.makes(forWMI: "XXX").isEmpty)
    }

    @Test func makeMatching() {
        #expect(VINDecoder.makeMatches(declared: "HONDA", vin: "1HGCM82633A004352") == true)
        #expect(VINDecoder.makeMatches(declared: "Toyota", vin: "1HGCM82633A004352") == false)
        #expect(VINDecoder.makeMatches(declared: "VW", vin: "WVWZZZ1JZXW000001") == true)
        #expect(VINDecoder.makeMatches(declared: "Mercedes", vin: "4JGBB86E06A006500") == true)
        #expect(VINDecoder.makeMatches(declared: "merc", vin: "4JGBB86E06A006500") == true)
        #expect(VINDecoder.makeMatches(declared: "Benz", vin: "4JGBB86E06A006500") == true)
        #expect(VINDecoder.makeMatches(declared: "Chevy", vin: VINEngine.withCheckDigit("1G1JC5240T7000001")) == true)
        #expect(VINDecoder.makeMatches(declared: "Dodge", vin: "1C4PJMAK2CW184491") == true)
        #expect(VINDecoder.makeMatches(declared: "Jeep", vin: "1C4PJMAK2CW184491") == true)
        #expect(VINDecoder.makeMatches(declared: "Land-Rover", vin: VINEngine.withCheckDigit("SALGS2SE0LA000001")) == true)
        #expect(VINDecoder.makeMatches(declared: "Kia", vin: VINEngine.withCheckDigit("9ZZAA11A0JA000001")) == nil)
    }
}
