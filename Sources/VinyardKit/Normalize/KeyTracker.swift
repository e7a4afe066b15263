/// Finds duplicate keys within a run without a database (`validate`, `convert`): it keeps a 64-bit
/// hash of each key with a hash of the record's values, 256 bits of fingerprints of its filled
/// fields' values, and where the key was first seen, so `validate` counts the duplicates and
/// `key.conflict`s an import into an empty database would (see ``observe(key:signature:input:line:)``).
///
/// - Complexity: O(1) expected per record. Memory is bounded: at most ``KeyTable/defaultLiveLimit``
///   keys are kept in memory (about 24 MB); older ones move to sorted runs in a temporary file,
///   each with a Bloom filter in memory (about 1.3 bytes a key), so a 5M-row file needs ~30 MB
///   instead of ~380 MB. A database import keeps no such table (it uses the key index instead).
public struct KeyTracker: Sendable {
    struct Entry: Sendable {
        var valuesHash: UInt64
        var mask: UInt64
        var input: Int32
        var line: Int32
        /// The top bits of each filled field's hash, ``Fingerprints/width(filled:)`` bits each,
        /// the `k`-th filled field (in field order) at bit `k × width`.
        var fingerprints: Fingerprints = Fingerprints()
    }

    /// 256 bits shared by a record's filled fields: 19 bits each for 13 fields (a differing value
    /// goes unnoticed with odds of 1 in 500,000), 8 each for 32, at least 4 for all 64. It was a
    /// byte for each of the first 16 only: 1 in 256, and a conflict in a later field was never
    /// seen (an audit found `validate` reporting none where `import` reported one).
    struct Fingerprints: Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        static func width(filled: Int) -> Int { filled == 0 ? 64 : min(64, 256 / filled) }

        /// The `width` bits at bit `offset` (within one word or across two).
        func bits(at offset: Int, width: Int) -> UInt64 {
            var copy = words
            return withUnsafeBytes(of: &copy) { raw in
                let p = raw.bindMemory(to: UInt64.self)
                let w = offset >> 6, shift = offset & 63
                var value = p[w] >> UInt64(shift)
                if shift + width > 64, w < 3 { value |= p[w + 1] << UInt64(64 - shift) }
                return width == 64 ? value : value & ((1 << UInt64(width)) - 1)
            }
        }

        /// The fingerprints of `count` values (the top `width` bits of each `value(k)`), packed in
        /// order. Through a pointer into the words: a switch per word cost ~50 instructions a field.
        init(count: Int, width: Int, value: (Int) -> UInt64) {
            withUnsafeMutableBytes(of: &words) { raw in
                let p = raw.bindMemory(to: UInt64.self)
                var offset = 0
                for k in 0..<count {
                    let bits = value(k) >> UInt64(64 - width)
                    let w = offset >> 6, shift = offset & 63
                    p[w] |= bits << UInt64(shift)
                    if shift + width > 64, w < 3 { p[w + 1] |= bits >> UInt64(64 - shift) }
                    offset += width
                }
            }
        }

        init(words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)) { self.words = words }

        func word(_ i: Int) -> UInt64 {
            switch i {
            case 0: words.0
            case 1: words.1
            case 2: words.2
            default: words.3
            }
        }
    }

    /// A record's values as the tracker compares them: a per-field hash (zero for an empty field)
    /// for the fields that count (see ``ConflictRule``).
    public struct Signature: Sendable {
        public var fieldHashes: [UInt64]
        /// ``mask`` and the XOR of every field hash, when the builder computed them along with the
        /// hashes (``ValidationSink``: two loops less per record); nil to compute them here.
        var summary: (mask: UInt64, hash: UInt64)?
        public init(fieldHashes: [UInt64]) { self.fieldHashes = fieldHashes }

        // Both loops run over a buffer pointer: `enumerated()` over the array cost ~300
        // instructions a record (callgrind).
        var mask: UInt64 {
            if let summary { return summary.mask }
            return fieldHashes.withUnsafeBufferPointer { hashes in
                var m: UInt64 = 0
                for i in 0..<min(hashes.count, 64) where hashes[i] != 0 { m |= 1 << UInt64(i) }
                return m
            }
        }
        /// The top bits of each field hash within `mask`, in field order (see ``Entry/fingerprints``).
        func fingerprints(within mask: UInt64) -> Fingerprints {
            fieldHashes.withUnsafeBufferPointer { hashes in
                var rest = mask
                // The top bits (the low bit of a text hash is forced to 1), field by field in order.
                return Fingerprints(count: mask.nonzeroBitCount, width: Fingerprints.width(filled: mask.nonzeroBitCount)) { _ in
                    let i = rest.trailingZeroBitCount
                    rest &= rest - 1
                    return i < hashes.count ? hashes[i] : 0
                }
            }
        }

        /// XOR of the field hashes within `mask`.
        func hash(within mask: UInt64) -> UInt64 {
            if let summary, summary.mask == mask, fieldHashes.count <= 64 { return summary.hash }
            return fieldHashes.withUnsafeBufferPointer { hashes in
                var x: UInt64 = 0
                for i in hashes.indices where hashes[i] != 0 && (i >= 64 || mask & (1 << UInt64(i)) != 0) { x ^= hashes[i] }
                return x
            }
        }
    }

    /// What happened to a key.
    public enum Outcome: Sendable, Equatable {
        /// First time in this run.
        case new
        /// Seen before in this run; `conflict` when the values differ from the record last seen
        /// with the key (the one a later record replaces), whose place this is; `fields` has bit
        /// `i` set for each field `i` (of the first 64) found to differ.
        case duplicate(conflict: Bool, firstInput: Int, firstLine: Int, fields: UInt64)
    }

    private var seen: KeyTable

    public init() { seen = KeyTable() }

    /// A tracker that keeps at most `liveKeyLimit` keys in memory (tests use a small one to
    /// exercise the spilled runs).
    init(liveKeyLimit: Int) { seen = KeyTable(liveLimit: liveKeyLimit) }

    /// The number of distinct keys seen.
    public var count: Int { seen.count }

    /// Records a key with its record's signature, seen at input number `input`, `line`.
    ///
    /// A repeated key conflicts when a field that both records fill differs, as an import finds it.
    /// When the later record fills at least the fields the earlier one did, one hash of the
    /// earlier values decides. When it fills fewer (or others), the fingerprints of the earlier
    /// record's filled fields decide, field by field (see ``Fingerprints``).
    /// - Throws: ``VinyardError`` `.io` when the temporary file for older keys cannot be written.
    public mutating func observe(key: String, signature: Signature, input: Int, line: Int) throws -> Outcome {
        try observe(KeyHash(key), signature: signature, input: input, line: line)
    }

    /// ``observe(key:signature:input:line:)`` for a key within a table (no string concatenation).
    public mutating func observe(table: String, key: String, signature: Signature, input: Int, line: Int) throws -> Outcome {
        try observe(KeyHash(table, key), signature: signature, input: input, line: line)
    }

    private mutating func observe(_ h: KeyHash, signature: Signature, input: Int, line: Int) throws -> Outcome {
        let mask = signature.mask
        var conflict = false
        var differing: UInt64 = 0
        let earlier = try seen.upsert(h.value) { entry in
            let fingerprints = signature.fingerprints(within: mask)
            guard let entry else {
                return Entry(
                    valuesHash: signature.hash(within: mask), mask: mask, input: Int32(clamping: input),
                    line: Int32(clamping: line), fingerprints: fingerprints)
            }
            if entry.mask & mask == entry.mask {
                conflict = signature.hash(within: entry.mask) != entry.valuesHash
            } else {
                conflict = Self.fingerprintsDiffer(entry, signature, mask)
            }
            // Which fields, for the finding (by their fingerprints: rarely none is found).
            if conflict { differing = Self.differingFields(entry, signature, mask) }
            // With the default policy `last`, the later record replaces the earlier one, and its
            // place is the one the next record with this key is compared with (a conflict named
            // the first record's line, whose values were no longer the ones compared).
            return Entry(
                valuesHash: signature.hash(within: mask), mask: mask, input: Int32(clamping: input), line: Int32(clamping: line),
                fingerprints: fingerprints)
        }
        guard let earlier else { return .new }
        return .duplicate(conflict: conflict, firstInput: Int(earlier.input), firstLine: Int(earlier.line), fields: differing)
    }
}

extension KeyTracker {
    /// The fields (bit `i` for field `i`) both records fill whose fingerprints differ.
    static func differingFields(_ earlier: Entry, _ later: Signature, _ laterMask: UInt64) -> UInt64 {
        later.fieldHashes.withUnsafeBufferPointer { hashes in
            let width = Fingerprints.width(filled: earlier.mask.nonzeroBitCount)
            var rest = earlier.mask
            var k = 0
            var fields: UInt64 = 0
            while rest != 0 {
                let i = rest.trailingZeroBitCount
                rest &= rest - 1
                defer { k += 1 }
                guard laterMask & (1 << UInt64(i)) != 0, i < hashes.count else { continue }
                if earlier.fingerprints.bits(at: k * width, width: width) != hashes[i] >> UInt64(64 - width) {
                    fields |= 1 << UInt64(i)
                }
            }
            return fields
        }
    }

    /// True when a field both records fill has a different fingerprint.
    static func fingerprintsDiffer(_ earlier: Entry, _ later: Signature, _ laterMask: UInt64) -> Bool {
        later.fieldHashes.withUnsafeBufferPointer { hashes in
            let width = Fingerprints.width(filled: earlier.mask.nonzeroBitCount)
            var rest = earlier.mask
            var k = 0
            while rest != 0 {
                let i = rest.trailingZeroBitCount
                rest &= rest - 1
                defer { k += 1 }
                guard laterMask & (1 << UInt64(i)) != 0, i < hashes.count else { continue }
                if earlier.fingerprints.bits(at: k * width, width: width) != hashes[i] >> UInt64(64 - width) { return true }
            }
            return false
        }
    }
}

struct KeyHash: Hashable, Sendable {
    let value: UInt64
    init(_ key: String) {
        value = Self.fnv(key, 0xcbf2_9ce4_8422_2325)
    }
    /// The hash of `table`, a zero byte, then `key`.
    init(_ table: String, _ key: String) {
        value = Self.fnv(key, Self.fnv(table, 0xcbf2_9ce4_8422_2325) &* 0x0000_0100_0000_01B3)
    }
    private static func fnv(_ s: String, _ seed: UInt64) -> UInt64 {
        // Contiguous UTF-8 read in place (walking `s.utf8` by index cost ~45 instructions a byte).
        s.withUTF8Bytes { bytes in
            var h = seed
            for byte in bytes {
                h ^= UInt64(byte)
                h = h &* 0x0000_0100_0000_01B3
            }
            return h
        }
    }
}

/// Which fields count when two records with the same key are compared for `key.conflict`.
public enum ConflictRule {
    /// Provenance (`source`, `source_id`) and VIN-decoded fields (`vin_*`) differ between systems
    /// by nature and never make a conflict.
    public static func counts(field name: String) -> Bool {
        name != "source" && name != "source_id" && !name.hasPrefix("vin_")
    }
}
