import Testing
@testable import VinyardKit

/// The byte-level fast paths give exactly what the general (string) paths give.
@Suite struct NumberFastPathTests {
    /// The general path: the text with `.` as the decimal point, through `Double(String)`.
    static func reference(_ s: String, _ sep: DecimalSeparator) -> Double?? {
        guard let fast = ValueParser.simpleDecimal(s, decimal: sep) else { return .some(nil) }
        guard let d = Double(fast), d.isFinite else { return nil }
        return d == 0 ? 0 : d
    }

    static let edgeCases = [
        "0", "-0", "+0", "00", "0.0", "-0.000", "1", "9007199254740992", "9007199254740993", "9007199254740991.5",
        "123456789012345678", "1234567890123456789", "12345678901234567890", "0.1", "0.3", "2.675", "52,3547498",
        "4,8309215", "-3.7495758", "1.0000000000000000000001", "0.0000000000000000000001", "1.2345678901234567",
        "179769313486231570000000000000000", "000000000000000000000000012.5", "1,234", "1.234", "12,5", "1,2345",
        "+7", "-", "+", ".", "1.", ".5", "1..2", "1,2,3", "1.2.3", "12a", " 1", "1 ", "", "٣",
    ]

    @Test(arguments: edgeCases)
    func exactDecimalAgreesWithStrtod(_ s: String) {
        for sep in DecimalSeparator.allCases {
            let exact = s.utf8.withContiguousStorageIfAvailable { ValueParser.exactDecimal($0, decimal: sep) } ?? nil
            guard let exact else { continue }  // general path: unchanged
            let ref = Self.reference(s, sep)
            #expect(ref == .some(.some(exact)), "\(s) \(sep)")
            #expect(exact.sign == .plus || exact != 0, "\(s): no negative zero")
        }
    }

    @Test func randomDecimalsAgreeWithStrtod() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let intDigits = Int.random(in: 1...10, using: &rng)
            let fracDigits = Int.random(in: 0...12, using: &rng)
            var s = Bool.random(using: &rng) ? "-" : ""
            for _ in 0..<intDigits { s.append(Character(String(Int.random(in: 0...9, using: &rng)))) }
            if fracDigits > 0 {
                s += Bool.random(using: &rng) ? "." : ","
                for _ in 0..<fracDigits { s.append(Character(String(Int.random(in: 0...9, using: &rng)))) }
            }
            for sep in DecimalSeparator.allCases {
                let exact = s.utf8.withContiguousStorageIfAvailable { ValueParser.exactDecimal($0, decimal: sep) } ?? nil
                if let exact { #expect(Self.reference(s, sep) == .some(.some(exact)), "\(s) \(sep)") }
            }
        }
    }

    @Test(arguments: [
        "0", "-0", "+0", "7", "-7", "+7", "123456789012345678", "-123456789012345678", "1234567890123456789",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "", "-", "+", "1.0", "1,000", "12a",
        " 1", "0x10", "٣",
    ])
    func plainIntegerAgreesWithInt64(_ s: String) {
        let fast = s.utf8.withContiguousStorageIfAvailable { ValueParser.plainInteger($0) } ?? nil
        if let fast { #expect(Int64(s) == fast, "\(s)") }
        // And the public entry point is unchanged for every case.
        if let i = Int64(s) { #expect(ValueParser.parseInteger(s) == .success(i)) }
    }
}

@Suite struct TypedValueCacheTests {
    @Test func collisionsNeverMixValues() {
        let cache = TypedValueCache()
        var slots: [Int: String] = [:]
        // Far more keys than slots: every lookup either misses or returns its own value.
        for i in 0..<(TypedValueCache.size * 4) {
            let key = "value \(i)"
            let slot = cache.slot(for: key)
            if let hit = cache.value(at: slot, for: key) { #expect(hit == .success(.text(key))) }
            cache.store(.success(.text(key)), for: key, at: slot)
            slots[slot] = key
        }
        for (slot, key) in slots {
            #expect(cache.value(at: slot, for: key) == .success(.text(key)))
            #expect(cache.value(at: slot, for: key + "x") == nil)
        }
    }
}
