/// A table from a key's 64-bit hash to its entry (a ``KeyTracker/Entry`` for `validate`, a
/// ``RepeatCount`` for `convert`), for any number of keys in bounded memory.
///
/// The newest keys live in memory: 256 open-addressing parts chosen by the hash's top byte, each at
/// most three quarters full and doubled on its own, so growing never holds two copies of the whole
/// table (a slot is the key and its entry: 64 bytes for `validate`, 16 for `convert`'s repeat
/// counts). When ``liveLimit`` keys are live they move to a ``SortedRunFile`` as
/// one run (parts in top-byte order, each sorted: the run is sorted without a second copy in
/// memory), and memory starts over. A key is in exactly one place: an update of a spilled key is
/// written in place.
struct HashKeyTable<Entry: KeyTableEntry>: Sendable {
    /// Live keys before a spill: 360k keys, about 1,440 a part, stay within 256 parts of 2,048
    /// slots (for `validate`'s entries, 64 bytes a slot: 32 MiB; at 1,536 a part on average, half
    /// the parts would pass 3/4 full and double).
    static var defaultLiveLimit: Int { 360 * 1024 }

    private var parts = [Part](repeating: Part(), count: 256)
    private var liveCount = 0
    /// Distinct keys in all.
    private(set) var count = 0
    private(set) var liveLimit: Int
    private var spill: SortedRunFile?
    /// Where the runs go (nil: `$TMPDIR`); tests name one that cannot be written.
    private let spillDirectory: String?

    init(liveLimit: Int = Self.defaultLiveLimit, spillDirectory: String? = nil) {
        self.liveLimit = max(1, liveLimit)
        self.spillDirectory = spillDirectory
    }

    /// 0 marks an empty slot (a hash of 0 is stored as 1).
    @inline(__always) private static func stored(_ hash: UInt64) -> UInt64 { hash == 0 ? 1 : hash }

    /// The entry of a key, if seen.
    func entry(_ hash: UInt64) throws -> Entry? {
        let key = Self.stored(hash)
        let p = Int(truncatingIfNeeded: key >> 56)
        if let i = parts[p].find(key) { return parts[p].entries[i] }
        return try spilled(key)?.entry
    }

    /// A spilled key's record index and entry.
    private func spilled(_ key: UInt64) throws -> (record: Int, entry: Entry)? {
        guard let spill, spill.mayContain(bloomKey: key) else { return nil }
        var result: (Int, Entry)?
        _ = try spill.find(bloomKey: key, from: key, through: key) { index, bytes in
            result = (index, Self.decode(bytes))
            return true
        }
        return result
    }

    /// Sets a key's entry to `make(its current entry)` (nil for a new key); returns the entry it
    /// had. A new key may move the live keys to the file.
    @discardableResult
    mutating func upsert(_ hash: UInt64, _ make: (Entry?) -> Entry) throws -> Entry? {
        if let old = try update(hash, { make($0) }) { return old }
        let key = Self.stored(hash)
        let p = Int(truncatingIfNeeded: key >> 56)
        parts[p].insert(key, make(nil))
        liveCount += 1
        count += 1
        if liveCount >= liveLimit { try spillLive() }
        return nil
    }

    /// Sets a key's entry to `make(its current entry)` when the key is in the table (one search);
    /// returns the entry it had, or nil (and adds nothing) when it is not.
    @discardableResult
    mutating func update(_ hash: UInt64, _ make: (Entry) -> Entry) throws -> Entry? {
        let key = Self.stored(hash)
        let p = Int(truncatingIfNeeded: key >> 56)
        if let i = parts[p].find(key) {
            let old = parts[p].entries[i]
            parts[p].entries[i] = make(old)
            return old
        }
        guard let spill, let found = try spilled(key) else { return nil }
        var bytes: [UInt8] = []
        Self.encode(key, make(found.entry), into: &bytes)
        try spill.overwrite(bytes, at: found.record)
        return found.entry
    }

    /// Moves the live keys to a new sorted run in the file and empties memory.
    private mutating func spillLive() throws {
        guard let file = spill ?? (try? SortedRunFile(recordSize: Self.recordSize, what: "the keys seen so far", directory: spillDirectory)) else {
            // No temporary file can be created (a read-only $TMPDIR): keep every key in memory,
            // as before there was a file, rather than fail the run.
            liveLimit = .max
            return
        }
        spill = file
        file.beginRun(expected: liveCount)
        for p in parts.indices {
            for (key, entry) in parts[p].sortedPairs() {
                try file.append(sortKey: key, bloomKey: key) { Self.encode(key, entry, into: &$0) }
            }
            parts[p] = Part()
        }
        try file.endRun()
        liveCount = 0
    }

    /// Bytes of a spilled record: the key hash, then the entry.
    static var recordSize: Int { 8 + Entry.byteCount }

    private static func encode(_ key: UInt64, _ entry: Entry, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: key) { bytes.append(contentsOf: $0) }
        entry.encode(into: &bytes)
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> Entry {
        Entry.decode(UnsafeRawBufferPointer(rebasing: bytes[8...]))
    }

    private struct Part: Sendable {
        private var keys: [UInt64] = []
        var entries: [Entry] = []
        private var count = 0

        /// The slot holding `key`, if any.
        @inline(__always)
        func find(_ key: UInt64) -> Int? {
            guard count > 0 else { return nil }
            let (i, found) = index(of: key)
            return found ? i : nil
        }

        private func index(of key: UInt64) -> (Int, Bool) {
            let mask = keys.count - 1
            var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
            while true {
                let k = keys[i]
                if k == key { return (i, true) }
                if k == 0 { return (i, false) }
                i = (i + 1) & mask
            }
        }

        /// Adds a key that is not in the part.
        mutating func insert(_ key: UInt64, _ entry: Entry) {
            if keys.isEmpty || (count + 1) * 4 > keys.count * 3 { grow() }
            let (i, _) = index(of: key)
            keys[i] = key
            entries[i] = entry
            count += 1
        }

        /// The part's keys and entries, sorted by key.
        func sortedPairs() -> [(UInt64, Entry)] {
            var pairs: [(UInt64, Entry)] = []
            pairs.reserveCapacity(count)
            for (i, k) in keys.enumerated() where k != 0 { pairs.append((k, entries[i])) }
            pairs.sort { $0.0 < $1.0 }
            return pairs
        }

        private mutating func grow() {
            let oldKeys = keys, oldEntries = entries
            let capacity = max(64, keys.count * 2)
            keys = [UInt64](repeating: 0, count: capacity)
            entries = [Entry](repeating: Entry.zero, count: capacity)
            for (j, k) in oldKeys.enumerated() where k != 0 {
                let (i, _) = index(of: k)
                keys[i] = k
                entries[i] = oldEntries[j]
            }
        }
    }
}


/// What a ``HashKeyTable`` keeps for each key: a fixed-size value, written to its run file as bytes.
protocol KeyTableEntry: Sendable {
    static var zero: Self { get }
    /// Bytes of an entry in the run file.
    static var byteCount: Int { get }
    func encode(into bytes: inout [UInt8])
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Self
}

/// `validate`'s table: key hash → ``KeyTracker/Entry``.
typealias KeyTable = HashKeyTable<KeyTracker.Entry>

extension KeyTracker.Entry: KeyTableEntry {
    static var zero: Self { Self(valuesHash: 0, mask: 0, input: 0, line: 0) }
    static var byteCount: Int { 56 }

    /// Values hash, mask, input, line, fingerprints.
    func encode(into bytes: inout [UInt8]) {
        withUnsafeBytes(of: valuesHash) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: mask) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: input) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: line) { bytes.append(contentsOf: $0) }
        for w in 0..<4 { withUnsafeBytes(of: fingerprints.word(w)) { bytes.append(contentsOf: $0) } }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> Self {
        Self(
            valuesHash: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
            mask: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            input: bytes.loadUnaligned(fromByteOffset: 16, as: Int32.self),
            line: bytes.loadUnaligned(fromByteOffset: 20, as: Int32.self),
            fingerprints: KeyTracker.Fingerprints(
                words: (
                    bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 32, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 40, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 48, as: UInt64.self)
                )))
    }
}

/// `convert`'s table of repeated keys: key hash → occurrences (16 bytes a slot, where the
/// validation entry it borrowed took 64).
struct RepeatCount: KeyTableEntry {
    var count: UInt64
    static var zero: Self { Self(count: 0) }
    static var byteCount: Int { 8 }
    func encode(into bytes: inout [UInt8]) { withUnsafeBytes(of: count) { bytes.append(contentsOf: $0) } }
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Self { Self(count: bytes.loadUnaligned(as: UInt64.self)) }
}
