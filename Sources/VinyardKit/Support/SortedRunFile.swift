import Foundation

/// Sorted runs of fixed-size records in one temporary file, for in-memory tables that must stay
/// bounded (``KeyTable`` of `validate`, ``RunKeyIndex`` of an import): when a table is full its
/// records move here as one run, sorted by the `UInt64` each record starts with (its sort key),
/// and memory starts over.
///
/// A run keeps in memory only a ``BlockedBloom`` filter of its records' Bloom keys (about 10 bits
/// a record; one cache line probed per lookup) and the sort key of every 128th record (to find the
/// block a key would be in). The file is read only for lookups the filter lets through, one block
/// (128 records) at a time. Sort keys are unique within a run.
///
/// The file is unlinked as soon as it is created: nothing is left behind, even when the process is
/// killed. Used by the one thread that owns the table.
///
/// Why not a temporary SQLite table: a B-tree keyed by a random hash touches a random page per new
/// key; here a new key costs one cache line per run.
final class SortedRunFile: @unchecked Sendable {
    /// Records per fence (one block read per lookup).
    private static let blockRecords = 128

    private struct Run {
        var start: Int  // first record's index in the file
        var count = 0
        var fences: [UInt64] = []  // the sort key of every blockRecords-th record
    }

    let recordSize: Int
    private let fd: Int32
    private let what: String
    private var runs: [Run] = []
    /// The runs' filters, by run (apart from the runs: see ``mayContain(bloomKey:)``).
    private var blooms: [BlockedBloom] = []
    private var pendingBloom: BlockedBloom?
    private var records = 0  // in the file
    private var pending: Run?
    private var writeBuffer: [UInt8] = []
    private var block: [UInt8]

    /// Creates the file in `directory`, else `$TMPDIR`, else `/tmp`; `what` names its content in
    /// error messages.
    init(recordSize: Int, what: String, directory: String? = nil) throws {
        precondition(recordSize >= 8)
        self.recordSize = recordSize
        self.what = what
        let directory =
            directory ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/vinyard-spill-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw VinyardError(
                .io, "cannot create a temporary file in \(directory) for \(what): \(String(cString: strerror(errno)))")
        }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        self.fd = fd
        block = [UInt8](repeating: 0, count: Self.blockRecords * recordSize)
    }

    deinit { close(fd) }

    /// The number of runs written.
    var runCount: Int { runs.count }

    /// Starts a run of about `expected` records (sizes its filter).
    func beginRun(expected: Int) {
        pending = Run(start: records)
        pendingBloom = BlockedBloom(keys: expected)
        writeBuffer.removeAll(keepingCapacity: true)
    }

    /// Appends a record to the run: `encode` appends its ``recordSize`` bytes, starting with
    /// `sortKey` (records come in ascending sort-key order).
    func append(sortKey: UInt64, bloomKey: UInt64, _ encode: (inout [UInt8]) -> Void) throws {
        guard var run = pending, var bloom = pendingBloom else { return }
        pending = nil  // unique while changed
        pendingBloom = nil
        if run.count % Self.blockRecords == 0 { run.fences.append(sortKey) }
        bloom.insert(bloomKey)
        run.count += 1
        pending = run
        pendingBloom = bloom
        encode(&writeBuffer)
        if writeBuffer.count >= 1 << 20 { try flushWrites() }
    }

    func endRun() throws {
        try flushWrites()
        if let run = pending, let bloom = pendingBloom {
            runs.append(run)
            blooms.append(bloom)
        }
        pending = nil
        pendingBloom = nil
    }

    /// True when some run's filter may hold `bloomKey` (no run is copied: a caller checking every
    /// key first pays one cache line per run and nothing else).
    @inline(__always)
    func mayContain(bloomKey: UInt64) -> Bool {
        let (h, h2) = BlockedBloom.hashes(bloomKey)
        return blooms.withUnsafeBufferPointer { blooms in
            for i in blooms.indices where blooms[i].mayContain(h, h2) { return true }
            return false
        }
    }

    /// Calls `body` with the index and bytes of each record of a run whose filter may hold
    /// `bloomKey` and whose sort key is in `lower...upper`, until `body` returns true; true then.
    func find(
        bloomKey: UInt64, from lower: UInt64, through upper: UInt64,
        _ body: (_ index: Int, _ record: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        let (h, h2) = BlockedBloom.hashes(bloomKey)
        for (i, run) in runs.enumerated() where blooms[i].mayContain(h, h2) {
            // The last fence not above `lower` starts the first block that can hold the range.
            var lo = 0, hi = run.fences.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if run.fences[mid] <= lower { lo = mid + 1 } else { hi = mid }
            }
            var b = max(0, lo - 1)
            while b < run.fences.count, run.fences[b] <= upper {
                let first = b * Self.blockRecords
                let n = min(Self.blockRecords, run.count - first)
                try read(records: run.start + first, count: n)
                var past = false
                let found = try block.withUnsafeBytes { bytes -> Bool in
                    for r in 0..<n {
                        let key = bytes.loadUnaligned(fromByteOffset: r * recordSize, as: UInt64.self)
                        if key < lower { continue }
                        if key > upper {
                            past = true
                            return false
                        }
                        let record = UnsafeRawBufferPointer(rebasing: bytes[(r * recordSize)..<((r + 1) * recordSize)])
                        if try body(run.start + first + r, record) { return true }
                    }
                    return false
                }
                if found { return true }
                if past { break }
                b += 1
            }
        }
        return false
    }

    /// Rewrites the record at `index` (same sort key: the run stays sorted).
    func overwrite(_ record: [UInt8], at index: Int) throws {
        precondition(record.count == recordSize)
        try writeAll(record, at: index * recordSize)
    }

    private func flushWrites() throws {
        guard !writeBuffer.isEmpty else { return }
        try writeAll(writeBuffer, at: records * recordSize)
        records += writeBuffer.count / recordSize
        writeBuffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8], at offset: Int) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw VinyardError(.io, "cannot write the temporary file of \(what): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    private func read(records first: Int, count: Int) throws {
        let length = count * recordSize
        var done = 0
        while done < length {
            let n = block.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + done, length - done, off_t(first * recordSize + done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "it ended early"
                throw VinyardError(.io, "cannot read the temporary file of \(what): \(reason)")
            }
            done += n
        }
    }
}

/// A Bloom filter whose bits for one key all lie in one 512-bit block (one cache line): 16 bits a
/// key, 8 bits set per key, about 0.1% false positives (measured in `SortedRunFileTests`; at 10
/// bits and 6 set, about 1%, a 5M-key `validate` read a block of the file for 7% of its keys).
struct BlockedBloom: Sendable {
    private var words: [UInt64]
    private let blocks: UInt64

    init(keys: Int) {
        let blocks = max(1, (keys * 16 + 511) / 512)
        self.blocks = UInt64(blocks)
        words = [UInt64](repeating: 0, count: blocks * 8)
    }

    /// The two hash words of a key (a remix: the tables' own hash bits already chose its part);
    /// the first also picks the block.
    @inline(__always)
    static func hashes(_ key: UInt64) -> (UInt64, UInt64) {
        var h = key ^ (key >> 33)
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return (h, (h ^ (h >> 29)) &* 0x9E37_79B9_7F4A_7C15)
    }

    @inline(__always)
    private func base(_ h: UInt64) -> Int { Int(truncatingIfNeeded: h.multipliedFullWidth(by: blocks).high) * 8 }

    @inline(__always)
    private static func bit(_ j: Int, _ h: UInt64, _ h2: UInt64) -> UInt64 {
        j < 4 ? (h >> UInt64(j * 9)) & 511 : (h2 >> UInt64((j - 4) * 9 + 20)) & 511
    }

    mutating func insert(_ key: UInt64) {
        let (h, h2) = Self.hashes(key)
        let base = base(h)
        for j in 0..<8 {
            let bit = Self.bit(j, h, h2)
            words[base + Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    func mayContain(_ key: UInt64) -> Bool {
        let (h, h2) = Self.hashes(key)
        return mayContain(h, h2)
    }

    /// ``mayContain(_:)`` from the key's ``hashes(_:)``.
    @inline(__always)
    func mayContain(_ h: UInt64, _ h2: UInt64) -> Bool {
        let base = base(h)
        for j in 0..<8 {
            let bit = Self.bit(j, h, h2)
            if words[base + Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }
}
