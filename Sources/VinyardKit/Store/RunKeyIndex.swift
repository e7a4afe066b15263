/// The keys inserted in this run into a table that was empty when the run started, while the
/// table's unique key index is dropped (it is built once, sorted, at the end of the run: much
/// faster than updating a B-tree at random places for every row).
///
/// Open addressing with linear probing; one 64-bit slot per key: the top 40 bits of the key's
/// 64-bit hash (the fingerprint) and the 24-bit rowid of its row. A fingerprint match is only a
/// candidate: the caller confirms it by reading the row's `_key`, so two different keys are never
/// taken for one (exact, whatever the hash does).
///
/// Memory is bounded: past ``liveLimit`` keys the slots move to a ``SortedRunFile`` as one sorted
/// run (about 1.3 bytes a key stay in memory, for its Bloom filter) and memory starts over, so a
/// 5M-row first load holds no more than a 1.4M-row one.
/// - Complexity: O(1) expected per lookup and insert (one filter probe per spilled run); 8 bytes
///   per live slot, at most 3/4 full.
final class RunKeyIndex {
    /// The largest rowid a slot can hold.
    static let maxRowID: Int64 = (1 << 24) - 1
    /// Live keys before a spill: 1.4M keys, about 21,900 a part, stay within 64 parts of 32,768
    /// slots (16 MiB).
    static let defaultLiveLimit = 1_400_000
    /// The table is split into 2^partBits parts by the fingerprint's top bits, each growing on its
    /// own: a growth copies one part, so the peak is the table plus 1/64 of it.
    static let partBits = 6

    private struct Part {
        var slots: [UInt64]
        var bits: Int
        var count = 0
    }

    /// (A class, so the writer's `runKeys != nil` and lookups do not copy the table's fields: as a
    /// struct, each copy retained them, about 260 instructions a row. Unchecked exclusivity: one
    /// thread owns the index.)
    @exclusivity(unchecked) private var parts: [Part]
    private let initialPartBits: Int
    private(set) var count = 0
    private var liveCount = 0
    /// Keys in all before the run builds the real index and goes on with it.
    private(set) var limit: Int
    let liveLimit: Int
    private var spill: SortedRunFile?
    /// Where the runs go (nil: `$TMPDIR`); tests name one that cannot be written.
    private let spillDirectory: String?

    /// - Parameter initialBits: log2 of the initial slots in all (at least 2^partBits).
    init(limit: Int, liveLimit: Int = RunKeyIndex.defaultLiveLimit, initialBits: Int = 16, spillDirectory: String? = nil) {
        self.spillDirectory = spillDirectory
        initialPartBits = max(1, initialBits - Self.partBits)
        parts = Self.emptyParts(bits: initialPartBits)
        self.limit = limit
        self.liveLimit = max(1, liveLimit)
    }

    private static func emptyParts(bits: Int) -> [Part] {
        Array(repeating: Part(slots: [UInt64](repeating: 0, count: 1 << bits), bits: bits), count: 1 << partBits)
    }

    /// True when one more key can be added.
    var hasRoom: Bool { count < limit }

    /// Bytes held by the live slots.
    var byteCount: Int { parts.reduce(0) { $0 + $1.slots.count * 8 } }

    /// Spilled runs so far.
    var spilledRuns: Int { spill?.runCount ?? 0 }

    @inline(__always)
    private static func fingerprint(_ hash: UInt64) -> UInt64 { hash >> 24 }

    /// The part of a fingerprint (its top bits).
    @inline(__always)
    private static func part(_ fingerprint: UInt64) -> Int { Int(truncatingIfNeeded: fingerprint >> UInt64(40 - partBits)) }

    /// The home slot in a part of 2^bits slots (the fingerprint's bits below the part's).
    @inline(__always)
    private static func home(_ fingerprint: UInt64, bits: Int) -> Int {
        Int(truncatingIfNeeded: (fingerprint >> UInt64(40 - partBits - bits)) & ((1 << UInt64(bits)) - 1))
    }

    /// The rowid of the key with this hash for which `matches` (reading the row) returns true, or nil.
    /// - Throws: what `matches` throws, or ``VinyardError`` `.io` when the spilled runs cannot be read.
    @inline(__always)
    func find(_ hash: UInt64, matches: (Int64) throws -> Bool) throws -> Int64? {
        let fp = Self.fingerprint(hash)
        let part = parts[Self.part(fp)]
        let mask = part.slots.count - 1
        var i = Self.home(fp, bits: part.bits)
        while true {
            let slot = part.slots[i]
            if slot == 0 { break }
            if slot >> 24 == fp {
                let rowID = Int64(slot & 0xFF_FFFF)
                if try matches(rowID) { return rowID }
            }
            i = (i + 1) & mask
        }
        guard let spill, spill.mayContain(bloomKey: fp) else { return nil }
        return try findSpilled(fp, matches: matches)
    }

    /// Reads the home slot of each hash, so that the lookups of a batch's keys that follow find
    /// their slots in the cache. A lookup is one read at a random place of up to 16 MiB: a cache
    /// miss, about 360 ns a row on a 1M-row first load (perf, sink thread), while this loop's
    /// reads do not depend on each other and the processor overlaps their misses.
    func prefetch(_ hashes: UnsafeBufferPointer<UInt64>) {
        var sum: UInt64 = 0
        parts.withUnsafeBufferPointer { parts in
            for hash in hashes where hash != 0 {
                let fp = Self.fingerprint(hash)
                let part = parts[Self.part(fp)]
                sum &+= part.slots.withUnsafeBufferPointer { $0[Self.home(fp, bits: part.bits)] }
            }
        }
        // Kept, so the reads are not optimized away.
        prefetchSum &+= sum
    }

    private var prefetchSum: UInt64 = 0

    /// ``find(_:matches:)`` in the spilled runs (out of line: the in-memory probe stays small
    /// enough to inline, and the caller's closure is set up only when a run may hold the key).
    @inline(never)
    private func findSpilled(_ fp: UInt64, matches: (Int64) throws -> Bool) throws -> Int64? {
        guard let spill else { return nil }
        var found: Int64?
        _ = try spill.find(bloomKey: fp, from: fp << 24, through: fp << 24 | 0xFF_FFFF) { _, bytes in
            let rowID = Int64(bytes.loadUnaligned(as: UInt64.self) & 0xFF_FFFF)
            guard try matches(rowID) else { return false }
            found = rowID
            return true
        }
        return found
    }

    /// Adds a key known not to be present. `rowID` must be in 1…``maxRowID`` and ``hasRoom`` true.
    /// - Throws: ``VinyardError`` `.io` when the live keys cannot be moved to the temporary file.
    func insert(_ hash: UInt64, rowID: Int64) throws {
        let fp = Self.fingerprint(hash)
        let p = Self.part(fp)
        if (parts[p].count + 1) * 4 > parts[p].slots.count * 3 { Self.grow(&parts[p]) }
        Self.place(fp << 24 | UInt64(rowID), in: &parts[p])
        parts[p].count += 1
        count += 1
        liveCount += 1
        if liveCount >= liveLimit { try spillLive() }
    }

    /// Moves the live slots to a new sorted run (a part's slots sorted, parts in fingerprint order:
    /// sorted as a whole) and empties memory.
    private func spillLive() throws {
        guard let file = spill ?? (try? SortedRunFile(recordSize: 8, what: "the keys imported so far", directory: spillDirectory)) else {
            // No temporary file can be created (a read-only $TMPDIR): no room for more keys, so
            // the run builds the real index now and goes on with it (memory stays bounded).
            limit = count
            return
        }
        spill = file
        file.beginRun(expected: liveCount)
        for p in parts.indices {
            var slots = parts[p].slots.filter { $0 != 0 }
            parts[p] = Part(slots: [], bits: 0)
            slots.sort()
            for slot in slots {
                try file.append(sortKey: slot, bloomKey: slot >> 24) { bytes in
                    withUnsafeBytes(of: slot) { bytes.append(contentsOf: $0) }
                }
            }
        }
        try file.endRun()
        parts = Self.emptyParts(bits: initialPartBits)
        liveCount = 0
    }

    private static func place(_ slot: UInt64, in part: inout Part) {
        let mask = part.slots.count - 1
        var i = home(slot >> 24, bits: part.bits)
        while part.slots[i] != 0 { i = (i + 1) & mask }
        part.slots[i] = slot
    }

    private static func grow(_ part: inout Part) {
        let old = part.slots
        part.slots = []
        part.bits += 1
        part.slots = [UInt64](repeating: 0, count: 1 << part.bits)
        for slot in old where slot != 0 { place(slot, in: &part) }
    }
}

extension RowHasher {
    /// The 64-bit hash of a key's UTF-8 bytes.
    static func key(_ key: String) -> UInt64 {
        var hasher = RowHasher()
        hasher.mix(text: key)
        return hasher.finalize()
    }
}
