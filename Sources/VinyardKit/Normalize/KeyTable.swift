import Foundation

/// A table from a key's 64-bit hash to its ``KeyTracker/Entry``, for any number of keys in bounded
/// memory.
///
/// The newest keys live in memory: 256 open-addressing parts chosen by the hash's top byte, each at
/// most three quarters full and doubled on its own, so growing never holds two copies of the whole
/// table (32 bytes a slot). When ``liveLimit`` keys are live they move to a temporary file as one
/// sorted run (parts in top-byte order, each sorted: the run is sorted without a second copy in
/// memory), and memory starts over. A run keeps in memory only a blocked Bloom filter (about 10
/// bits a key, one cache line probed per lookup) and every 128th hash (to find the 4 KiB block a
/// key would be in). A key is in exactly one place: an update of a spilled key is written in place.
///
/// Why not a temporary SQLite table: a B-tree keyed by a random hash touches a random page per new
/// key; here a new key costs one cache line per run, and the file is read only for keys that are
/// (almost certainly) there.
struct KeyTable: Sendable {
    /// Live keys before a spill: 640k keys, about 2,500 a part, stay within 256 parts of 4,096
    /// slots (32 MiB; at 768k keys half the parts passed 3/4 full and doubled, 48 MiB).
    static let defaultLiveLimit = 640 * 1024

    private var parts = [Part](repeating: Part(), count: 256)
    private var liveCount = 0
    /// Distinct keys in all.
    private(set) var count = 0
    let liveLimit: Int
    private var spill: SpillRuns?

    init(liveLimit: Int = Self.defaultLiveLimit) {
        self.liveLimit = max(1, liveLimit)
    }

    /// 0 marks an empty slot (a hash of 0 is stored as 1).
    @inline(__always) private static func stored(_ hash: UInt64) -> UInt64 { hash == 0 ? 1 : hash }

    /// The entry of a key, if seen.
    func entry(_ hash: UInt64) throws -> KeyTracker.Entry? {
        let key = Self.stored(hash)
        let p = Int(truncatingIfNeeded: key >> 56)
        if let i = parts[p].find(key) { return parts[p].entries[i] }
        return try spill?.find(key)?.entry
    }

    /// Sets a key's entry to `make(its current entry)` (nil for a new key); returns the entry it
    /// had. A new key may move the live keys to the file.
    @discardableResult
    mutating func upsert(_ hash: UInt64, _ make: (KeyTracker.Entry?) -> KeyTracker.Entry) throws -> KeyTracker.Entry? {
        let key = Self.stored(hash)
        let p = Int(truncatingIfNeeded: key >> 56)
        if let i = parts[p].find(key) {
            let old = parts[p].entries[i]
            parts[p].entries[i] = make(old)
            return old
        }
        if let spill, let found = try spill.find(key) {
            try spill.write(make(found.entry), key: key, at: found.record)
            return found.entry
        }
        parts[p].insert(key, make(nil))
        liveCount += 1
        count += 1
        if liveCount >= liveLimit { try spillLive() }
        return nil
    }

    /// Moves the live keys to a new sorted run in the file and empties memory.
    private mutating func spillLive() throws {
        let runs = try spill ?? SpillRuns()
        spill = runs
        try runs.beginRun(count: liveCount)
        for p in parts.indices {
            try runs.append(parts[p].sortedPairs())
            parts[p] = Part()
        }
        try runs.endRun()
        liveCount = 0
    }

    private struct Part: Sendable {
        private var keys: [UInt64] = []
        var entries: [KeyTracker.Entry] = []
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
        mutating func insert(_ key: UInt64, _ entry: KeyTracker.Entry) {
            if keys.isEmpty || (count + 1) * 4 > keys.count * 3 { grow() }
            let (i, _) = index(of: key)
            keys[i] = key
            entries[i] = entry
            count += 1
        }

        /// The part's keys and entries, sorted by key.
        func sortedPairs() -> [(UInt64, KeyTracker.Entry)] {
            var pairs: [(UInt64, KeyTracker.Entry)] = []
            pairs.reserveCapacity(count)
            for (i, k) in keys.enumerated() where k != 0 { pairs.append((k, entries[i])) }
            pairs.sort { $0.0 < $1.0 }
            return pairs
        }

        private mutating func grow() {
            let oldKeys = keys, oldEntries = entries
            let capacity = max(64, keys.count * 2)
            keys = [UInt64](repeating: 0, count: capacity)
            entries = [KeyTracker.Entry](
                repeating: KeyTracker.Entry(valuesHash: 0, mask: 0, input: 0, line: 0), count: capacity)
            for (j, k) in oldKeys.enumerated() where k != 0 {
                let (i, _) = index(of: k)
                keys[i] = k
                entries[i] = oldEntries[j]
            }
        }
    }
}

/// The spilled runs of a ``KeyTable``: sorted 32-byte records (key hash, values hash, mask, input,
/// line) in one temporary file, unlinked as soon as it is created (nothing is left behind, even
/// when the process is killed). Used by the one thread that owns the table.
private final class SpillRuns: @unchecked Sendable {
    private static let recordSize = 32
    /// Records per fence (a 4 KiB block read per lookup).
    private static let blockRecords = 128

    private struct Run {
        var start: Int  // first record's index in the file
        var count: Int
        var fences: [UInt64]  // the key of every blockRecords-th record
        var bloom: BlockedBloom
    }

    private let fd: Int32
    private let directory: String
    private var runs: [Run] = []
    private var records = 0  // in the file
    private var pending: Run?
    private var writeBuffer: [UInt8] = []
    private var block = [UInt8](repeating: 0, count: SpillRuns.blockRecords * SpillRuns.recordSize)

    init() throws {
        directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/vinyard-keys-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw VinyardError(
                .io, "cannot create a temporary file in \(directory) for the keys seen so far: \(String(cString: strerror(errno)))")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        self.fd = fd
    }

    deinit { close(fd) }

    func beginRun(count: Int) throws {
        pending = Run(start: records, count: 0, fences: [], bloom: BlockedBloom(keys: count))
        writeBuffer.removeAll(keepingCapacity: true)
    }

    /// Appends sorted records (each batch sorted, batches in order).
    func append(_ pairs: [(UInt64, KeyTracker.Entry)]) throws {
        guard var run = pending else { return }
        for (key, entry) in pairs {
            if run.count % Self.blockRecords == 0 { run.fences.append(key) }
            run.bloom.insert(key)
            Self.encode(key, entry, into: &writeBuffer)
            run.count += 1
        }
        pending = run
        if writeBuffer.count >= 1 << 20 { try flushWrites() }
    }

    func endRun() throws {
        try flushWrites()
        if let run = pending { runs.append(run) }
        pending = nil
    }

    /// The record index and entry of `key`, if a run has it.
    func find(_ key: UInt64) throws -> (record: Int, entry: KeyTracker.Entry)? {
        for run in runs where run.bloom.mayContain(key) {
            // The last fence not above the key starts the only block that can hold it.
            var lo = 0, hi = run.fences.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if run.fences[mid] <= key { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else { continue }
            let first = (lo - 1) * Self.blockRecords
            let n = min(Self.blockRecords, run.count - first)
            try read(records: run.start + first, count: n)
            var a = 0, b = n
            while a < b {
                let mid = (a + b) / 2
                let k = block.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: mid * Self.recordSize, as: UInt64.self) }
                if k == key {
                    let entry = block.withUnsafeBytes { Self.decodeEntry($0, at: mid * Self.recordSize) }
                    return (run.start + first + mid, entry)
                }
                if k < key { a = mid + 1 } else { b = mid }
            }
        }
        return nil
    }

    /// Rewrites the entry of the record at `index` (its key stays, so the run stays sorted).
    func write(_ entry: KeyTracker.Entry, key: UInt64, at index: Int) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.recordSize)
        Self.encode(key, entry, into: &bytes)
        try writeAll(bytes, at: index * Self.recordSize)
    }

    private func flushWrites() throws {
        guard !writeBuffer.isEmpty else { return }
        try writeAll(writeBuffer, at: records * Self.recordSize)
        records += writeBuffer.count / Self.recordSize
        writeBuffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw VinyardError(
                    .io, "cannot write the temporary file of keys seen so far in \(directory): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    private func read(records first: Int, count: Int) throws {
        let length = count * Self.recordSize
        var done = 0
        while done < length {
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, length - done, off_t(first * Self.recordSize + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw VinyardError(
                    .io, "cannot read the temporary file of keys seen so far in \(directory): \(n < 0 ? String(cString: strerror(errno)) : "it ended early")")
            }
            done += n
        }
    }

    private static func encode(_ key: UInt64, _ entry: KeyTracker.Entry, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: key) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: entry.valuesHash) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: entry.mask) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: entry.input) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: entry.line) { bytes.append(contentsOf: $0) }
    }

    private static func decodeEntry(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> KeyTracker.Entry {
        KeyTracker.Entry(
            valuesHash: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
            mask: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self),
            input: bytes.loadUnaligned(fromByteOffset: offset + 24, as: Int32.self),
            line: bytes.loadUnaligned(fromByteOffset: offset + 28, as: Int32.self))
    }
}

/// A Bloom filter whose bits for one key all lie in one 512-bit block (one cache line): about
/// 10 bits a key, 6 bits set per key (a false positive rate near 1%).
struct BlockedBloom: Sendable {
    private var words: [UInt64]
    private let blocks: UInt64

    init(keys: Int) {
        let blocks = max(1, (keys * 10 + 511) / 512)
        self.blocks = UInt64(blocks)
        words = [UInt64](repeating: 0, count: blocks * 8)
    }

    /// The block and the six bit positions of a key (from a remixed hash: the table's own hash
    /// bits already chose its part).
    @inline(__always)
    private func positions(_ key: UInt64) -> (Int, UInt64) {
        var h = key ^ (key >> 33)
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        let block = Int(truncatingIfNeeded: h.multipliedFullWidth(by: blocks).high)
        return (block * 8, h)
    }

    mutating func insert(_ key: UInt64) {
        let (base, h) = positions(key)
        for j in 0..<6 {
            let bit = (h >> UInt64(j * 9)) & 511
            words[base + Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    func mayContain(_ key: UInt64) -> Bool {
        let (base, h) = positions(key)
        for j in 0..<6 {
            let bit = (h >> UInt64(j * 9)) & 511
            if words[base + Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }
}
