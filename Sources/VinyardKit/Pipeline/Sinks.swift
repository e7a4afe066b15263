/// The `validate` sink: no database; counts exactly what an import into an empty database would
/// (new keys as inserted, repeated keys as duplicates, `key.conflict` when a repeated key's values
/// differ) and writes rejects to a file when asked.
public final class ValidationSink: RecordSink {
    private var tracker = KeyTracker()
    private let rejects: RejectsWriter?
    private var inputNumbers: [String: Int] = [:]
    /// The input names by number (for where a duplicate's key was last read).
    private var inputNames: [String] = []
    private var lastInput: (name: String, number: Int)?
    private var scratch = KeyTracker.Signature(fieldHashes: [])
    private var counted: [Bool] = []
    private var countedSchema = ""

    public init(rejects: RejectsWriter? = nil) {
        self.rejects = rejects
    }

    public func accept(_ record: CanonicalRecord, schema: Schema, source: String) throws -> WriteResult {
        guard let key = record.key else { return WriteResult(outcome: .rejected) }
        let input = inputNumber(record.provenance.input)
        let outcome = try tracker.observe(
            table: schema.name, key: key, signature: signature(record.values, schema: schema), input: input,
            line: record.provenance.line)
        switch outcome {
        case .new:
            return WriteResult(outcome: .inserted)
        case .duplicate(let conflict, let firstInput, let firstLine, let fields):
            let earlier = inputNames.indices.contains(firstInput)
                ? Provenance(input: inputNames[firstInput], line: firstLine) : nil
            guard conflict else { return WriteResult(outcome: .duplicate, earlier: earlier) }
            // The fields that differ (an import also names their values; this sink keeps none).
            let names = schema.fields.indices.filter { $0 < 64 && fields & (1 << UInt64($0)) != 0 }.map { schema.fields[$0].name }
            let finding = Finding(
                .keyConflict, .warning, field: names.first ?? schema.primaryKey.first,
                message: "\(key) appeared before (\(earlier.map { $0.input == record.provenance.input ? "line \($0.line)" : "\($0.input):\($0.line)" } ?? "line \(firstLine)")) with different values"
                    + (names.isEmpty ? "" : " of \(names.joined(separator: ", "))") + "; "
                    + "the later record wins (--on-duplicate last) — check which one is right",
                input: record.provenance.input, line: record.provenance.line, element: record.provenance.index)
            return WriteResult(outcome: .duplicate, conflicts: [finding], earlier: earlier)
        }
    }

    public func reject(_ record: CanonicalRecord, schema: Schema, source: String) throws {
        try rejects?.write(record)
    }

    public func beginInput(_ style: InputStyle) { rejects?.beginInput(style) }

    public func reject(_ reject: RawReject, source: String?) throws {
        try rejects?.write(reject)
    }

    /// Closes the rejects file.
    public func finish() throws { try rejects?.finish() }

    private func inputNumber(_ name: String) -> Int {
        // Records come input by input: the last name answers almost every call without hashing
        // the name (a dictionary lookup was ~350 instructions a row, callgrind).
        if let last = lastInput, last.name == name { return last.number }
        let n = inputNumbers[name] ?? inputNumbers.count
        if n == inputNames.count { inputNames.append(name) }
        inputNumbers[name] = n
        lastInput = (name, n)
        return n
    }

    /// Per-field hashes of the values that count for a conflict (see ``ConflictRule``); zero for
    /// an empty field or one that does not count. Reuses one buffer: no allocation per record.
    private func signature(_ values: [FieldValue?], schema: Schema) -> KeyTracker.Signature {
        if countedSchema != schema.name {
            counted = schema.fields.map { ConflictRule.counts(field: $0.name) }
            countedSchema = schema.name
        }
        // Filled as a local array (no uniqueness and exclusivity checks of the property per value),
        // through a buffer pointer: `append` checked the array's uniqueness per value.
        var hashes = scratch.fieldHashes
        scratch.fieldHashes = []
        if hashes.count != values.count { hashes = Array(repeating: 0, count: values.count) }
        var mask: UInt64 = 0, all: UInt64 = 0
        // Borrowed elements: a `let v = values[i]` copy retained and released each value's string.
        counted.withUnsafeBufferPointer { counted in
            values.withUnsafeBufferPointer { values in
                hashes.withUnsafeMutableBufferPointer { out in
                    for i in values.indices {
                        guard i < counted.count, counted[i] else {
                            out[i] = 0
                            continue
                        }
                        switch values[i] {
                        case nil: out[i] = 0
                        case .text(let s)?: out[i] = Self.textHash(s, index: i)
                        case .integer(let v)?: out[i] = Self.wordHash(2, UInt64(bitPattern: v), index: i)
                        case .real(let d)?: out[i] = Self.wordHash(3, d == 0 ? 0 : d.bitPattern, index: i)
                        case .bool(let b)?: out[i] = Self.wordHash(4, b ? 1 : 0, index: i)
                        }
                        if out[i] != 0 {
                            if i < 64 { mask |= 1 << UInt64(i) }
                            all ^= out[i]
                        }
                    }
                }
            }
        }
        scratch.fieldHashes = hashes
        scratch.summary = (mask, all)
        return scratch
    }

    @inline(__always)
    private static func seeded(_ index: Int) -> RowHasher {
        var hasher = RowHasher()
        hasher.mix(UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
        return hasher
    }

    /// A value's hash is never zero (zero marks an empty field). A text's hash is mixed eight bytes
    /// a step (``RowHasher``); an empty text is empty (zero).
    @inline(__always)
    private static func textHash(_ s: String, index: Int) -> UInt64 {
        var hasher = seeded(index)
        hasher.mix(1)
        let empty = s.withUTF8Bytes { bytes in
            if bytes.isEmpty { return true }
            hasher.mix(bytes: UnsafeRawBufferPointer(bytes))
            return false
        }
        return empty ? 0 : hasher.finalize() | 1
    }

    @inline(__always)
    private static func wordHash(_ kind: UInt64, _ word: UInt64, index: Int) -> UInt64 {
        var hasher = seeded(index)
        hasher.mix(kind)
        hasher.mix(word)
        return hasher.finalize() | 1
    }
}

/// The `import` sink: writes through one ``ImportSession`` (one transaction), with the run's
/// duplicate policy.
public final class StoreSink: RecordSink {
    public let session: ImportSession
    public let policy: DuplicatePolicy
    private let rejects: RejectsWriter?

    public init(session: ImportSession, policy: DuplicatePolicy, rejects: RejectsWriter? = nil) {
        self.session = session
        self.policy = policy
        self.rejects = rejects
    }

    public func accept(_ record: CanonicalRecord, schema: Schema, source: String) throws -> WriteResult {
        try clearEarlierReject(record.raw)
        return try session.write(record, schema: schema, source: source, policy: policy)
    }

    public var wantsRowHash: Bool { true }

    public func accept(
        _ record: CanonicalRecord, schema: Schema, source: String, rowHash: Int64?, keyHash: UInt64?
    ) throws -> WriteResult {
        try clearEarlierReject(record.raw)
        return try session.write(record, schema: schema, source: source, policy: policy, rowHash: rowHash, keyHash: keyHash)
    }

    /// A record of a rejects file imported again (fixed): its `_input`, `_line` (and `_element`)
    /// name where an earlier run rejected it, and that reject goes, replaced by what this run does
    /// with the record (loaded, or rejected again under the rejects file's name). It stayed: the
    /// database listed loaded vehicles as rejects, and records still broken twice (found by audit).
    private func clearEarlierReject(_ raw: RawRecord) throws {
        // Only a record whose last field is bookkeeping (`_extra`, `_findings`) is looked at.
        guard let last = raw.fields.last, last.name.utf8.first == UInt8(ascii: "_") else { return }
        var input: String?, line: Int?, element: Int?
        for field in raw.fields.suffix(6) {
            switch field.name {
            case "_input": input = field.value.scalarText
            case "_line": line = field.value.scalarText.flatMap { Int(ValueParser.trimmed($0)) }
            case "_element": element = field.value.scalarText.flatMap { Int(ValueParser.trimmed($0)) }
            default: break
            }
        }
        guard let input, let line, input != raw.provenance.input else { return }
        try session.clearEarlierReject(input: input, line: line, element: element)
    }

    public func prefetch(keyHashes: UnsafeBufferPointer<UInt64>, schema: Schema) {
        session.prefetch(keyHashes: keyHashes, schema: schema)
    }

    /// Rows replaced within the run (`last`) get their records' raw fields in `duplicates`.
    public func didReadInputs(_ records: RawRecordRereader) throws {
        try session.fillReplacedRawFields { entry in
            try records.record(input: entry.input, line: entry.line, element: entry.element, key: entry.key)?.fields
        }
    }

    public func reject(_ record: CanonicalRecord, schema: Schema, source: String) throws {
        try clearEarlierReject(record.raw)
        try session.writeReject(raw: record.raw, findings: record.findings, source: source, table: schema.name)
        try rejects?.write(record)
    }

    public func beginInput(_ style: InputStyle) { rejects?.beginInput(style) }

    public func reject(_ reject: RawReject, source: String?) throws {
        try session.writeReject(reject, source: source)
        try rejects?.write(reject)
    }
}

/// The `convert` sink: writes each valid record's canonical values to an output file (columns of
/// the first record's schema), rejects aside. Duplicates are found as `validate` finds them.
///
/// A stream cannot take back a row it has written, so keeping the *last* record of a repeated key
/// (`import`'s default) takes two passes: the first (``init(rejects:makeWriter:)``) writes the
/// first record of each key and counts the occurrences of repeated keys (``repeatedKeys``); when
/// there are any, a second pass over the same input (``init(keepingLastOf:makeWriter:)``) writes
/// each repeated key only at its last occurrence.
public final class ConvertSink: RecordSink {
    private let makeWriter: ([String]) throws -> any RecordWriter
    private var writer: (any RecordWriter)?
    private var schemaName: String?
    private var columns: [String] = []
    private let validation: ValidationSink
    /// First pass: occurrences of each key seen more than once, by key hash.
    public let repeatedKeys: RepeatedKeys
    /// Second pass: whether `repeatedKeys` counts the occurrences still to come.
    private let secondPass: Bool

    /// - Parameter makeWriter: builds the output writer for the given columns, on the first record.
    public convenience init(rejects: RejectsWriter?, makeWriter: @escaping ([String]) throws -> any RecordWriter) {
        self.init(rejects: rejects, liveKeyLimit: KeyTable.defaultLiveLimit, makeWriter: makeWriter)
    }

    /// The first pass with a key table that keeps at most `liveKeyLimit` keys in memory (tests).
    init(rejects: RejectsWriter?, liveKeyLimit: Int, makeWriter: @escaping ([String]) throws -> any RecordWriter) {
        self.makeWriter = makeWriter
        self.validation = ValidationSink(rejects: rejects)
        self.repeatedKeys = RepeatedKeys(liveKeyLimit: liveKeyLimit)
        self.secondPass = false
    }

    /// The second pass: writes a repeated key's record at its last occurrence (`repeatedKeys` of
    /// the first pass over the same input); rejects were written by the first.
    public init(keepingLastOf repeatedKeys: RepeatedKeys, makeWriter: @escaping ([String]) throws -> any RecordWriter) {
        self.makeWriter = makeWriter
        self.validation = ValidationSink(rejects: nil)
        self.repeatedKeys = repeatedKeys
        self.secondPass = true
    }

    public func accept(_ record: CanonicalRecord, schema: Schema, source: String) throws -> WriteResult {
        if writer == nil {
            columns = schema.fields.map(\.name)
            schemaName = schema.name
            writer = try makeWriter(columns)
        }
        guard schema.name == schemaName else {
            throw VinyardError(
                .usage,
                "\(record.provenance.input) maps to table \(schema.name) but the output already holds "
                    + "\(schemaName ?? "?") records; convert one kind of input per output file")
        }
        let result = try validation.accept(record, schema: schema, source: source)
        var write = result.outcome == .inserted
        if let key = record.key {
            if secondPass {
                if let left = try repeatedKeys.countDown(KeyHash(schema.name, key).value) { write = left == 0 }
            } else if result.outcome == .duplicate {
                try repeatedKeys.countRepeat(KeyHash(schema.name, key).value)
            }
        }
        if write { try writer?.write(values: record.values, columns: columns) }
        return result
    }

    public func reject(_ record: CanonicalRecord, schema: Schema, source: String) throws {
        try validation.reject(record, schema: schema, source: source)
    }

    public func beginInput(_ style: InputStyle) { validation.beginInput(style) }

    public func reject(_ reject: RawReject, source: String?) throws {
        try validation.reject(reject, source: source)
    }

    /// Ends the output (an input with no valid record still gets a well-formed empty output) and
    /// closes the rejects file.
    public func finish(emptyColumns: [String]) throws {
        if writer == nil { writer = try makeWriter(emptyColumns) }
        try writer?.finish()
        try validation.finish()
    }
}

/// The keys `convert`'s first pass saw more than once, each with its occurrences, in bounded
/// memory (a ``KeyTable``: older keys move to a temporary file). A dictionary held every repeated
/// key: 165 MB for a million (a file whose every key repeats), without bound.
public final class RepeatedKeys {
    private var table: HashKeyTable<RepeatCount>

    init(liveKeyLimit: Int = KeyTable.defaultLiveLimit) { table = HashKeyTable(liveLimit: liveKeyLimit) }

    /// True when no key repeated.
    public var isEmpty: Bool { table.count == 0 }

    /// The number of keys that repeated.
    public var count: Int { table.count }

    /// A repeat of a key (its second occurrence counts the first too).
    func countRepeat(_ hash: UInt64) throws {
        try table.upsert(hash) { entry in
            var e = entry ?? RepeatCount(count: 1)
            e.count += 1
            return e
        }
    }

    /// One occurrence of a key in the second pass: how many of its occurrences are still to come
    /// after this one (0: this is its last), or nil when the key did not repeat.
    func countDown(_ hash: UInt64) throws -> UInt64? {
        let old = try table.update(hash) { entry in
            var e = entry
            if e.count > 0 { e.count -= 1 }
            return e
        }
        guard let old, old.count > 0 else { return nil }
        return old.count - 1
    }
}
