import Testing
@testable import VinyardKit

/// The make pick of multi-brand WMIs scans only the rules that allow the VIN's position 4
/// (``WMIRuleSet/byFirstCode``); it must pick exactly what a scan of every rule picks.
@Suite struct MakeRuleIndexTests {
    /// The make a scan of every compiled rule picks (the definition ``VINDecoder/makeIndex`` follows).
    static func reference(_ vin: [UInt8], set: WMIRuleSet, modelYear: Int?) -> Int? {
        let code = WMITable.code
        var descriptor = [UInt8](repeating: 36, count: 14)
        for i in 0..<5 { descriptor[i] = code[Int(vin[3 + i])] }
        for i in 6..<14 { descriptor[i] = code[Int(vin[3 + i])] }
        let n = set.makes.count
        var inYear = [Int](repeating: 0, count: n), any = [Int](repeating: 0, count: n)
        var anyInYear = false, anyMatch = false
        for rule in set.rules where rule.masks.count <= WMIRuleSet.flatWidth {
            let matches = rule.masks.enumerated().allSatisfy { i, mask in
                (mask & ~(1 << 63)) >> UInt64(min(descriptor[i], 63)) & 1 != 0
            }
            guard matches else { continue }
            any[rule.make] += rule.masks.count
            anyMatch = true
            if let modelYear, rule.fromYear <= modelYear, modelYear <= rule.toYear {
                inYear[rule.make] += rule.masks.count
                anyInYear = true
            }
        }
        guard anyMatch else { return nil }
        let votes = anyInYear ? inYear : any
        var best: Int?
        for m in 0..<n where votes[m] > 0 {
            if let b = best, votes[m] < votes[b] || (votes[m] == votes[b] && set.makes[m] >= set.makes[b]) { continue }
            best = m
        }
        return best
    }

    @Test func bucketedScanPicksWhatAFullScanPicks() throws {
        let ix = WMITable.index
        let alphabet = Array("0123456789ABCDEFGHJKLMNPRSTUVWXYZ*".utf8)  // `*`: outside the table
        var rng = SplitMix64(seed: 42)
        var multiBrand = 0, compared = 0, matched = 0
        for (entryIndex, entry) in ix.list.enumerated() where entry.makes.count > 1 && entry.code.count == 3 {
            guard let set = ix.ruleSets[entryIndex] else { continue }
            multiBrand += 1
            for _ in 0..<200 {
                var vin = Array(entry.code.utf8)
                for _ in 3..<17 { vin.append(alphabet[rng.next(below: alphabet.count)]) }
                // Half of them copy a rule's first allowed characters, so that rules do match.
                if rng.next(below: 2) == 0, let rule = set.rules.randomElement(using: &rng) {
                    for (i, mask) in rule.masks.prefix(5).enumerated() where mask != ~0 {
                        if let c = (0..<36).first(where: { mask >> UInt64($0) & 1 != 0 }) {
                            vin[3 + i] = c < 10 ? UInt8(48 + c) : UInt8(55 + c)
                        }
                    }
                }
                let year: Int? = rng.next(below: 4) == 0 ? nil : 1985 + rng.next(below: 42)
                let expected = Self.reference(vin, set: set, modelYear: year)
                let got = vin.withUnsafeBufferPointer { VINDecoder.makeIndex($0, set: set, modelYear: year) }
                #expect(got == expected, "\(String(decoding: vin, as: UTF8.self)) year \(year.map(String.init) ?? "nil")")
                compared += 1
                if expected != nil { matched += 1 }
            }
        }
        #expect(multiBrand > 10)
        // The comparison means something only if many picks are made by rules.
        #expect(matched > compared / 10, "\(matched) of \(compared) VINs matched a rule")
    }
}
