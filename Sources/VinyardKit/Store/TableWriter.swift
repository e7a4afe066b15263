import CSQLite

/// A stored row found by its key: rowid, `_run_id`, `_hash`, and whether it was stored from the
/// provenance the lookup asked about.
struct StoredKey {
    var rowID: Int64
    var runID: Int64
    var hash: Int64
    var sameProvenance = true
}

/// The prepared statements and per-table state for writing one schema's rows in an import run.
/// Parameters are numbered so the INSERT and the UPDATE bind the same way:
/// `?1` key, `?2…?n+1` fields, then source, input, line, run id, hash, updated-at, (the
/// UPDATE's rowid,) element.
final class TableWriter {
    let schema: Schema
    let names: [String]
    /// The indices of the `source` and `source_id` fields (nil in a schema without them).
    let sourceField: Int?
    let sourceIDField: Int?
    /// Each field's type (the digest's, kept in one place).
    var types: [Field.FieldType] { digest.types }
    /// The row hash of this schema's values.
    let digest: RowDigest
    let insert: Statement
    let update: Statement
    let select: Statement
    let probe: Statement
    /// Sets `_input`, `_line`, `_element` of a row by rowid (an unchanged record met under another
    /// line or element).
    let moveProvenance: Statement
    let markSeen: Statement
    let checkSeen: Statement
    /// The temporary table of rows from earlier runs met in this run (by rowid), with the hash
    /// they had before the run.
    let seenTable: String
    /// The temporary table of rows from earlier runs that this run rewrote, with the `_run_id`
    /// and `_updated_at` they had and the `duplicates` entry the rewrite added: where a later
    /// record of the run puts the row back as it was, ``restoreNetUnchanged(duplicates:)`` undoes both.
    let rewrittenTable: String
    private let noteRewritten: Statement
    /// True when the last write met an existing key: the next write looks the key up before
    /// trying to insert (re-imports are mostly existing keys, first imports mostly new ones).
    var lastConflicted = false

    /// The table's unique index on `_key`.
    let keyIndex: String
    /// The keys inserted in this run while the key index is dropped (the table was empty when
    /// the run started); nil when the index is in place.
    var runKeys: RunKeyIndex?
    /// Queues and writes new rows while ``runKeys`` is set (the key index is dropped).
    let appender: RowAppender
    /// `_key`, `_run_id`, `_hash` of a row by rowid.
    let keyAt: Statement
    private let connection: Connection

    var fieldCount: Int { names.count }
    var sourceIndex: Int { fieldCount + 2 }
    var inputIndex: Int { fieldCount + 3 }
    var lineIndex: Int { fieldCount + 4 }
    var runIndex: Int { fieldCount + 5 }
    var hashIndex: Int { fieldCount + 6 }
    var updatedIndex: Int { fieldCount + 7 }
    var rowIDIndex: Int { fieldCount + 8 }
    var elementIndex: Int { fieldCount + 9 }

    init(
        schema: Schema, ordinal: Int, connection: Connection, runID: Int64, timestamp: String, fastKeyLimit: Int,
        runKeyLiveLimit: Int = RunKeyIndex.defaultLiveLimit
    ) throws(StoreError) {
        self.schema = schema
        self.connection = connection
        names = schema.fields.map(\.name)
        sourceField = names.firstIndex(of: "source")
        sourceIDField = names.firstIndex(of: "source_id")
        digest = RowDigest(schema: schema)
        let n = names.count
        let table = quoteIdentifier(schema.name)
        let fieldColumns = names.map(quoteIdentifier)
        let insertColumns = ["\"_key\""] + fieldColumns + [
            "\"_source\"", "\"_input\"", "\"_line\"", "\"_run_id\"", "\"_first_run_id\"", "\"_hash\"", "\"_updated_at\"",
            "\"_element\"",
        ]
        var placeholders = (1...(n + 5)).map { "?\($0)" }
        placeholders += ["?\(n + 5)", "?\(n + 6)", "?\(n + 7)", "?\(n + 9)"]
        let insertSQL =
            "INSERT INTO \(table)(\(insertColumns.joined(separator: ","))) VALUES(\(placeholders.joined(separator: ",")))"
        insert = try connection.prepare(insertSQL + " ON CONFLICT(\"_key\") DO NOTHING", persistent: true)
        appender = RowAppender(
            connection: connection, table: table, fieldColumns: fieldColumns, runID: runID, timestamp: timestamp)
        keyAt = try connection.prepare(
            "SELECT \"_key\", \"_run_id\", \"_hash\" FROM \(table) WHERE rowid=?1", persistent: true)
        var sets = fieldColumns.enumerated().map { "\($0.element)=?\($0.offset + 2)" }
        sets += [
            "\"_source\"=?\(n + 2)", "\"_input\"=?\(n + 3)", "\"_line\"=?\(n + 4)", "\"_run_id\"=?\(n + 5)",
            "\"_hash\"=?\(n + 6)", "\"_updated_at\"=?\(n + 7)", "\"_element\"=?\(n + 9)",
        ]
        update = try connection.prepare(
            "UPDATE \(table) SET \(sets.joined(separator: ",")) WHERE rowid=?\(n + 8)", persistent: true)
        select = try connection.prepare(
            "SELECT \(fieldColumns.joined(separator: ",")),\"_run_id\",\"_hash\",\"_input\",\"_line\",\"_source\",\"_updated_at\",\"_element\" "
                + "FROM \(table) WHERE rowid=?1", persistent: true)
        probe = try connection.prepare(
            "SELECT rowid, \"_run_id\", \"_hash\", \"_input\", \"_line\", \"_element\" FROM \(table) WHERE \"_key\"=?1",
            persistent: true)
        moveProvenance = try connection.prepare(
            "UPDATE \(table) SET \"_input\"=?1, \"_line\"=?2, \"_element\"=?4 WHERE rowid=?3", persistent: true)
        seenTable = "temp.vinyard_seen_\(ordinal)"
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS \(seenTable)(row INTEGER PRIMARY KEY, prev_hash INTEGER NOT NULL,
              changed INTEGER NOT NULL);
            DELETE FROM \(seenTable);
            """)
        markSeen = try connection.prepare(
            "INSERT OR REPLACE INTO \(seenTable)(row, prev_hash, changed) VALUES(?1, ?2, ?3)", persistent: true)
        checkSeen = try connection.prepare(
            "SELECT prev_hash, changed FROM \(seenTable) WHERE row=?1", persistent: true)
        rewrittenTable = "temp.vinyard_rewritten_\(ordinal)"
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS \(rewrittenTable)(row INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,
              updated_at TEXT, replaced_id INTEGER, replaced_raw TEXT);
            DELETE FROM \(rewrittenTable);
            """)
        noteRewritten = try connection.prepare(
            "INSERT OR IGNORE INTO \(rewrittenTable)(row, run_id, updated_at, replaced_id, replaced_raw) VALUES(?1, ?2, ?3, ?4, ?5)",
            persistent: true)
        for statement in [insert, update] {
            try statement.bind(runID, at: n + 5)
            try statement.bind(timestamp, at: n + 7)
        }
        keyIndex = VinyardStore.keyIndexName(schema.name)
        if fastKeyLimit > 0, try Self.canDropKeyIndex(keyIndex, table: table, connection: connection) {
            // An empty table with our own (droppable) key index: insert without it and build it,
            // sorted, at the end of the run. Inside the run's transaction, so a rollback or a kill
            // brings the index back with everything else.
            try connection.execute("DROP INDEX \(quoteIdentifier(keyIndex))")
            runKeys = RunKeyIndex(limit: fastKeyLimit, liveLimit: runKeyLiveLimit)
            // Appending rows needs few pages in cache (dirty ones spill to the WAL): leave the
            // memory to the run keys; the index build at the end gets the full cache back.
            try connection.execute("PRAGMA cache_size=\(VinyardStore.appendCacheSize)")
        }
    }

    /// True when `table` has no rows and its key index is `index` (not the automatic index of an
    /// inline `PRIMARY KEY`, which cannot be dropped).
    private static func canDropKeyIndex(_ index: String, table: String, connection: Connection) throws(StoreError) -> Bool {
        let hasIndex = try connection.prepare(
            "SELECT 1 FROM main.sqlite_schema WHERE type='index' AND name=?1")
        try hasIndex.bind(index, at: 1)
        guard try hasIndex.step() else { return false }
        let anyRow = try connection.prepare("SELECT 1 FROM \(table) LIMIT 1")
        return try !anyRow.step()
    }

    /// Builds the key index again when it was dropped for this run (a sort of the keys: no
    /// duplicates can be there, the run kept them out) and forgets the in-memory keys.
    func restoreKeyIndex() throws(StoreError) {
        guard runKeys != nil else { return }
        try flushAppends()
        runKeys = nil
        // The sort of the keys spills sorted runs to temporary files and merges them; its memory
        // grows with the page cache and with each helper thread's merge buffers. A small cache and
        // one helper (the pipeline has left the second core idle by now) keep the peak low and
        // flat from 1M to 5M keys at the same speed (see ``VinyardStore/indexBuildCacheSize`` for
        // the measurements).
        try connection.execute("PRAGMA cache_size=\(VinyardStore.indexBuildCacheSize)")
        let helpers = VinyardStore.indexBuildThreads
        if helpers > 0 { try connection.execute("PRAGMA threads=\(helpers)") }
        defer { if helpers > 0 { try? connection.execute("PRAGMA threads=0") } }
        try connection.execute(VinyardStore.createKeyIndexSQL(table: schema.name))
        try connection.execute("PRAGMA cache_size=\(VinyardStore.writerCacheSize)")
        lastConflicted = false
    }

    /// The rowid, run id and hash of the row inserted in this run for `key` (hash `keyHash`),
    /// while the key index is dropped; nil for a new key.
    func findInRun(_ key: String, keyHash: UInt64) throws(StoreError) -> StoredKey? {
        guard runKeys != nil else { return nil }
        // A queued row may have this key: it must be in the table to be found.
        if appender.contains(keyHash: keyHash) { try flushAppends() }
        guard let runKeys else { return nil }
        var result: StoredKey?
        let keyAt = self.keyAt
        do {
            _ = try runKeys.find(keyHash) { rowID in
                keyAt.reset()
                try keyAt.bind(rowID, at: 1)
                defer { keyAt.reset() }
                guard try keyAt.step() else { return false }
                let same = keyAt.withTextBytes(0) { stored in
                    var key = key
                    return key.withUTF8 { $0.elementsEqual(stored) }
                }
                if same { result = StoredKey(rowID: rowID, runID: keyAt.int64(1), hash: keyAt.int64(2)) }
                return same
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(extendedCode: 1, message: "\(error)")
        }
        return result
    }

    /// Adds a row for a new key while the key index is dropped (``runKeys`` is set): queued, and
    /// written with the next batch (see ``RowAppender``).
    func append(
        key: String, values: [FieldValue?], source: String?, input: String?, line: Int?, element: Int?, hash: Int64,
        keyHash: UInt64
    ) throws(StoreError) {
        try appender.append(
            key: key, values: values, source: source, input: input, line: line, element: element, hash: hash, keyHash: keyHash
        ) { (keyHash, rowID) throws(StoreError) in try rememberInRun(keyHash: keyHash, rowID: rowID) }
    }

    /// Writes the queued new rows and remembers their keys.
    func flushAppends() throws(StoreError) {
        try appender.flush { (keyHash, rowID) throws(StoreError) in try rememberInRun(keyHash: keyHash, rowID: rowID) }
    }

    /// Remembers the row just inserted for a new key while the key index is dropped; builds the
    /// index instead when the in-memory keys are full (memory stays bounded).
    func rememberInRun(keyHash: UInt64, rowID: Int64) throws(StoreError) {
        guard let runKeys else { return }
        if runKeys.hasRoom, rowID >= 1, rowID <= RunKeyIndex.maxRowID {
            do {
                try runKeys.insert(keyHash, rowID: rowID)
            } catch {
                throw StoreError(extendedCode: SQLITE_IOERR, message: "\(error)")
            }
        } else {
            try restoreKeyIndex()
        }
    }

    /// The value in the form SQLite stores for the field's column type, so a value read back
    /// compares (and hashes) equal to the one written.
    static func normalize(_ value: FieldValue?, _ type: Field.FieldType) -> FieldValue? {
        guard let value else { return nil }
        switch (type, value) {
        case (.integer, .real(let d)) where d == d.rounded() && abs(d) < 9e15: return .integer(Int64(d))
        case (.integer, .bool(let b)): return .integer(b ? 1 : 0)
        case (.number, .integer(let i)): return .real(Double(i))
        case (.number, .bool(let b)): return .real(b ? 1 : 0)
        case (.boolean, .integer(let i)) where i == 0 || i == 1: return .bool(i == 1)
        case (.string, .integer), (.string, .real), (.string, .bool),
            (.date, .integer), (.datetime, .integer), (.yearmonth, .integer), (.dateOrYearMonth, .integer),
            (.array, .integer), (.array, .real), (.array, .bool):
            return .text(value.text)
        default: return value
        }
    }

    /// A value read back from column `index` of `statement`, typed for field `field`.
    func readValue(_ statement: Statement, _ index: Int, field: Int) -> FieldValue? {
        let value = statement.value(index)
        if types[field] == .boolean, case .integer(let i) = value { return .bool(i != 0) }
        return Self.normalize(value, types[field])
    }

    /// The row hash of `values` (see ``RowDigest/hash(_:)``).
    func hash(_ values: [FieldValue?]) -> Int64 { digest.hash(values) }

    /// True when some value is not in the form ``normalize(_:_:)`` gives.
    func needsNormalization(_ values: [FieldValue?]) -> Bool { digest.needsNormalization(values) }

    /// Bytes of the current row's text values, bound with `SQLITE_STATIC` (no copy, no malloc per
    /// value in SQLite): valid until the next ``bindRow`` rebinds every text parameter.
    /// Unchecked: only ``bindRow`` touches it, never re-entrantly (dynamic exclusivity checks on
    /// each of a row's ~15 appends cost ~1k instructions per row).
    @exclusivity(unchecked) private var arena = RowArena()

    /// Binds the key, values and provenance of a row to `statement` (the INSERT or the UPDATE).
    /// Text goes through ``RowArena``: one copy into a buffer this writer owns, bound without
    /// SQLite copying it again.
    func bindRow(
        _ statement: Statement, key: String, values: [FieldValue?], source: String?, input: String?, line: Int?,
        element: Int?, hash: Int64
    ) throws(StoreError) {
        statement.reset()
        var needed = key.utf8.count
        for case .text(let s)? in values { needed += s.utf8.count }
        arena.reset(capacity: needed)
        try statement.bindStatic(arena.append(key), at: 1)
        var nulls = statement.nullParameters
        // Also after a failed bind: the bits say what is bound, up to the failure.
        defer { statement.nullParameters = nulls }
        try values.withUnsafeBufferPointer { (values) throws(StoreError) in
            for i in values.indices {
                let p = i + 2
                let bit: UInt64 = p <= 64 ? 1 << UInt64(p - 1) : 0
                if values[i] == nil {
                    if nulls & bit == 0 { try statement.bindNull(at: p) }
                    nulls |= bit
                    continue
                }
                nulls &= ~bit
                switch values[i] {
                case .text(let s)?: try statement.bindStatic(arena.append(s), at: p)
                case .integer(let v)?: try statement.bind(v, at: p)
                case .real(let d)?: try statement.bind(d, at: p)
                case .bool(let b)?: try statement.bind(Int64(b ? 1 : 0), at: p)
                case nil: break
                }
            }
        }
        try statement.bindRepeating(source, at: sourceIndex)
        try statement.bindRepeating(input, at: inputIndex)
        try statement.bind(line, at: lineIndex)
        try statement.bind(element, at: elementIndex)
        try statement.bind(hash, at: hashIndex)
    }

    /// Sets the row's `_input`, `_line` and `_element` to `provenance`'s, leaving its values, run
    /// and time as they are.
    func move(_ rowID: Int64, to provenance: Provenance) throws(StoreError) {
        moveProvenance.reset()
        defer { moveProvenance.reset() }
        try moveProvenance.bind(provenance.input, at: 1)
        try moveProvenance.bind(Int64(provenance.line), at: 2)
        try moveProvenance.bind(rowID, at: 3)
        try moveProvenance.bind(provenance.index, at: 4)
        try moveProvenance.step()
    }

    /// The stored row for `key`, or nil; `sameProvenance` tells whether its `_input`, `_line` and
    /// `_element` are `provenance`'s.
    func find(_ key: String, provenance: Provenance) throws(StoreError) -> StoredKey? {
        probe.reset()
        defer { probe.reset() }
        try probe.bind(key, at: 1)
        guard try probe.step() else { return nil }
        let sameProvenance =
            !probe.isNull(4) && probe.int64(4) == Int64(provenance.line)
            && (probe.isNull(5) ? provenance.index == nil : provenance.index.map(Int64.init) == probe.int64(5))
            && probe.withTextBytes(3) { stored in
                var input = provenance.input
                return input.withUTF8 { $0.elementsEqual(stored) }
            }
        return StoredKey(rowID: probe.int64(0), runID: probe.int64(1), hash: probe.int64(2), sameProvenance: sameProvenance)
    }

    /// Rows from earlier runs met in this run, one bit per rowid (below ``maxBitmapRowID``). A row
    /// met once and left unchanged needs no entry in the seen table: its stored hash is still the
    /// one it had before the run. Only rows rewritten in this run (and rowids past the bitmap)
    /// get an entry, so a re-import runs no statement per row besides the key lookup.
    private var seenBits: [UInt64] = []
    /// Rowids from here on are tracked in the seen table only (the bitmap stays under 32 MiB).
    static let maxBitmapRowID: Int64 = 1 << 28

    /// The hash the row had before this run and whether the run changed it, when the row (stored
    /// before this run, now with hash `currentHash`) was already met in this run; nil otherwise.
    func seenEntry(_ rowID: Int64, currentHash: Int64) throws(StoreError) -> (prevHash: Int64, changed: Bool)? {
        let inBitmap = rowID >= 0 && rowID < Self.maxBitmapRowID
        if inBitmap {
            let word = Int(rowID >> 6)
            guard word < seenBits.count, seenBits[word] & (1 << UInt64(rowID & 63)) != 0 else { return nil }
        }
        checkSeen.reset()
        defer { checkSeen.reset() }
        try checkSeen.bind(rowID, at: 1)
        if try checkSeen.step() { return (checkSeen.int64(0), checkSeen.int64(1) != 0) }
        return inBitmap ? (currentHash, false) : nil
    }

    /// Records that the row was met in this run, with its hash before the run and whether the run
    /// changed it (then the row's stored hash differs from `prevHash`).
    func markSeen(_ rowID: Int64, prevHash: Int64, changed: Bool) throws(StoreError) {
        if rowID >= 0 && rowID < Self.maxBitmapRowID {
            let word = Int(rowID >> 6)
            if word >= seenBits.count {
                seenBits.append(contentsOf: repeatElement(0, count: max(word + 1 - seenBits.count, seenBits.count / 2)))
            }
            let bit: UInt64 = 1 << UInt64(rowID & 63)
            let wasSet = seenBits[word] & bit != 0
            seenBits[word] |= bit
            // First met and unchanged: the bit says it all.
            if !wasSet && !changed { return }
        }
        markSeen.reset()
        try markSeen.bind(rowID, at: 1)
        try markSeen.bind(prevHash, at: 2)
        try markSeen.bind(Int64(changed ? 1 : 0), at: 3)
        try markSeen.step()
        markSeen.reset()
    }

    /// Drops what the run noted of a row it deleted (its seen bit and entries): SQLite may give
    /// its rowid to the next row inserted.
    func forget(_ rowID: Int64) throws(StoreError) {
        if rowID >= 0 && rowID < Self.maxBitmapRowID {
            let word = Int(rowID >> 6)
            if word < seenBits.count { seenBits[word] &= ~(UInt64(1) << UInt64(rowID & 63)) }
        }
        try connection.execute("DELETE FROM \(seenTable) WHERE row=\(rowID); DELETE FROM \(rewrittenTable) WHERE row=\(rowID)")
    }

    /// The stored row with this rowid, or nil.
    func existing(rowID: Int64) throws(StoreError) -> StoredRow? {
        select.reset()
        try select.bind(rowID, at: 1)
        defer { select.reset() }
        guard try select.step() else { return nil }
        let n = fieldCount
        var values: [FieldValue?] = []
        values.reserveCapacity(n)
        for i in 0..<n { values.append(readValue(select, i, field: i)) }
        return StoredRow(
            values: values, runID: select.int64(n), hash: select.int64(n + 1), input: select.text(n + 2),
            line: select.isNull(n + 3) ? nil : Int(select.int64(n + 3)), source: select.text(n + 4),
            updatedAt: select.text(n + 5), element: select.isNull(n + 6) ? nil : Int(select.int64(n + 6)))
    }

    /// Notes that this run rewrites a row an earlier run stored (the first time only), with the
    /// row's `_run_id` and `_updated_at` and the id and `raw` of the `replaced` entry the rewrite added.
    func noteRewrite(_ rowID: Int64, stored: StoredRow, replaced: (id: Int64, raw: String)?) throws(StoreError) {
        noteRewritten.reset()
        defer { noteRewritten.reset() }
        try noteRewritten.bind(rowID, at: 1)
        try noteRewritten.bind(stored.runID, at: 2)
        try noteRewritten.bind(stored.updatedAt, at: 3)
        if let replaced {
            try noteRewritten.bind(replaced.id, at: 4)
            try noteRewritten.bind(replaced.raw, at: 5)
        } else {
            try noteRewritten.bindNull(at: 4)
            try noteRewritten.bindNull(at: 5)
        }
        try noteRewritten.step()
    }

    /// Rows this run rewrote and a later record put back as they were before the run (a key
    /// twice in an input with different values, read again): they get their `_run_id` and
    /// `_updated_at` back, and the `replaced` entry of their passing rewrite goes (if a later
    /// step has not taken it away already; its id may then be another entry's), so a re-import
    /// of the same input changes nothing (it had stamped such rows as this run's).
    func restoreNetUnchanged(duplicates: String) throws(StoreError) {
        let table = quoteIdentifier(schema.name)
        let back = """
            SELECT w.row FROM \(rewrittenTable) w JOIN \(seenTable) s ON s.row = w.row \
            JOIN \(table) t ON t.rowid = w.row WHERE t."_hash" = s.prev_hash
            """
        try connection.execute(
            """
            DELETE FROM \(duplicates) WHERE id IN (
              SELECT d.id FROM \(rewrittenTable) w JOIN \(duplicates) d ON d.id = w.replaced_id AND d.raw = w.replaced_raw
              WHERE w.row IN (\(back)));
            UPDATE \(table) SET
              "_run_id" = (SELECT run_id FROM \(rewrittenTable) w WHERE w.row = \(table).rowid),
              "_updated_at" = coalesce((SELECT updated_at FROM \(rewrittenTable) w WHERE w.row = \(table).rowid), "_updated_at")
              WHERE rowid IN (\(back));
            DELETE FROM \(rewrittenTable);
            """)
    }
}

/// A schema row as stored.
struct StoredRow {
    var values: [FieldValue?]
    var runID: Int64
    var hash: Int64
    var input: String?
    var line: Int?
    var source: String?
    var updatedAt: String?
    /// The JSON array element the row was read from (nil for other inputs).
    var element: Int?
}

/// The hash of a row's values that tells changed rows from unchanged ones, and the check that
/// values are in the form SQLite stores. It depends on the schema alone, so the pipeline's
/// mapping workers compute it ahead of the sink thread (see ``RecordSink/wantsRowHash``).
struct RowDigest: Sendable {
    let types: [Field.FieldType]
    /// A hash seed per field (from its name), so adding a field to the schema does not change the
    /// hash of rows that leave it empty.
    let seeds: [UInt64]

    init(schema: Schema) {
        types = schema.fields.map(\.type)
        seeds = schema.fields.map { RowHasher.seed($0.name) }
    }

    /// True when some value is not in the form ``TableWriter/normalize(_:_:)`` gives.
    func needsNormalization(_ values: [FieldValue?]) -> Bool {
        for (i, value) in values.enumerated() {
            switch (types[i], value) {
            case (_, nil): continue
            case (.integer, .integer?), (.number, .real?), (.boolean, .bool?): continue
            case (.string, .text?), (.date, .text?), (.datetime, .text?), (.yearmonth, .text?),
                (.dateOrYearMonth, .text?), (.array, .text?):
                continue
            default: return true
            }
        }
        return false
    }

    func hash(_ values: [FieldValue?]) -> Int64 {
        var hasher = RowHasher()
        // Borrowed elements and contiguous UTF-8 (no String copies, retains or releases per value).
        seeds.withUnsafeBufferPointer { seeds in
            values.withUnsafeBufferPointer { values in
                for i in 0..<min(values.count, seeds.count) {
                    switch values[i] {
                    case nil: continue
                    case .text(let s)?:
                        hasher.mix(seeds[i])
                        hasher.mix(1)
                        hasher.mix(text: s)
                    case .integer(let v)?:
                        hasher.mix(seeds[i])
                        hasher.mix(2)
                        hasher.mix(UInt64(bitPattern: v))
                    case .real(let d)?:
                        hasher.mix(seeds[i])
                        hasher.mix(3)
                        hasher.mix(d == 0 ? 0 : d.bitPattern)
                    case .bool(let b)?:
                        hasher.mix(seeds[i])
                        hasher.mix(4)
                        hasher.mix(b ? 1 : 0)
                    }
                }
            }
        }
        return Int64(bitPattern: hasher.finalize())
    }

}

/// A fast 64-bit hash of a row's values (not cryptographic: it only tells changed rows from
/// unchanged ones).
struct RowHasher {
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    static func seed(_ name: String) -> UInt64 {
        var hasher = RowHasher()
        hasher.mix(text: name)
        return hasher.finalize()
    }

    /// Mixes a text's UTF-8 bytes, read in place when contiguous (no copy of the string, and no
    /// retain of storage another thread made).
    @inline(__always)
    mutating func mix(text: String) {
        text.withUTF8Bytes { mix(bytes: UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    mutating func mix(_ word: UInt64) {
        state = (state ^ word) &* 0xFF51_AFD7_ED55_8CCD
        state ^= state >> 29
    }

    @inline(__always)
    mutating func mix(bytes: UnsafeRawBufferPointer) {
        var offset = 0
        let count = bytes.count
        while offset + 8 <= count {
            mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        // The last 0-7 bytes, little-endian (as a byte-by-byte loop would assemble them, in
        // fewer loads: stored `_hash` values must not change).
        var tail: UInt64 = 0
        let rest = count - offset
        if rest >= 4 {
            tail = UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
            for k in 4..<rest { tail |= UInt64(bytes[offset + k]) << UInt64(8 * k) }
        } else {
            for k in 0..<rest { tail |= UInt64(bytes[offset + k]) << UInt64(8 * k) }
        }
        mix(tail ^ (UInt64(count) << 56))
    }

    func finalize() -> UInt64 {
        var x = state
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}

/// A growable byte buffer at a stable address for one row's text values. ``reset(capacity:)``
/// reallocates only before anything of the new row is bound, so every pointer handed out for a row
/// stays valid until the next reset.
struct RowArena: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0

    init() {
        capacity = 4096
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Starts a new row that needs `capacity` bytes in all.
    mutating func reset(capacity needed: Int) {
        used = 0
        if needed > capacity {
            base.deallocate()
            capacity = max(needed, capacity * 2)
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }
    }

    /// Copies `text`'s UTF-8 bytes in and returns where they are.
    mutating func append(_ text: String) -> UnsafeRawBufferPointer {
        let start = base + used
        let room = capacity - used
        func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            let n = min(bytes.count, room)
            if n > 0, let from = bytes.baseAddress { start.copyMemory(from: from, byteCount: n) }
            return n
        }
        let count = text.withUTF8Bytes(copy)
        used += count
        return UnsafeRawBufferPointer(start: start, count: count)
    }
}
