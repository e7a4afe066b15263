import Testing
@testable import VinyardKit

/// The cached/fast paths (``VINChecker``) must agree with ``VINEngine/analyze(_:currentYear:)``.
@Suite struct VINCheckerTests {
    static let alphabet = Array("0123456789ABCDEFGHJKLMNPRSTUVWXYZ".utf8)
    static let wmis = ["1HG", "1C4", "1C6", "1FT", "3C6", "2C4", "JN1", "WVW", "KNA", "1A9", "LRW", "9ZZ", "SAL", "5YJ"]

    static func inputs() -> [String] {
        var rng = SplitMix64(state: 2024)
        var out: [String] = []
        for i in 0..<6000 {
            var b = Array(wmis[Int(rng.next() % UInt64(wmis.count))].utf8)
            // A few shared descriptors so the make cache is hit as well as missed.
            let shared = i % 3 == 0
            for j in 3..<17 {
                let r = shared && j < 11 ? UInt64(j * 7 + i % 5) : rng.next()
                b.append(alphabet[Int(r % UInt64(alphabet.count))])
            }
            var vin = VINEngine.withCheckDigit(String(decoding: b, as: UTF8.self))
            switch rng.next() % 8 {
            case 0: vin = String(vin.dropLast())  // length
            case 1: var c = Array(vin); c[Int(rng.next() % 17)] = "O"; vin = String(c)  // illegal letter
            case 2: var c = Array(vin); c[8] = c[8] == "1" ? "2" : "1"; vin = String(c)  // check digit
            case 3: vin = vin.lowercased().prefix(5) + "-" + vin.dropFirst(5)  // normalization
            case 4: var c = Array(vin); c[9] = "U"; vin = String(c)  // year code
            default: break
            }
            out.append(vin)
        }
        return out + ["", "UNKNOWN", "11111111111111111", "ABCDEFGHJKLMNPRST", "1HGCM82633A004352", "WVWZZZ1JZXW000001"]
    }

    @Test func checkerAgreesWithAnalyze() {
        let checker = VINChecker()
        for year in [2025, 2039] {
            for vin in Self.inputs() {
                let full = VINEngine.analyze(vin, currentYear: year)
                #expect(checker.analyze(vin, currentYear: year) == full, "\(vin)")
                let c = checker.check(vin, currentYear: year)
                #expect(c.valid == full.valid && c.findings == full.findings, "\(vin)")
                #expect(c.make == full.make && c.manufacturer == full.manufacturer && c.country == full.country, "\(vin)")
                #expect(c.modelYear == full.modelYear && c.modelYears == full.modelYears, "\(vin)")
            }
        }
    }

    @Test func checkerRepeatsItself() {
        // The same VIN twice (cache miss, then hit) gives the same answer.
        let checker = VINChecker()
        for vin in ["1C4PJMAK2CW184491", "3C6JD7CT4CG104778", "1D7RB1CT1BS488952"] {
            #expect(checker.check(vin, currentYear: 2025) == checker.check(vin, currentYear: 2025))
            #expect(checker.check(vin, currentYear: 2025).make == VINEngine.analyze(vin, currentYear: 2025).make)
        }
    }
}
