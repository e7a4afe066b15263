/// The keys inserted in this run into a table that was empty when the run started, while the
/// table's unique key index is dropped (it is built once, sorted, at the end of the run: much
/// faster than updating a B-tree at random places for every row).
///
/// Open addressing with linear probing; one 64-bit slot per key: the top 40 bits of the key's
/// 64-bit hash (the fingerprint) and the 24-bit rowid of its row. A fingerprint match is only a
/// candidate: the caller confirms it by reading the row's `_key`, so two different keys are never
/// taken for one (exact, whatever the hash does).
/// - Complexity: O(1) expected per lookup and insert; 8 bytes per slot, at most 3/4 full
///   (about 11 bytes per key), capped by ``maxCapacity``.
struct RunKeyIndex {
    /// The largest rowid a slot can hold.
    static let maxRowID: Int64 = (1 << 24) - 1
    /// The most slots (64 MiB); past 3/4 of it the run builds the real index and goes on with it.
    static let maxCapacity = 1 << 23

    private var slots: [UInt64]
    private var bits: Int
    private(set) var count = 0
    /// How many keys fit before the next growth would exceed `limit` keys or ``maxCapacity``.
    let limit: Int

    init(limit: Int, initialBits: Int = 16) {
        bits = initialBits
        slots = [UInt64](repeating: 0, count: 1 << initialBits)
        self.limit = min(limit, Self.maxCapacity / 4 * 3)
    }

    /// True when one more key can be added.
    var hasRoom: Bool { count < limit }

    /// Bytes held by the slots.
    var byteCount: Int { slots.count * 8 }

    @inline(__always)
    private static func fingerprint(_ hash: UInt64) -> UInt64 { hash >> 24 }

    @inline(__always)
    private func home(_ fingerprint: UInt64) -> Int { Int(truncatingIfNeeded: fingerprint >> UInt64(40 - bits)) }

    /// The rowid of the key with this hash for which `matches` (reading the row) returns true, or nil.
    func find(_ hash: UInt64, matches: (Int64) throws -> Bool) rethrows -> Int64? {
        let fp = Self.fingerprint(hash)
        let mask = slots.count - 1
        var i = home(fp)
        while true {
            let slot = slots[i]
            if slot == 0 { return nil }
            if slot >> 24 == fp {
                let rowID = Int64(slot & 0xFF_FFFF)
                if try matches(rowID) { return rowID }
            }
            i = (i + 1) & mask
        }
    }

    /// Adds a key known not to be present. `rowID` must be in 1…``maxRowID`` and ``hasRoom`` true.
    mutating func insert(_ hash: UInt64, rowID: Int64) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        place(Self.fingerprint(hash) << 24 | UInt64(rowID))
        count += 1
    }

    private mutating func place(_ slot: UInt64) {
        let mask = slots.count - 1
        var i = home(slot >> 24)
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = slot
    }

    private mutating func grow() {
        let old = slots
        slots = []
        bits += 1
        slots = [UInt64](repeating: 0, count: 1 << bits)
        for slot in old where slot != 0 { place(slot) }
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
