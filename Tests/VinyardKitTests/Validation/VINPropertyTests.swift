import Testing
@testable import VinyardKit

/// Property tests over random VINs from a seeded generator (deterministic).
@Suite struct VINPropertyTests {

    static let alphabet = Array("0123456789ABCDEFGHJKLMNPRSTUVWXYZ")

    static func randomVIN(_ rng: inout SplitMix64) -> String {
        VINEngine.withCheckDigit(String((0..<17).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }))
    }

    static func value(_ c: Character) -> Int {
        let s = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
        let v = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 7, 9, 2, 3, 4, 5, 6, 7, 8, 9]
        return v[s.firstIndex(of: c).map { s.distance(from: s.startIndex, to: $0) } ?? 0]
    }

    @Test func randomValidVINsPass() {
        var rng = SplitMix64(state: 42)
        for _ in 0..<2000 {
            let vin = Self.randomVIN(&rng)
            #expect(VINEngine.isValid(vin), "\(vin)")
            let bytes = Array(vin.utf8)
            #expect(bytes.withUnsafeBufferPointer { VINEngine.isValid($0) })
            #expect(VINEngine.analyze(vin).findings.allSatisfy { $0.code != .vinCheckDigit })
        }
    }

    @Test func changingOneCharacterFailsTheCheckDigit() {
        var rng = SplitMix64(state: 7)
        let weights = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]
        for _ in 0..<300 {
            let vin = Array(Self.randomVIN(&rng))
            for position in 0..<17 where position != 8 {
                for c in Self.alphabet where Self.value(c) != Self.value(vin[position]) {
                    var changed = vin
                    changed[position] = c
                    // Weight 10 and any value change: 11 is prime, so the sum mod 11 always changes.
                    _ = weights
                    #expect(!VINEngine.isValid(String(changed)), "\(String(changed))")
                }
            }
        }
    }

    @Test func analyzeNeverCrashesOnGarbage() {
        var rng = SplitMix64(state: 99)
        let chars = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ -!é\u{0}\n")
        for _ in 0..<2000 {
            let n = Int(rng.next() % 25)
            let s = String((0..<n).map { _ in chars[Int(rng.next() % UInt64(chars.count))] })
            let a = VINEngine.analyze(s)
            #expect(a.valid == !a.findings.contains { $0.severity == .error })
        }
    }
}
