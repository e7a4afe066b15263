import Foundation
import Testing
@testable import VinyardKit

/// The row JSON kept in `duplicates` is written straight into a string's storage sized by a first
/// pass; it must be byte for byte what the plain appending writer gives, and valid JSON.
@Suite struct StoreJSONTests {
    static let texts = [
        "", "Ford", "Škoda Octavia", "a \"quoted\" word", "back\\slash", "line\nbreak\r\n", "tab\there",
        "\u{01}\u{1F}\u{7F}", "😀 emoji", "Zürich", String(repeating: "x", count: 300), "50/50 \\\"mix\"\\",
    ]

    static func randomValue(_ rng: inout SplitMix64) -> FieldValue? {
        switch rng.next() % 6 {
        case 0: nil
        case 1: .text(texts[Int(rng.next() % UInt64(texts.count))])
        case 2: .integer(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
        case 3: .real(Double(Int64(bitPattern: rng.next()) % 10_000_000) / 1000)
        case 4: .real([0, -0.0, 1e300, -1e-300, .infinity, .nan, 52.3547498, 4.8339215][Int(rng.next() % 8)])
        default: .bool(rng.next() % 2 == 0)
        }
    }

    /// `StoreJSON.values` as it was first written, through `[UInt8]` appends: the reference.
    static func valuesByAppending(_ values: [FieldValue?], names: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, name) in names.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            StoreJSON.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            StoreJSON.appendFieldValue(i < values.count ? values[i] : nil, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    @Test func fastWriterMatchesTheAppendingOne() throws {
        var rng = SplitMix64(seed: 42)
        let names = ["vin", "make", "na\"me", "ünit", "tab\tname", "notes"] + (0..<35).map { "field_\($0)" }
        for round in 0..<2_000 {
            let count = Int(rng.next() % UInt64(names.count + 3))  // also fewer or more values than names
            let values = (0..<count).map { _ in Self.randomValue(&rng) }
            let fast = StoreJSON.values(values, names: names)
            let plain = Self.valuesByAppending(values, names: names)
            #expect(fast == plain, "round \(round)")
            if fast != plain { return }
            let object = try JSONSerialization.jsonObject(with: Data(fast.utf8)) as? [String: Any]
            #expect(object?.count == names.count)
        }
        #expect(StoreJSON.values([], names: []) == "{}")
    }
}
