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
        var valuesHash: Int
        var input: Int32
        var line: Int32
    }

    /// What happened to a key.
    public enum Outcome: Sendable, Equatable {
        /// First time in this run.
        case new
        /// Seen before in this run; `conflict` when the values differ; the first place it was seen.
        case duplicate(conflict: Bool, firstInput: Int, firstLine: Int)
    }

    private var seen: [KeyHash: Entry] = [:]

    public init() {}

    /// The number of distinct keys seen.
    public var count: Int { seen.count }

    /// Records a key with the hash of its record's values, seen at input number `input`, `line`.
    public mutating func observe(key: String, valuesHash: Int, input: Int, line: Int) -> Outcome {
        let h = KeyHash(key)
        if let entry = seen[h] {
            let conflict = entry.valuesHash != valuesHash
            if conflict {
                // With the default policy `last`, the later record replaces the earlier one.
                seen[h] = Entry(valuesHash: valuesHash, input: entry.input, line: entry.line)
            }
            return .duplicate(conflict: conflict, firstInput: Int(entry.input), firstLine: Int(entry.line))
        }
        seen[h] = Entry(
            valuesHash: valuesHash, input: Int32(clamping: input), line: Int32(clamping: line))
        return .new
    }
}

/// A 64-bit FNV-1a hash of a key's UTF-8 bytes: stable across runs and platforms, and small.
struct KeyHash: Hashable, Sendable {
    let value: UInt64
    init(_ key: String) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        value = h
    }
}
