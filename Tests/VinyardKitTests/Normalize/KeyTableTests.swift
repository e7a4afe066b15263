import Testing

@testable import VinyardKit

@Suite struct KeyTableTests {
    private func entry(_ n: Int) -> KeyTracker.Entry {
        KeyTracker.Entry(valuesHash: UInt64(n) &* 31, mask: UInt64(n & 0xFF), input: Int32(n % 7), line: Int32(n))
    }

    @Test func keepsEveryKeyThroughGrowth() {
        var table = KeyTable()
        var rng = SplitMix64(seed: 42)
        // Hashes 0 and 1 share a stored form: only one of them is used here.
        var hashes: [UInt64] = [0, 2, UInt64.max, 1 << 56, 0xFF00_0000_0000_0000]
        for _ in 0..<200_000 { hashes.append(rng.next() | 2) }
        for (n, h) in hashes.enumerated() { table[h] = entry(n) }
        #expect(table.count == hashes.count)
        for (n, h) in hashes.enumerated() {
            #expect(table[h]?.line == Int32(n), "hash \(h)")
            if table[h]?.line != Int32(n) { break }
        }
        #expect(table[3] == nil)
        // Replacing an entry keeps the count.
        table[hashes[10]] = entry(9_999_999)
        #expect(table.count == hashes.count)
        #expect(table[hashes[10]]?.line == 9_999_999)
    }
}
