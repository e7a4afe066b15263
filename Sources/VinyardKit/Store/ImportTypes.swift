/// What to do with a record whose key is already stored (DESIGN.md "Normalization and deduplication").
public enum DuplicatePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Later inputs are newer: the later record replaces the row (the default).
    case last
    /// The row first stored is kept; the later record is dropped.
    case first
    /// Later non-empty values fill the row's empty fields; conflicting values keep the stored one
    /// and are `key.conflict` warnings.
    case merge
}

/// What ``ImportSession/write(_:schema:source:policy:)`` did with a record.
public enum WriteOutcome: String, Sendable, Hashable, Codable {
    /// A new key: a row was added.
    case inserted
    /// The key was stored before this run and the row changed.
    case updated
    /// The key was stored before this run and the row did not change (it was not rewritten).
    case unchanged
    /// The key already appeared earlier in this run; the policy replaced, dropped or merged it,
    /// and the displaced or dropped record is kept in the `duplicates` table.
    case duplicate
    /// The record carries an error finding (or has no key): it went to the `rejects` table.
    case rejected
}

/// The outcome of writing one record, and the findings the store itself produced (`key.conflict`).
public struct WriteResult: Sendable, Hashable {
    public var outcome: WriteOutcome
    /// `key.conflict` warnings, one per field whose values differ between the stored row and the
    /// record (also recorded in the `findings` table).
    public var conflicts: [Finding]
    /// For a duplicate: where its key was first read in the run, when the sink knows (`validate`'s does).
    public var earlier: Provenance?
    public init(outcome: WriteOutcome, conflicts: [Finding] = [], earlier: Provenance? = nil) {
        self.outcome = outcome
        self.conflicts = conflicts
        self.earlier = earlier
    }
}

/// The counts of an import. The invariant `read = inserted + updated + unchanged + duplicates +
/// rejected` holds for the counts an ``ImportSession`` keeps.
public struct ImportCounts: Sendable, Hashable, Codable {
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var duplicates = 0
    public var rejected = 0

    public init(read: Int = 0, inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, duplicates: Int = 0, rejected: Int = 0) {
        self.read = read
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.duplicates = duplicates
        self.rejected = rejected
    }

    /// True when `read == inserted + updated + unchanged + duplicates + rejected`.
    public var isBalanced: Bool { read == inserted + updated + unchanged + duplicates + rejected }

    /// Counts one record with this outcome (`read` and the outcome's count).
    public mutating func add(_ outcome: WriteOutcome) {
        read += 1
        switch outcome {
        case .inserted: inserted += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        case .duplicate: duplicates += 1
        case .rejected: rejected += 1
        }
    }
}

/// One input of an import, as recorded in `import_runs.inputs`.
public struct ImportInput: Sendable, Hashable, Codable {
    /// The input name as in provenance (a path, or `-`).
    public var name: String
    /// A content hash of the input's bytes as stored (the pipeline uses a 64-bit hash from
    /// ``CountingByteSource``, not a cryptographic one), hex.
    public var contentHash: String?
    /// The input's size in bytes.
    public var size: Int64?
    /// The detected or forced source mapping.
    public var source: String?
    /// Records read from this input; nil lets ``ImportSession/finish(inputs:status:)`` fill in
    /// the count it kept from provenance.
    public var read: Int?
    /// Records rejected from this input; nil: filled in like `read`.
    public var rejected: Int?

    public init(name: String, contentHash: String? = nil, size: Int64? = nil, source: String? = nil, read: Int? = nil, rejected: Int? = nil) {
        self.name = name
        self.contentHash = contentHash
        self.size = size
        self.source = source
        self.read = read
        self.rejected = rejected
    }
}

/// What ``ImportSession/finish(inputs:status:)`` recorded in `import_runs`.
public struct ImportRunReport: Sendable, Hashable, Codable {
    /// `import_runs.id`.
    public var runID: Int64
    public var counts: ImportCounts
    /// Findings per code: those the records carried (loaded, rejected and duplicate records) plus
    /// the store's `key.conflict` warnings.
    public var findings: [String: Int]
    public var inputs: [ImportInput]
    public var elapsedSeconds: Double
    public var status: String
}
