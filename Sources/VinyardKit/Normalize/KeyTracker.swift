/// Finds duplicate keys within a run without a database (`validate`, `convert`): it keeps a 64-bit
/// hash of each key with a hash of the record's values and where the key was first seen, so
/// `validate` counts exactly the duplicates and `key.conflict`s an import into an empty database
/// would.
///
/// - Complexity: O(1) expected per record; memory about 32 bytes per distinct key (a 1M-row file
///   with 1M distinct VINs needs ~40 MB) — a database import keeps no such table (it uses the
///   `_run_id` column instead).
public struct KeyTracker: Sendable {
    struct Entry: Sendable {
        var valuesHash: UInt64
        var mask: UInt64
        var input: Int32
        var line: Int32
    }

    /// A record's values as the tracker compares them: a per-field hash (zero for an empty field)
    /// for the fields that count (see ``ConflictRule``).
    public struct Signature: Sendable {
        public var fieldHashes: [UInt64]
        public init(fieldHashes: [UInt64]) { self.fieldHashes = fieldHashes }

        var mask: UInt64 {
            var m: UInt64 = 0
            for (i, h) in fieldHashes.enumerated() where h != 0 && i < 64 { m |= 1 << UInt64(i) }
            return m
        }
        /// XOR of the field hashes within `mask`.
        func hash(within mask: UInt64) -> UInt64 {
            var x: UInt64 = 0
            for (i, h) in fieldHashes.enumerated() where h != 0 && (i >= 64 || mask & (1 << UInt64(i)) != 0) { x ^= h }
            return x
        }
    }

    /// What happened to a key.
    public enum Outcome: Sendable, Equatable {
        /// First time in this run.
        case new
        /// Seen before in this run; `conflict` when the values differ; the first place it was seen.
        case duplicate(conflict: Bool, firstInput: Int, firstLine: Int)
    }

    private var seen = KeyTable()

    public init() {}

    /// The number of distinct keys seen.
    public var count: Int { seen.count }

    /// Records a key with its record's signature, seen at input number `input`, `line`.
    ///
    /// A repeated key conflicts when a field that both records fill differs, as an import finds it.
    /// That is exact when the later record fills at least the fields the earlier one did; when it
    /// fills fewer, any difference in the earlier record's values counts (the tracker keeps one
    /// hash per key, not every value).
    public mutating func observe(key: String, signature: Signature, input: Int, line: Int) -> Outcome {
        observe(KeyHash(key), signature: signature, input: input, line: line)
    }

    /// ``observe(key:signature:input:line:)`` for a key within a table (no string concatenation).
    public mutating func observe(table: String, key: String, signature: Signature, input: Int, line: Int) -> Outcome {
        observe(KeyHash(table, key), signature: signature, input: input, line: line)
    }

    private mutating func observe(_ h: KeyHash, signature: Signature, input: Int, line: Int) -> Outcome {
        let mask = signature.mask
        if let entry = seen[h.value] {
            let conflict: Bool
            if entry.mask & mask == entry.mask {
                conflict = signature.hash(within: entry.mask) != entry.valuesHash
            } else {
                conflict = signature.hash(within: mask) != entry.valuesHash
            }
            // With the default policy `last`, the later record replaces the earlier one.
            seen[h.value] = Entry(valuesHash: signature.hash(within: mask), mask: mask, input: entry.input, line: entry.line)
            return .duplicate(conflict: conflict, firstInput: Int(entry.input), firstLine: Int(entry.line))
        }
        seen[h.value] = Entry(
            valuesHash: signature.hash(within: mask), mask: mask, input: Int32(clamping: input),
            line: Int32(clamping: line))
        return .new
    }
}

/// A 64-bit FNV-1a hash of a key's UTF-8 bytes: stable across runs and platforms, and small.
/// A table from a key's 64-bit hash to its ``KeyTracker/Entry``, for millions of keys: 256
/// open-addressing parts chosen by the hash's top byte, each at most three quarters full and
/// doubled on its own, so growing never holds two copies of the whole table (a `Dictionary` took
/// about 85 bytes a key at its peak; this takes 32 bytes a slot, about 60 a key).
struct KeyTable: Sendable {
    private var parts = [Part](repeating: Part(), count: 256)
    private(set) var count = 0

    /// 0 marks an empty slot (a hash of 0 is stored as 1).
    @inline(__always) private static func stored(_ hash: UInt64) -> UInt64 { hash == 0 ? 1 : hash }

    subscript(_ hash: UInt64) -> KeyTracker.Entry? {
        get {
            let key = Self.stored(hash)
            return parts[Int(truncatingIfNeeded: key >> 56)][key]
        }
        set {
            guard let newValue else { return }  // entries are never removed
            let key = Self.stored(hash)
            if parts[Int(truncatingIfNeeded: key >> 56)].set(key, newValue) { count += 1 }
        }
    }

    private struct Part: Sendable {
        private var keys: [UInt64] = []
        private var entries: [KeyTracker.Entry] = []
        private var count = 0

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

        subscript(_ key: UInt64) -> KeyTracker.Entry? {
            guard count > 0 else { return nil }
            let (i, found) = index(of: key)
            return found ? entries[i] : nil
        }

        /// Stores `entry` for `key`; true when the key is new.
        mutating func set(_ key: UInt64, _ entry: KeyTracker.Entry) -> Bool {
            if keys.isEmpty || (count + 1) * 4 > keys.count * 3 { grow() }
            let (i, found) = index(of: key)
            if !found {
                keys[i] = key
                count += 1
            }
            entries[i] = entry
            return !found
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
