import Testing

@testable import VinyardKit

@Suite struct KeyTableTests {
    private func entry(_ n: Int) -> KeyTracker.Entry {
        KeyTracker.Entry(valuesHash: UInt64(n) &* 31, mask: UInt64(n & 0xFF), input: Int32(n % 7), line: Int32(n))
    }

    private func hashes(count: Int) -> [UInt64] {
        var rng = SplitMix64(seed: 42)
        // Hashes 0 and 1 share a stored form: only one of them is used here.
        var hashes: [UInt64] = [0, 2, UInt64.max, 1 << 56, 0xFF00_0000_0000_0000]
        for _ in 0..<count { hashes.append(rng.next() | 2) }
        return hashes
    }

    /// All in memory (growth of the parts), and with a live limit that moves most keys to spilled
    /// runs: every key is found with its entry, an update of a spilled key is kept, absent keys are
    /// absent.
    @Test(arguments: [KeyTable.defaultLiveLimit, 5_000, 7])
    func keepsEveryKeyThroughGrowthAndSpills(liveLimit: Int) throws {
        var table = KeyTable(liveLimit: liveLimit)
        let hashes = hashes(count: liveLimit == 7 ? 3_000 : 200_000)
        for (n, h) in hashes.enumerated() {
            let old = try table.upsert(h) { _ in entry(n) }
            #expect(old == nil)
        }
        #expect(table.count == hashes.count)
        for (n, h) in hashes.enumerated() {
            let line = try table.entry(h)?.line
            #expect(line == Int32(n), "hash \(h)")
            if line != Int32(n) { break }
        }
        #expect(try table.entry(3) == nil)
        #expect(try table.entry(0xFF00_0000_0000_0001) == nil)
        // Replacing entries (the earliest were spilled first) keeps the count and the new values.
        for i in [1, 10, hashes.count / 2, hashes.count - 1] {
            let old = try table.upsert(hashes[i]) { _ in entry(9_000_000 + i) }
            #expect(old?.line == Int32(i))
        }
        #expect(table.count == hashes.count)
        for i in [1, 10, hashes.count / 2, hashes.count - 1] {
            #expect(try table.entry(hashes[i])?.line == Int32(9_000_000 + i))
            #expect(try table.entry(hashes[i])?.valuesHash == UInt64(9_000_000 + i) &* 31)
        }
        #expect(try table.entry(hashes[2])?.line == 2)
    }

    /// A tracker that spills after a few keys reports exactly what one that keeps every key in
    /// memory does, over many duplicates and conflicts.
    @Test func spillingTrackerAgreesWithInMemoryOne() throws {
        var reference = KeyTracker()
        var spilling = KeyTracker(liveKeyLimit: 37)
        var rng = SplitMix64(seed: 7)
        var duplicates = 0, conflicts = 0
        for line in 1...6_000 {
            let key = "KEY\(rng.next() % 1_500)"
            // A few fields, some empty, values from a small set so equal and different records both occur.
            let fields = (0..<4).map { _ -> UInt64 in
                let r = rng.next() % 5
                return r == 0 ? 0 : r
            }
            let signature = KeyTracker.Signature(fieldHashes: fields)
            let a = try reference.observe(key: key, signature: signature, input: line % 3, line: line)
            let b = try spilling.observe(key: key, signature: signature, input: line % 3, line: line)
            #expect(a == b, "line \(line) key \(key)")
            if a != b { break }
            if case .duplicate(let conflict, _, _, _) = a {
                duplicates += 1
                if conflict { conflicts += 1 }
            }
        }
        #expect(reference.count == spilling.count)
        // The stream exercised both outcomes.
        #expect(duplicates > 3_000)
        #expect(conflicts > 1_000)
    }

    /// A repeated key conflicts exactly when a field both records fill differs, as an import
    /// compares them, also when the later record fills fewer fields (it was a conflict whenever
    /// any earlier value differed, emptied ones included), in memory and through spilled runs.
    @Test(arguments: [KeyTable.defaultLiveLimit, 29])
    func conflictsCompareOnlyFieldsBothFill(liveLimit: Int) throws {
        var tracker = KeyTracker(liveKeyLimit: liveLimit)
        var rng = SplitMix64(seed: 11)
        // Per field, three values whose hashes differ in their top byte (the fingerprint).
        let pool: [[UInt64]] = (0..<6).map { f in (0..<3).map { v in (UInt64(f * 3 + v + 1) << 56) | (rng.next() >> 8) | 1 } }
        var last: [String: [UInt64]] = [:]
        var fewerFieldCases = 0, conflicts = 0
        for line in 1...8_000 {
            let key = "K\(rng.next() % 700)"
            let fields = (0..<6).map { f -> UInt64 in
                let r = rng.next() % 6
                return r >= 3 ? 0 : pool[f][Int(r)]
            }
            let outcome = try tracker.observe(key: key, signature: KeyTracker.Signature(fieldHashes: fields), input: 0, line: line)
            if let earlier = last[key] {
                let expected = zip(earlier, fields).contains { $0 != 0 && $1 != 0 && $0 != $1 }
                guard case .duplicate(let conflict, _, _, let fieldsMask) = outcome else {
                    Issue.record("line \(line): \(key) not a duplicate")
                    break
                }
                #expect(conflict == expected, "line \(line): \(earlier) then \(fields)")
                // The differing fields named are those both fill with different values (the
                // fingerprints of these small values never collide).
                let named = (0..<fields.count).filter { earlier[$0] != 0 && fields[$0] != 0 && earlier[$0] != fields[$0] }
                    .reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
                #expect(conflict ? fieldsMask == named : fieldsMask == 0, "line \(line)")
                if conflict != expected { break }
                if zip(earlier, fields).contains(where: { $0 != 0 && $1 == 0 }) { fewerFieldCases += 1 }
                if conflict { conflicts += 1 }
            } else {
                #expect(outcome == .new)
            }
            last[key] = fields
        }
        #expect(fewerFieldCases > 2_000)
        #expect(conflicts > 1_000)
    }

    /// Without a writable directory for the runs, the table keeps every key in memory instead of
    /// failing, and the run keys of an import say there is no more room (the import then builds
    /// the real key index and goes on with it).
    @Test func noSpillDirectoryKeepsWorking() throws {
        let missing = "/nonexistent-vinyard-test-dir"
        var table = KeyTable(liveLimit: 5, spillDirectory: missing)
        let hashes = hashes(count: 100)
        for (n, h) in hashes.enumerated() { try table.upsert(h) { _ in entry(n) } }
        #expect(table.count == hashes.count)
        #expect(table.liveLimit == .max)
        for (n, h) in hashes.enumerated() { #expect(try table.entry(h)?.line == Int32(n)) }
        var index = RunKeyIndex(limit: .max, liveLimit: 5, spillDirectory: missing)
        for (n, h) in hashes.prefix(5).enumerated() { try index.insert(h, rowID: Int64(n + 1)) }
        #expect(!index.hasRoom)
        for (n, h) in hashes.prefix(5).enumerated() { #expect(try index.find(h) { $0 == Int64(n + 1) } == Int64(n + 1)) }
    }
}

/// `convert`'s repeated keys are counted in a ``KeyTable`` (bounded memory; a dictionary held every
/// repeated key), through spills: each key's last occurrence is found in the second pass.
@Suite struct RepeatedKeysTests {
    @Test(arguments: [KeyTable.defaultLiveLimit, 7])
    func lastOccurrenceIsFoundThroughSpills(liveLimit: Int) throws {
        let keys = RepeatedKeys(liveKeyLimit: liveLimit)
        #expect(keys.isEmpty)
        // Key k occurs k % 4 + 1 times; its repeats (all but the first) are counted.
        let occurrences = (0..<2_000).flatMap { k in [Int](repeating: k, count: k % 4 + 1) }.shuffled()
        var seen = Set<Int>()
        for k in occurrences where !seen.insert(k).inserted { try keys.countRepeat(UInt64(k) &* 0x9E37_79B9_7F4A_7C15 | 2) }
        #expect(keys.count == (0..<2_000).filter { $0 % 4 > 0 }.count)
        var left: [Int: Int] = [:]
        for k in occurrences { left[k, default: 0] += 1 }
        for k in occurrences {
            left[k]! -= 1
            let remaining = try keys.countDown(UInt64(k) &* 0x9E37_79B9_7F4A_7C15 | 2)
            if k % 4 == 0 {
                #expect(remaining == nil)
            } else {
                #expect(remaining == UInt64(left[k]!))
            }
        }
    }
}
