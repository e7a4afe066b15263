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
    /// The table is split into 2^partBits parts by the fingerprint's top bits, each growing on its
    /// own: a growth copies one part, so the peak is the table plus 1/64 of it (one table of 2^n
    /// slots doubled to 2^(n+1), holding both: 96 MiB at 5M keys instead of 64).
    static let partBits = 6

    private struct Part {
        var slots: [UInt64]
        var bits: Int
        var count = 0
    }

    private var parts: [Part]
    private(set) var count = 0
    /// How many keys fit before the next growth would exceed `limit` keys or ``maxCapacity``.
    let limit: Int

    /// - Parameter initialBits: log2 of the initial slots in all (at least 2^partBits).
    init(limit: Int, initialBits: Int = 16) {
        let partSlotBits = max(1, initialBits - Self.partBits)
        parts = Array(repeating: Part(slots: [UInt64](repeating: 0, count: 1 << partSlotBits), bits: partSlotBits),
            count: 1 << Self.partBits)
        self.limit = min(limit, Self.maxCapacity / 4 * 3)
    }

    /// True when one more key can be added.
    var hasRoom: Bool { count < limit }

    /// Bytes held by the slots.
    var byteCount: Int { parts.reduce(0) { $0 + $1.slots.count * 8 } }

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
    func find(_ hash: UInt64, matches: (Int64) throws -> Bool) rethrows -> Int64? {
        let fp = Self.fingerprint(hash)
        let part = parts[Self.part(fp)]
        let mask = part.slots.count - 1
        var i = Self.home(fp, bits: part.bits)
        while true {
            let slot = part.slots[i]
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
        let fp = Self.fingerprint(hash)
        let p = Self.part(fp)
        if (parts[p].count + 1) * 4 > parts[p].slots.count * 3 { Self.grow(&parts[p]) }
        Self.place(fp << 24 | UInt64(rowID), in: &parts[p])
        parts[p].count += 1
        count += 1
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
