import Testing

@testable import VinyardKit

@Suite struct SortedRunFileTests {
    /// No false negatives, and few false positives (the filter's documented rate is about 0.1%).
    @Test func bloomFilterRates() {
        var rng = SplitMix64(seed: 11)
        let keys = (0..<200_000).map { _ in rng.next() }
        var bloom = BlockedBloom(keys: keys.count)
        for key in keys { bloom.insert(key) }
        #expect(keys.allSatisfy { bloom.mayContain($0) })
        let probes = 1_000_000
        var positives = 0
        for _ in 0..<probes where bloom.mayContain(rng.next()) { positives += 1 }
        #expect(positives < probes / 200, "\(positives) false positives in \(probes)")
    }

    /// Ranges of sort keys that span block boundaries and runs are found whole and in order; a
    /// record overwritten in place is read back; keys outside every run are not found.
    @Test func findsRangesAcrossBlocksAndRuns() throws {
        let file = try SortedRunFile(recordSize: 16, what: "test records")
        // Run 1: groups of 300 records sharing a "fingerprint" (the high 32 bits), so one group
        // spans three 128-record blocks. Run 2: other groups.
        func write(groups: ClosedRange<UInt64>) throws {
            file.beginRun(expected: groups.count * 300)
            for g in groups {
                for i in 0..<UInt64(300) {
                    let sortKey = g << 32 | i
                    try file.append(sortKey: sortKey, bloomKey: g) { bytes in
                        withUnsafeBytes(of: sortKey) { bytes.append(contentsOf: $0) }
                        withUnsafeBytes(of: sortKey &* 3) { bytes.append(contentsOf: $0) }
                    }
                }
            }
            try file.endRun()
        }
        try write(groups: 1...5)
        try write(groups: 10...12)
        #expect(file.runCount == 2)
        for g: UInt64 in [1, 3, 5, 10, 12] {
            var seen: [UInt64] = []
            let stopped = try file.find(bloomKey: g, from: g << 32, through: g << 32 | 0xFFFF_FFFF) { _, bytes in
                let key = bytes.loadUnaligned(as: UInt64.self)
                #expect(bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == key &* 3)
                seen.append(key)
                return false
            }
            #expect(!stopped)
            #expect(seen == (0..<UInt64(300)).map { g << 32 | $0 }, "group \(g)")
        }
        // Stop at one record, then overwrite it and read it back.
        var index = -1
        let target: UInt64 = 11 << 32 | 257
        #expect(try file.find(bloomKey: 11, from: target, through: target) { i, _ in index = i; return true })
        var record: [UInt8] = []
        withUnsafeBytes(of: target) { record.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(42)) { record.append(contentsOf: $0) }
        try file.overwrite(record, at: index)
        var value: UInt64 = 0
        _ = try file.find(bloomKey: 11, from: target, through: target) { _, bytes in
            value = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            return true
        }
        #expect(value == 42)
        for g: UInt64 in [0, 7, 13] {
            #expect(try !file.find(bloomKey: g, from: g << 32, through: g << 32 | 0xFFFF_FFFF) { _, _ in true })
        }
    }
}
