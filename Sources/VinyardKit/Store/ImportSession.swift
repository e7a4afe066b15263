import Foundation

extension VinyardStore {
    /// Starts an import run: opens one write transaction (`BEGIN IMMEDIATE`, waiting up to the busy
    /// timeout for another writer) and records the run in `import_runs`. Everything the session
    /// writes commits together in ``ImportSession/finish(inputs:status:)``, or not at all
    /// (``ImportSession/rollback()``, an error, the session released unfinished, or the process
    /// killed).
    /// - Parameter options: the run's options as recorded in `import_runs.options` (e.g.
    ///   `["on-duplicate": "last", "source": "fleet"]`).
    public func beginImport(options: [String: String] = [:]) throws -> ImportSession {
        guard !isReadOnly else { throw VinyardError(.usage, "\(path) is open read-only") }
        let bulkLoad = enterBulkLoadJournal()
        let waitStarted = Date()
        var activity = writeActivity()
        while true {
            do {
                try connection.begin(.immediate)
                break
            } catch {
                // The lock holder wrote during the busy timeout: another import at work (five at once:
                // the last waits for four), so wait on. One that writes nothing (a transaction left
                // open in a shell) fails the run after one timeout.
                if error.isBusy, case let now = writeActivity(), now != activity {
                    activity = now
                    continue
                }
                if bulkLoad { leaveBulkLoadJournal() }
                if error.isBusy {
                    let waited = FieldValue.format((Date().timeIntervalSince(waitStarted) * 10).rounded() / 10)
                    throw VinyardError(
                        .store,
                        "\(path) is locked by another import or process, which wrote nothing for \(FieldValue.format(busyTimeout)) s "
                            + "(waited \(waited) s); try again when it is done",
                        cause: error)
                }
                throw Self.storeError(error, "cannot start an import in \(path)")
            }
        }
        if connection.fileHasMoved {
            // Removed by a failed import that had created it (``removeIfUnused(path:)``) while this
            // run waited for the lock: nothing may be written into the removed file (nor its
            // journal mode changed, which would touch the `-wal` of a new file at `path`).
            try? connection.rollback()
            throw VinyardError(
                .store, "\(path) was removed by another process while this import waited for it; run the import again",
                cause: StoreError.databaseMoved)
        }
        do {
            return try ImportSession(store: self, options: options, bulkLoad: bulkLoad)
        } catch {
            try? connection.rollback()
            if bulkLoad { leaveBulkLoadJournal() }
            if let error = error as? StoreError { throw Self.storeError(error, "cannot start an import in \(path)") }
            throw error
        }
    }
}

extension VinyardStore {
    /// Size and modification time of the database file and its `-wal` and `-journal` files: they
    /// change while a writer is at work.
    fileprivate func writeActivity() -> [Int] {
        [path, path + "-wal", path + "-journal"].flatMap { file -> [Int] in
            var info = stat()
            guard stat(file, &info) == 0 else { return [-1, 0, 0] }
            return [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
        }
    }
}

/// One import run: writes canonical records, rejects, findings and duplicates inside a single
/// transaction, reusing prepared statements, and keeps the run's counts.
///
/// Into a table that is empty when the run starts (the big first import), rows are inserted
/// without the unique key index, which is dropped inside the run's transaction and built once,
/// sorted, at ``finish(inputs:status:)`` (a rollback or a killed process brings it back with the
/// previous state). Duplicates within such a run are found through ``RunKeyIndex`` (every
/// candidate confirmed against the row's stored key; older keys move to a temporary file, so
/// memory stays bounded); past `VinyardStore.fastKeyLimit` keys or rowid 2^24 - 1, the index is
/// built and the run goes on with it. Into a non-empty table, duplicates are found through the
/// database (`_run_id` of the stored row), and rows of earlier runs met in this run are kept in
/// a bitmap by rowid (plus a temporary table for the few a duplicate rewrote). Counts and tables
/// are the same on both paths.
///
/// Not thread-safe: drive it from one task.
public final class ImportSession {
    /// The store this run writes to.
    public let store: VinyardStore
    /// `import_runs.id` of this run.
    public let runID: Int64
    /// When the run started.
    public let startedAt: Date
    /// The counts so far; `read = inserted + updated + unchanged + duplicates + rejected` always holds.
    public private(set) var counts = ImportCounts()
    /// Findings per code so far (see ``ImportRunReport/findings``).
    public private(set) var findingCounts: [String: Int] = [:]
    /// True once committed or rolled back.
    public private(set) var isFinished = false

    private let options: [String: String]
    /// The run uses a rollback journal (``VinyardStore/enterBulkLoadJournal()``): back to WAL when it ends.
    private let bulkLoad: Bool
    private let timestamp: String
    private var tables: [String: TableWriter] = [:]
    private var lastWriter: TableWriter?
    private var inputOrder: [String] = []
    private var inputCounts: [String: (read: Int, rejected: Int)] = [:]
    private var lastInput = ""
    private var lastInputCounts = (read: 0, rejected: 0)

    private let insertFinding: Statement
    private let selectFindings: Statement
    private let deleteFindings: Statement
    private let deleteConflictFindings: Statement
    private let deleteRepeatedFinding: Statement
    private let insertDuplicate: Statement
    private let deleteDuplicate: Statement
    /// Per table: moves a stored row's own findings with the row (prepared at the first use).
    private var moveFindings: [String: Statement] = [:]
    private let insertReject: Statement
    /// Queues a replaced row's `duplicates` entry for its raw fields (see ``awaitRawFields(_:)``);
    /// prepared at the first.
    private var awaitingRaw: Statement?
    /// Removes the reject an earlier run kept for the same record (nil when `rejects` was empty).
    private let deleteEarlierReject: Statement?

    private var connection: Connection { store.connection }

    init(store: VinyardStore, options: [String: String], bulkLoad: Bool = false) throws {
        self.store = store
        self.options = options
        self.bulkLoad = bulkLoad
        startedAt = Date()
        timestamp = VinyardStore.timestamp(startedAt)
        let connection = store.connection
        // A table dropped from the file: "is damaged" (exit 65), not SQLite's "no such table" (74).
        try store.checkTablesPresent()
        // An earlier run that was rolled back may have left the smaller append cache.
        try connection.execute("PRAGMA cache_size=\(VinyardStore.writerCacheSize)")
        let start = try connection.prepare(
            "INSERT INTO import_runs(started_at, tool_version, options, status) VALUES(?1, ?2, ?3, 'running')")
        try start.execute([.text(timestamp), .text(VinyardVersion.string), .text(Self.optionsJSON(options))])
        runID = connection.lastInsertRowID

        insertFinding = try connection.prepare(
            """
            INSERT INTO findings(run_id, table_name, key, input, line, code, severity, field, message, suggestion, element)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """, persistent: true)
        try insertFinding.bind(runID, at: 1)
        selectFindings = try connection.prepare(
            "SELECT code, severity, field, message, suggestion, input, line, element FROM findings WHERE table_name=?1 AND key=?2 ORDER BY id",
            persistent: true)
        deleteFindings = try connection.prepare(
            "DELETE FROM findings WHERE table_name=?1 AND key=?2", persistent: true)
        // Both clean-ups only remove what earlier runs left: records of a JSON array on one line
        // share input and line (a minified array holds them all), and an input given twice in one
        // run repeats them, so a same-run match is another record's finding or entry. Entries of
        // rows replaced under `last` are the exception: a record that becomes the row again in
        // this run takes back its entry, else re-running such an input would add entries.
        deleteConflictFindings = try connection.prepare(
            "DELETE FROM findings WHERE table_name=?1 AND key=?2 AND code='key.conflict' AND input IS ?3 AND line IS ?4 AND run_id<?5",
            persistent: true)
        try deleteConflictFindings.bind(runID, at: 5)
        deleteRepeatedFinding = try connection.prepare(
            """
            DELETE FROM findings WHERE id = (SELECT id FROM findings WHERE table_name=?2 AND key=?3 AND input IS ?4
            AND line IS ?5 AND code=?6 AND message=?7 AND run_id<?1 ORDER BY id DESC LIMIT 1)
            """, persistent: true)
        try deleteRepeatedFinding.bind(runID, at: 1)
        insertDuplicate = try connection.prepare(
            """
            INSERT INTO duplicates(run_id, table_name, key, input, line, action, raw, findings, stored, element)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """, persistent: true)
        try insertDuplicate.bind(runID, at: 1)
        deleteDuplicate = try connection.prepare(
            """
            DELETE FROM duplicates WHERE id IN (
              SELECT id FROM duplicates WHERE table_name=?1 AND key=?2 AND input IS ?3 AND line IS ?4 AND element IS ?8
              UNION ALL
              SELECT id FROM duplicates WHERE table_name=?1 AND key=?2 AND input IS ?3 AND line IS ?4 AND element IS NULL)
            AND action=?5 AND coalesce(stored, raw)=?6 AND (action='replaced' OR run_id<>?7)
            """, persistent: true)
        try deleteDuplicate.bind(runID, at: 7)
        insertReject = try connection.prepare(
            """
            INSERT INTO rejects(run_id, table_name, input, line, element, source, raw, raw_text, findings, reason)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """, persistent: true)
        try insertReject.bind(runID, at: 1)
        deleteEarlierReject = try connection.scalarInt("SELECT EXISTS(SELECT 1 FROM rejects)") == 1
            ? try connection.prepare(
                // The same record of the same input, at whatever line: rejected again at another
                // line (rows added above it) it was stored twice.
                // `substr(raw, 1, 160)` is the index's expression (``VinyardStore/rejectsRecordIndex``),
                // and earlier runs are those with a smaller id.
                "DELETE FROM rejects WHERE input=?1 AND substr(raw, 1, 160)=substr(?5, 1, 160) AND run_id<?7 "
                    + "AND table_name IS ?4 AND raw=?5 AND raw_text IS ?6",
                persistent: true)
            : nil
        // Only earlier runs' rejects are replaced: an input given twice in one run keeps both.
        try deleteEarlierReject?.bind(runID, at: 7)
    }

    deinit {
        if !isFinished {
            try? store.connection.rollback()
            if bulkLoad { store.leaveBulkLoadJournal() }
        }
    }

    // MARK: Writing records

    /// Writes one canonical record to `schema`'s table (created or migrated on first use, inside
    /// this run's transaction) and counts it.
    ///
    /// - A record with an error finding, or without a key, goes to `rejects` (`.rejected`).
    /// - A new key is inserted (`.inserted`) with its warnings in `findings`.
    /// - A key stored before this run is `.updated` (its findings replaced by the record's) or
    ///   `.unchanged` (same values: the row is not rewritten and no findings are added). With
    ///   `.first` the stored row is kept; with `.merge` the record fills its empty fields. Values
    ///   that differ and are not taken are `key.conflict` warnings, and the record is kept in
    ///   `duplicates` (`dropped`/`merged`).
    /// - A key that already appeared earlier in this run is a `.duplicate`: `.last` replaces the row
    ///   and keeps the replaced values in `duplicates` (`replaced`, with their findings), `.first`
    ///   keeps the row and the record goes to `duplicates` (`dropped`), `.merge` fills the row's
    ///   empty fields and the record goes to `duplicates` (`merged`). Differing values are
    ///   `key.conflict` warnings (one per field), recorded in `findings`.
    /// - Parameters:
    ///   - source: the source mapping name, stored in `_source`.
    /// - Throws: ``VinyardError`` when SQLite fails or the record does not fit the schema.
    @discardableResult
    public func write(
        _ record: CanonicalRecord, schema: Schema, source: String? = nil, policy: DuplicatePolicy = .last
    ) throws -> WriteResult {
        try write(record, schema: schema, source: source, policy: policy, rowHash: nil, keyHash: nil)
    }

    /// Reads ahead the in-memory run key slots of the coming records' keys (their ``RowHasher``
    /// key hashes, 0 for none), while a first load into `schema`'s table has its key index
    /// dropped: their lookups then find the slots in the cache. Does nothing otherwise.
    func prefetch(keyHashes: UnsafeBufferPointer<UInt64>, schema: Schema) {
        tables[schema.name]?.runKeys?.prefetch(keyHashes)
    }

    /// ``write(_:schema:source:policy:)`` with the row hash of `record.values` when it is known
    /// (computed by the pipeline with ``RowDigest`` for values already in stored form), and the
    /// ``RowHasher`` hash of its key when known.
    func write(
        _ record: CanonicalRecord, schema: Schema, source: String?, policy: DuplicatePolicy, rowHash: Int64?,
        keyHash: UInt64?
    ) throws -> WriteResult {
        try checkOpen()
        guard record.values.count == schema.fields.count else {
            throw VinyardError(
                .store,
                "\(record.provenance.description): the record has \(record.values.count) values but schema "
                    + "\(schema.name) has \(schema.fields.count) fields")
        }
        guard !record.isRejected, let key = record.key, !key.isEmpty else {
            var findings = record.findings
            if !record.isRejected {
                let names = schema.primaryKey.joined(separator: ", ")
                findings.append(
                    Finding(
                        .fieldRequired, .error, field: schema.primaryKey.first,
                        message: "the record has no key (\(names.isEmpty ? "primary key" : names)); fill it in or map the source's id",
                        input: record.provenance.input, line: record.provenance.line, element: record.provenance.index))
            }
            try reject(raw: record.raw, text: nil, findings: findings, source: source, table: schema.name)
            return WriteResult(outcome: .rejected)
        }
        do {
            var record = record
            var key = key
            var rowHash = rowHash
            var keyHash = keyHash
            let rekeyed = try resolveIDKey(&record, key: &key, rowHash: &rowHash, keyHash: &keyHash, schema: schema, policy: policy)
            let result = try store(
                record, key: key, schema: schema, source: source, policy: policy, rowHash: rowHash, keyHash: keyHash,
                rekeyed: rekeyed)
            count(result.outcome, input: record.provenance.input)
            for finding in record.findings { findingCounts[finding.code.rawValue, default: 0] += 1 }
            for finding in result.conflicts { findingCounts[finding.code.rawValue, default: 0] += 1 }
            return result
        } catch let error as StoreError {
            throw VinyardStore.storeError(error, "\(record.provenance.description): cannot store the record in \(store.path)")
        }
    }

    private func store(
        _ record: CanonicalRecord, key: String, schema: Schema, source: String?, policy: DuplicatePolicy,
        rowHash: Int64?, keyHash knownKeyHash: UInt64?, rekeyed: Bool = false
    ) throws -> WriteResult {
        let writer = try tableWriter(for: schema)
        let table = schema.name
        var values = record.values
        let provenance = record.provenance
        let hash: Int64
        if let rowHash {
            hash = rowHash
        } else {
            if writer.needsNormalization(values) {
                for i in values.indices { values[i] = TableWriter.normalize(values[i], writer.types[i]) }
            }
            hash = writer.hash(values)
        }

        var found: StoredKey?
        if writer.runKeys != nil {
            // The table was empty when the run started and its key index is dropped: every row is
            // from this run, and the in-memory keys tell new keys from duplicates.
            let keyHash = knownKeyHash ?? RowHasher.key(key)
            found = try writer.findInRun(key, keyHash: keyHash)
            // (The lookup may have written the queued rows and built the index, when the run keys
            // were full: then the key takes the indexed path below.)
            if found == nil, writer.runKeys != nil {
                try writer.append(
                    key: key, values: values, source: source, input: provenance.input, line: provenance.line,
                    element: provenance.index, hash: hash, keyHash: keyHash)
                try addFindings(record.findings, table: table, key: key, provenance: provenance)
                return WriteResult(outcome: .inserted)
            }
        }
        // A new key is one statement; after a conflict the next key is looked up first.
        if found == nil, writer.lastConflicted { found = try writer.find(key, provenance: provenance) }
        if found == nil {
            try writer.bindRow(
                writer.insert, key: key, values: values, source: source, input: provenance.input, line: provenance.line,
                element: provenance.index, hash: hash)
            try writer.insert.step()
            writer.insert.reset()
            if connection.changes == 1 {
                writer.lastConflicted = false
                try addFindings(record.findings, table: table, key: key, provenance: provenance)
                return WriteResult(outcome: .inserted)
            }
            found = try writer.find(key, provenance: provenance)
        }
        writer.lastConflicted = true
        guard let found else {
            throw VinyardError(.store, "\(provenance.description): the row for a conflicting key vanished from \(table)")
        }
        // Keys stored before this run and already met in it are in the writer's seen table, with
        // the hash the row had before the run.
        let seen = try writer.seenEntry(found.rowID, currentHash: found.hash)
        let inRun = found.runID == runID || seen != nil
        if !inRun && found.hash == hash {
            // The common re-import case: same values, nothing is rewritten. When the input holds
            // the key more than once, the row may have been stored from a later line with these
            // values: it now stands for this line (the run's first occurrence), so that a later
            // duplicate that replaces it keeps this line in `duplicates` and nothing is listed
            // twice or lost.
            if !found.sameProvenance {
                // Under `first` and `merge` the row's own warnings move with it when it moved within
                // the same input (rows added above it); they kept naming its old line, which held
                // another record (found by audit). From another input they stay: the row's record
                // there is another one, merged or kept (MovedRowFindingsTests).
                if policy != .last { try moveOwnFindings(table: table, key: key, rowID: found.rowID, to: provenance) }
                try writer.move(found.rowID, to: provenance)
                // Under `last` the row is this record's alone, and its warnings move with it: a
                // later duplicate that replaces it takes the row's findings into `duplicates`,
                // which named the later line (and this record's own warnings were then kept
                // nowhere). Under `first` and `merge` the row's findings come from several
                // records (merged records' warnings, dropped ones' conflicts) and stay.
                if policy == .last {
                    try clearFindings(table: table, key: key)
                    try addFindings(record.findings, table: table, key: key, provenance: provenance)
                }
            }
            try writer.markSeen(found.rowID, prevHash: found.hash, changed: false)
            return WriteResult(outcome: .unchanged)
        }
        guard let stored = try writer.existing(rowID: found.rowID) else {
            throw VinyardError(.store, "\(provenance.description): the row for a conflicting key vanished from \(table)")
        }
        let rowID = found.rowID
        let conflicting = conflictingFields(stored.values, values, names: writer.names)
        var kept: [FieldValue?]
        switch policy {
        case .last: kept = values
        case .first: kept = stored.values
        case .merge:
            kept = zip(stored.values, values).map { isEmpty($0) ? $1 : $0 }
            // The row keeps its source: an id from another source's record would name a record
            // of that source as the row's (a `fleet` row took a `random-vehicle` id; found by
            // audit). Not taken, the id stays with the record in `duplicates`.
            if source != stored.source, let i = writer.sourceIDField { kept[i] = stored.values[i] }
        }
        // Not for an update by a later run under `last` (it is newer: no conflict), where the
        // messages cost ~13k instructions a row for nothing.
        let conflicts =
            inRun || policy != .last
            ? conflictFindings(
                conflicting, writer: writer, key: key, stored: stored, new: values, kept: kept, provenance: provenance,
                policy: policy) : []

        if inRun {
            let finalHash: Int64
            switch policy {
            case .last:
                // The replaced values and their findings go to `duplicates`; the row takes the record.
                let replacedFindings = try findings(table: table, key: key)
                let replacedRaw = StoreJSON.values(stored.values, names: writer.names)
                try removeEarlier(
                    table: table, key: key, input: stored.input, line: stored.line, element: stored.element, action: "replaced",
                    raw: replacedRaw)
                // The record becomes the row: an entry an earlier step left for it goes (before the
                // replaced values are added: in a JSON array on one line both have the same line).
                try removeEarlier(
                    table: table, key: key, provenance: provenance, action: "replaced",
                    raw: StoreJSON.values(values, names: writer.names))
                try addDuplicate(
                    table: table, key: key, input: stored.input, line: stored.line, element: stored.element, action: "replaced",
                    raw: replacedRaw, findings: replacedFindings + conflicts, stored: replacedRaw)
                // Its raw fields are read again from the input once the run has read it all.
                try awaitRawFields(connection.lastInsertRowID)
                if stored.runID != runID && hash == stored.hash {
                    // A row an earlier run stored, met again with the same values (a key repeated
                    // in an input read again): it now stands for this record's place, and keeps
                    // its run and time (a full rewrite stamped it as this run's, though the run
                    // reports it unchanged; found by audit).
                    try writer.move(rowID, to: provenance)
                } else {
                    // A row an earlier run stored, left as it was by its first record in this run
                    // (Blue, then Red, then Blue again): it may yet end as it was.
                    if stored.runID != runID { try writer.noteRewrite(rowID, stored: stored, replaced: nil) }
                    // (Also for a row this run wrote: a fleet-record record with its VIN, then a
                    // fleet file's of that VIN, in one run.)
                    try keepIDAssociation(writer, stored: stored, key: key, newValues: values)
                    try rewrite(
                        writer, rowID: rowID, key: key, values: values, hash: hash, source: source, input: provenance.input,
                        line: provenance.line, element: provenance.index)
                }
                try clearFindings(table: table, key: key)
                try addFindings(record.findings + conflicts, table: table, key: key, provenance: provenance)
                finalHash = hash
            case .first:
                let raw = StoreJSON.fields(record.raw.fields)
                try removeEarlier(table: table, key: key, provenance: provenance, action: "dropped", raw: raw)
                try addDuplicate(
                    table: table, key: key, input: provenance.input, line: provenance.line, element: provenance.index, action: "dropped",
                    raw: raw, findings: record.findings + conflicts)
                try addFindings(conflicts, table: table, key: key, provenance: provenance)
                finalHash = stored.hash
            case .merge:
                let raw = StoreJSON.fields(record.raw.fields)
                try removeEarlier(table: table, key: key, provenance: provenance, action: "merged", raw: raw)
                try addDuplicate(
                    table: table, key: key, input: provenance.input, line: provenance.line, element: provenance.index, action: "merged",
                    raw: raw, findings: record.findings + conflicts)
                let mergedHash = writer.hash(kept)
                if mergedHash != stored.hash {
                    try rewrite(writer, rowID: rowID, key: key, values: kept, hash: mergedHash, source: stored.source, input: stored.input, line: stored.line, element: stored.element)
                }
                // The record's own warnings on what the row took from it join the row's; the
                // copies an earlier run of the same input left go first, so re-running it does
                // not pile them up.
                let taken = mergedFindings(record.findings, stored: stored.values, kept: kept, names: writer.names)
                try removeEarlierFindings(taken, table: table, key: key, provenance: provenance)
                try addFindings(taken + conflicts, table: table, key: key, provenance: provenance)
                finalHash = mergedHash
            }
            if let seen {
                // The key's first occurrence in this run was counted as updated or unchanged
                // against the row as it was before the run; count the net effect instead.
                let changed = finalHash != seen.prevHash
                if changed != seen.changed {
                    if changed {
                        counts.unchanged -= 1
                        counts.updated += 1
                    } else {
                        counts.updated -= 1
                        counts.unchanged += 1
                    }
                    try writer.markSeen(rowID, prevHash: seen.prevHash, changed: changed)
                }
            }
            return WriteResult(outcome: .duplicate, conflicts: conflicts)
        }

        // The key was stored by an earlier run.
        switch policy {
        case .last:
            let changed = hash != stored.hash
            try writer.markSeen(rowID, prevHash: stored.hash, changed: changed)
            if !changed { return WriteResult(outcome: .unchanged) }
            var replaced: (id: Int64, raw: String)?
            if losesValues(stored.values, values) {
                // Values the update overwrites or empties are kept: the stored row goes to
                // `duplicates` (`replaced`, with its findings), so nothing is lost. With `last` a
                // later run is newer: an update, not a `key.conflict`. Filling empty fields loses
                // nothing and needs no entry.
                let replacedFindings = try findings(table: table, key: key)
                let replacedRaw = StoreJSON.values(stored.values, names: writer.names)
                try removeEarlier(
                    table: table, key: key, input: stored.input, line: stored.line, element: stored.element, action: "replaced",
                    raw: replacedRaw)
                let replacesAnEarlierEntry = connection.changes > 0
                try addDuplicate(
                    table: table, key: key, input: stored.input, line: stored.line, element: stored.element, action: "replaced",
                    raw: replacedRaw, findings: replacedFindings)  // `raw` holds the stored values: not twice
                // (An entry that took an earlier run's place stays, whatever happens to the row.)
                if !replacesAnEarlierEntry { replaced = (connection.lastInsertRowID, replacedRaw) }
            }
            try writer.noteRewrite(rowID, stored: stored, replaced: replaced)
            try keepIDAssociation(writer, stored: stored, key: key, newValues: values)
            // The record may be one an earlier run replaced: it is the row again, not a duplicate.
            try removeEarlier(
                table: table, key: key, provenance: provenance, action: "replaced", raw: StoreJSON.values(values, names: writer.names))
            try rewrite(writer, rowID: rowID, key: key, values: values, hash: hash, source: source, input: provenance.input, line: provenance.line, element: provenance.index)
            try clearFindings(table: table, key: key)
            try addFindings(record.findings, table: table, key: key, provenance: provenance)
            return WriteResult(outcome: .updated)
        case .first, .merge:
            // (A row that just took its VIN key holds values its stored hash does not: hashed anew.)
            let keptHash = policy == .first && !rekeyed ? stored.hash : writer.hash(kept)
            if losesValues(values, kept) {
                // Values not taken (conflicting ones, and with `first` also those that would fill
                // the row's empty fields) are kept with the record; re-running the same input
                // replaces these entries instead of piling them up.
                let action = policy == .first ? "dropped" : "merged"
                let raw = StoreJSON.fields(record.raw.fields)
                try removeEarlier(table: table, key: key, provenance: provenance, action: action, raw: raw)
                try addDuplicate(
                    table: table, key: key, input: provenance.input, line: provenance.line, element: provenance.index, action: action,
                    raw: raw, findings: record.findings + conflicts)
                try addFindings(conflicts, table: table, key: key, provenance: provenance)
            }
            let changed = keptHash != stored.hash
            try writer.markSeen(rowID, prevHash: stored.hash, changed: changed)
            if !changed { return WriteResult(outcome: .unchanged, conflicts: conflicts) }
            try rewrite(writer, rowID: rowID, key: key, values: kept, hash: keptHash, source: stored.source, input: stored.input, line: stored.line, element: stored.element)
            let taken = mergedFindings(record.findings, stored: stored.values, kept: kept, names: writer.names)
            try addFindings(taken.filter { $0.severity == .warning }, table: table, key: key, provenance: provenance)
            return WriteResult(outcome: .updated, conflicts: conflicts)
        }
    }

    // MARK: Rejects

    /// Keeps a record that cannot be loaded in `rejects` with its raw fields, findings and reason,
    /// and counts it as read and rejected.
    public func writeReject(raw: RawRecord, findings: [Finding], source: String? = nil, table: String? = nil) throws {
        try checkOpen()
        try reject(raw: raw, text: nil, findings: findings, source: source, table: table)
    }

    /// Keeps a record the reader could not split into fields (a ragged row, a malformed JSON line)
    /// in `rejects` with its original text, and counts it as read and rejected.
    public func writeReject(_ reject: RawReject, source: String? = nil, table: String? = nil) throws {
        try checkOpen()
        let raw = RawRecord(fields: reject.fields, provenance: reject.provenance)
        try self.reject(raw: raw, text: reject.text, findings: [reject.finding], source: source, table: table)
    }

    /// Removes the reject an earlier run stored for the record at `input`, `line` (`element`):
    /// a rejects file's record imported again replaces it (see ``StoreSink``).
    public func clearEarlierReject(input: String, line: Int, element: Int?) throws {
        guard deleteEarlierReject != nil else { return }  // no rejects when the run started
        do {
            if clearReject == nil {
                clearReject = try connection.prepare(
                    "DELETE FROM rejects WHERE input=?1 AND line=?2 AND element IS ?3 AND run_id<>?4", persistent: true)
            }
            guard let statement = clearReject else { return }
            try statement.execute([.text(input), .integer(Int64(line)), element.map { .integer(Int64($0)) }, .integer(runID)])
        } catch {
            throw VinyardStore.storeError(error, "cannot update the rejects of \(input) in \(store.path)")
        }
    }
    private var clearReject: Statement?

    private func reject(raw: RawRecord, text: String?, findings: [Finding], source: String?, table: String?) throws {
        let errors = findings.filter { $0.severity == .error }
        let reason = (errors.isEmpty ? findings : errors).map { "\($0.code): \($0.message)" }.joined(separator: "; ")
        do {
            let rawJSON = StoreJSON.fields(raw.fields)
            // The same record rejected by an earlier run (a re-import): replaced, not piled up.
            if let delete = deleteEarlierReject {
                delete.reset()
                try delete.bind(raw.provenance.input, at: 1)
                try delete.bind(table, at: 4)
                try delete.bind(rawJSON, at: 5)
                try delete.bind(text, at: 6)
                try delete.step()
                delete.reset()
            }
            insertReject.reset()
            try insertReject.bind(table, at: 2)
            try insertReject.bind(raw.provenance.input, at: 3)
            try insertReject.bind(raw.provenance.line, at: 4)
            try insertReject.bind(raw.provenance.index, at: 5)
            try insertReject.bind(source, at: 6)
            try insertReject.bind(rawJSON, at: 7)
            try insertReject.bind(text, at: 8)
            try insertReject.bind(StoreJSON.findings(findings), at: 9)
            try insertReject.bind(reason.isEmpty ? "rejected" : reason, at: 10)
            try insertReject.step()
            insertReject.reset()
        } catch {
            throw VinyardStore.storeError(error, "\(raw.provenance.description): cannot store the reject in \(store.path)")
        }
        count(.rejected, input: raw.provenance.input)
        for finding in findings { findingCounts[finding.code.rawValue, default: 0] += 1 }
    }

    // MARK: Finishing

    /// Records the run in `import_runs` (finish time, inputs, counts, findings per code, elapsed
    /// seconds, `status`) and commits everything the session wrote.
    /// - Parameter inputs: the run's inputs; a nil `read`/`rejected` is filled in from the counts
    ///   the session kept per provenance input name. Inputs the session saw but that are not
    ///   listed are appended.
    public func finish(inputs: [ImportInput] = [], status: String = "completed") throws -> ImportRunReport {
        try checkOpen()
        flushInputCounts()
        var listed = inputs
        for i in listed.indices {
            let seen = inputCounts[listed[i].name]
            if listed[i].read == nil { listed[i].read = seen?.read ?? 0 }
            if listed[i].rejected == nil { listed[i].rejected = seen?.rejected ?? 0 }
        }
        let names = Set(listed.map(\.name))
        for name in inputOrder where !names.contains(name) {
            let seen = inputCounts[name]
            listed.append(ImportInput(name: name, read: seen?.read ?? 0, rejected: seen?.rejected ?? 0))
        }
        var elapsed = 0.0
        do {
            // The key index is rebuilt first, so the run's time includes it (on a 1M-row first
            // load that is about a second the report left out); only the commit comes after.
            for writer in tables.values {
                try writer.restoreNetUnchanged(duplicates: "duplicates")
                try writer.restoreKeyIndex()
                try connection.execute("DELETE FROM \(writer.seenTable)")
            }
            try forgetRenamedCopies(of: listed)
            elapsed = Date().timeIntervalSince(startedAt)
            let statement = try connection.prepare(
                """
                UPDATE import_runs SET finished_at=?2, inputs=?3, read=?4, inserted=?5, updated=?6, unchanged=?7,
                  duplicates=?8, rejected=?9, findings=?10, elapsed_seconds=?11, status=?12 WHERE id=?1
                """)
            try statement.execute([
                .integer(runID), .text(VinyardStore.timestamp(Date())), .text(Self.inputsJSON(listed)),
                .integer(Int64(counts.read)), .integer(Int64(counts.inserted)), .integer(Int64(counts.updated)),
                .integer(Int64(counts.unchanged)), .integer(Int64(counts.duplicates)), .integer(Int64(counts.rejected)),
                .text(Self.countsJSON(findingCounts)), .real(elapsed), .text(status),
            ])
            try connection.commit()
        } catch {
            try? connection.rollback()
            isFinished = true
            if bulkLoad { store.leaveBulkLoadJournal() }
            throw VinyardStore.storeError(error, "cannot commit the import into \(store.path)")
        }
        isFinished = true
        if bulkLoad { store.leaveBulkLoadJournal() }
        return ImportRunReport(
            runID: runID, counts: counts, findings: findingCounts, inputs: listed, elapsedSeconds: elapsed, status: status)
    }

    /// Removes what earlier runs kept of an input with the same bytes as one of this run's under
    /// another name (a nightly export copied to `fleet-2026-11-02.csv`, then `…-03.csv`): its
    /// rejects, its records' `dropped`, `merged` and in-run `replaced` entries in `duplicates`
    /// and their `key.conflict` findings, which this run has just kept again under the new name.
    /// Under the same name a re-run replaces them record by record; under a new one each night
    /// added them all again (6 broken rows were 24 rejects after four nights, and the run said
    /// "nothing changed"; found by audit). Only entries of runs that read that name with these
    /// bytes (`import_runs.inputs`), so a name later imported with other content keeps its own.
    /// Cross-run `replaced` entries (a stored row's values an update overwrote, kept nowhere else)
    /// stay.
    private func forgetRenamedCopies(of inputs: [ImportInput]) throws(StoreError) {
        let copies = inputs.compactMap { input in input.contentHash.map { (name: input.name, hash: $0) } }
        guard !copies.isEmpty else { return }
        let find = try connection.prepare(
            """
            SELECT r.id, json_extract(j.value, '$.name') FROM import_runs r, json_each(r.inputs) j
            WHERE r.id < ?1 AND json_valid(r.inputs) AND json_extract(j.value, '$.content_hash') = ?2
              AND json_extract(j.value, '$.name') <> ?3
            """)
        var earlier: [(run: Int64, name: String)] = []
        for copy in copies {
            try find.bind(runID, at: 1)
            try find.bind(copy.hash, at: 2)
            try find.bind(copy.name, at: 3)
            while try find.step() {
                if let name = find.text(1), !copies.contains(where: { $0.name == name }) { earlier.append((find.int64(0), name)) }
            }
            find.reset()
        }
        guard !earlier.isEmpty else { return }
        // One statement a table, the places as a JSON list (`duplicates` and `findings` have no
        // index that starts with the run or the input: one scan each, not one a place).
        var list: [UInt8] = [UInt8(ascii: "[")]
        for (i, place) in earlier.enumerated() {
            if i > 0 { list.append(UInt8(ascii: ",")) }
            list.append(contentsOf: "[\(place.run),".utf8)
            StoreJSON.appendString(place.name, to: &list)
            list.append(UInt8(ascii: "]"))
        }
        list.append(UInt8(ascii: "]"))
        let places: [FieldValue?] = [.text(String(decoding: list, as: UTF8.self))]
        let inPlaces = "(run_id, input) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1))"
        try connection.prepare("DELETE FROM rejects WHERE \(inPlaces)").execute(places)
        try connection.prepare(
            "DELETE FROM duplicates WHERE \(inPlaces) "
                + "AND (action IN ('dropped', 'merged') OR (action = 'replaced' AND stored IS NOT NULL AND stored <> ''))"
        ).execute(places)
        try connection.prepare("DELETE FROM findings WHERE \(inPlaces) AND code = 'key.conflict'").execute(places)
    }

    /// Abandons the run: nothing it wrote is kept, and `import_runs` has no trace of it.
    public func rollback() throws {
        guard !isFinished else { return }
        isFinished = true
        defer { if bulkLoad { store.leaveBulkLoadJournal() } }
        do { try connection.rollback() } catch {
            throw VinyardStore.storeError(error, "cannot roll back the import into \(store.path)")
        }
    }

    /// Read and rejected counts per input name, as seen in provenance.
    public func counts(forInput name: String) -> (read: Int, rejected: Int) {
        if !inputOrder.isEmpty, name == lastInput { return lastInputCounts }
        return inputCounts[name] ?? (0, 0)
    }

    // MARK: Helpers

    private func checkOpen() throws {
        if isFinished { throw VinyardError(.store, "the import run \(runID) into \(store.path) is already finished") }
    }

    private func count(_ outcome: WriteOutcome, input: String) {
        counts.add(outcome)
        // Records come input by input: count into a local pair and flush it when the input changes.
        if input != lastInput || inputOrder.isEmpty {
            flushInputCounts()
            if inputCounts[input] == nil { inputOrder.append(input) }
            lastInput = input
            lastInputCounts = inputCounts[input] ?? (0, 0)
        }
        lastInputCounts.read += 1
        if outcome == .rejected { lastInputCounts.rejected += 1 }
    }

    private func flushInputCounts() {
        if !inputOrder.isEmpty { inputCounts[lastInput] = lastInputCounts }
    }

    private func tableWriter(for schema: Schema) throws -> TableWriter {
        if let writer = lastWriter, writer.schema.name == schema.name { return writer }
        if let writer = tables[schema.name] {
            lastWriter = writer
            return writer
        }
        try store.prepareTable(for: schema)
        let writer = try TableWriter(
            schema: schema, ordinal: tables.count, connection: connection, runID: runID, timestamp: timestamp,
            fastKeyLimit: store.fastKeyLimit, runKeyLiveLimit: store.runKeyLiveLimit)
        tables[schema.name] = writer
        lastWriter = writer
        return writer
    }

    /// A vehicle an earlier run stored under its id (`fleet-record:veh-100`, no VIN then) and now
    /// met with its VIN: its row takes the VIN as its key (true); one stored under its VIN and now
    /// met without it is found by its id (`key` becomes the VIN, and the record keeps the row's
    /// VIN). Each was a second row of the same vehicle (found by audit). Across runs only: within
    /// a run (and into an empty table) the two keys stay two rows.
    private func resolveIDKey(
        _ record: inout CanonicalRecord, key: inout String, rowHash: inout Int64?, keyHash: inout UInt64?, schema: Schema,
        policy: DuplicatePolicy
    ) throws -> Bool {
        guard let idKey = record.idKey else { return false }
        let writer = try tableWriter(for: schema)
        guard writer.runKeys == nil else { return false }
        if key != idKey { return try rekey(writer, from: idKey, to: key, record: record, policy: policy) }
        // (Only to a row there: a kept key whose row is gone would store the record without its VIN.)
        guard let vinKey = try vinKey(forID: idKey, writer: writer), let found = try writer.find(vinKey, provenance: record.provenance)
        else { return false }
        // Both rows there (a first load held the id with and without its VIN): the id's goes.
        if try isIDKeyed(idKey, writer: writer), let old = try writer.find(idKey, provenance: record.provenance) {
            try absorb(writer, rowID: old.rowID, idKey: idKey, into: vinKey)
        }
        key = vinKey
        keyHash = nil
        // A record without its VIN does not unknow it: the row keeps it and what it decodes.
        if let stored = try writer.existing(rowID: found.rowID) {
            for i in Self.vinFields(writer) where record.values[i] == nil { record.values[i] = stored.values[i] }
            rowHash = nil
        }
        return false
    }

    /// The indices of `vin` and the fields decoded from it.
    private static func vinFields(_ writer: TableWriter) -> [Int] {
        ["vin", "vin_manufacturer", "vin_country", "vin_model_years"].compactMap { writer.names.firstIndex(of: $0) }
    }

    /// Gives the row an earlier run stored under `idKey` the key `vinKey` and the record's VIN
    /// (with what it decodes; with its findings and `duplicates` entries), when no row has that
    /// key yet; true when it did. The row's `_hash` stays the one its values had before the run,
    /// so the record's store counts and rewrites it as changed (see ``store``).
    private func rekey(
        _ writer: TableWriter, from idKey: String, to vinKey: String, record: CanonicalRecord, policy: DuplicatePolicy
    ) throws -> Bool {
        // One set lookup a record: the rows earlier runs keyed by their id are read once a run.
        guard try isIDKeyed(idKey, writer: writer), let (name, table, cacheKey) = Self.idSource(idKey, writer),
            let old = try writer.find(idKey, provenance: record.provenance)
        else { return false }
        if let vinRow = try writer.find(vinKey, provenance: record.provenance) {
            // The vehicle has a row under its VIN already (from another source, or from a first
            // load that held the id with and without it): the id's row goes into `duplicates`,
            // and the record updates the VIN's row, when that row will carry the id (under
            // `last` it takes the record's source and id; else it must have them already). A
            // fold into a row without them came undone: the next record of the id without its
            // VIN found no row and added the id's again, run after run.
            let id = String(idKey.dropFirst(name.count + 1))
            let carries = try writer.existing(rowID: vinRow.rowID).map { stored in
                stored.source == name && writer.sourceIDField.map { stored.values[$0]?.text == id } == true
            } ?? false
            if policy == .last || carries { try absorb(writer, rowID: old.rowID, idKey: idKey, into: vinKey) }
            return false
        }
        guard var values = try writer.existing(rowID: old.rowID)?.values else { return false }
        let fields = Self.vinFields(writer)
        for i in fields where values[i] == nil || values[i] == .text("") { values[i] = record.values[i] }
        do {
            let sets = fields.enumerated().map { "\(quoteIdentifier(writer.names[$0.element]))=?\($0.offset + 3)" }
            try connection.prepare(
                "UPDATE \(quoteIdentifier(table)) SET \"_key\"=?1\(sets.map { ", " + $0 }.joined()) WHERE rowid=?2"
            ).execute([.text(vinKey), .integer(old.rowID)] + fields.map { values[$0] })
            for log in ["findings", "duplicates"] {
                try connection.prepare("UPDATE \(log) SET key=?1 WHERE table_name=?2 AND key=?3")
                    .execute([.text(vinKey), .text(table), .text(idKey)])
            }
        } catch {
            throw VinyardStore.storeError(error, "cannot give \(idKey) its VIN key \(vinKey) in \(store.path)")
        }
        idKeyedRows[cacheKey]?.remove(idKey)
        vinKeysByID[cacheKey]?[idKey] = vinKey
        return true
    }
    /// The keys of rows earlier runs stored under their id, by table and source.
    private var idKeyedRows: [String: Set<String>] = [:]

    /// Whether an earlier run stored a row under `idKey` (the source's such rows are read once a run).
    private func isIDKeyed(_ idKey: String, writer: TableWriter) throws -> Bool {
        guard let (name, table, cacheKey) = Self.idSource(idKey, writer) else { return false }
        if idKeyedRows[cacheKey] == nil {
            idKeyedRows[cacheKey] = try Set(sourceRows(table: table, name: name, idKeyed: true).map(\.key))
        }
        return idKeyedRows[cacheKey]?.contains(idKey) == true
    }

    /// Removes the row stored under `idKey` for a vehicle that has a row under `vinKey`: its values
    /// and findings go to `duplicates` (`replaced`), with its earlier entries, under the VIN key.
    private func absorb(_ writer: TableWriter, rowID: Int64, idKey: String, into vinKey: String) throws {
        let table = writer.schema.name
        do {
            guard let stored = try writer.existing(rowID: rowID) else { return }
            let raw = StoreJSON.values(stored.values, names: writer.names)
            let replacedFindings = try findings(table: table, key: idKey)
            try connection.prepare("UPDATE duplicates SET key=?1 WHERE table_name=?2 AND key=?3")
                .execute([.text(vinKey), .text(table), .text(idKey)])
            try addDuplicate(
                table: table, key: vinKey, input: stored.input, line: stored.line, element: stored.element, action: "replaced",
                raw: raw, findings: replacedFindings, stored: raw)
            try clearFindings(table: table, key: idKey)
            try connection.prepare("DELETE FROM \(quoteIdentifier(table)) WHERE rowid=?1").execute([.integer(rowID)])
            folded += 1
            // Its rowid may be given to the next new row: nothing the run noted of it may stay.
            try writer.forget(rowID)
        } catch {
            throw VinyardStore.storeError(error, "cannot fold \(idKey) into \(vinKey) in \(store.path)")
        }
        if let (_, _, cacheKey) = Self.idSource(idKey, writer) {
            idKeyedRows[cacheKey]?.remove(idKey)
            // A later record of the id without its VIN finds the VIN's row (the source's ids are
            // read first: a partial table made here hid the others for the rest of the run).
            if vinKeysByID[cacheKey] == nil { _ = try self.vinKey(forID: idKey, writer: writer) }
            vinKeysByID[cacheKey]?[idKey] = vinKey
        }
    }

    /// The source (`fleet-record` of `fleet-record:veh-100`), table and cache key of the id
    /// lookups for `idKey`; nil when the table has no `source` and `source_id` to look by.
    private static func idSource(_ idKey: String, _ writer: TableWriter) -> (name: String, table: String, cacheKey: String)? {
        guard let colon = idKey.firstIndex(of: ":"), writer.names.contains("source"), writer.names.contains("source_id") else { return nil }
        let name = String(idKey[..<colon])
        let table = writer.schema.name
        return (name, table, "\(table)\u{0}\(name)")
    }

    /// The rows of `table` that earlier runs stored for the source `name` (by its `source` field)
    /// with an id: those keyed by it (`idKeyed`), or those keyed otherwise (by their VIN), as
    /// (key, `name:id`).
    private func sourceRows(table: String, name: String, idKeyed: Bool) throws -> [(key: String, idKey: String)] {
        var rows: [(key: String, idKey: String)] = []
        do {
            let statement = try connection.prepare(
                "SELECT \"_key\", \"source_id\" FROM \(quoteIdentifier(table)) WHERE \"source\"=?1 AND \"source_id\" IS NOT NULL "
                    + "AND \"_key\" \(idKeyed ? "=" : "<>") ?1 || ':' || \"source_id\" AND \"_first_run_id\" <> ?2")
            try statement.bind(name, at: 1)
            try statement.bind(runID, at: 2)
            while try statement.step() {
                if let key = statement.text(0), let id = statement.text(1) { rows.append((key, "\(name):\(id)")) }
            }
        } catch {
            throw VinyardStore.storeError(error, "cannot read the \(name) ids of \(table) in \(store.path)")
        }
        return rows
    }

    /// The key of the row an earlier run stored for `idKey`'s vehicle under its VIN (the rows of
    /// that source with that id keyed otherwise); nil when there is none. The source's rows are
    /// read once a run.
    private func vinKey(forID idKey: String, writer: TableWriter) throws -> String? {
        guard let (name, table, cacheKey) = Self.idSource(idKey, writer) else { return nil }
        if vinKeysByID[cacheKey] == nil {
            var keys: [String: String] = [:]
            // The associations rows have lost (``keepIDAssociation(_:stored:key:newValues:)``),
            // then the rows' own, which win: a row carrying the id now says where it is.
            for (id, key) in try keptAssociations(table: table, name: name) { keys[id] = key }
            for row in try sourceRows(table: table, name: name, idKeyed: false) { keys[row.idKey] = row.key }
            vinKeysByID[cacheKey] = keys
        }
        return vinKeysByID[cacheKey]?[idKey]
    }
    private var vinKeysByID: [String: [String: String]] = [:]

    /// Keeps in `id_keys` that a row stored under its VIN (`key`) is the vehicle its source knows
    /// by an id (`fleet-record:veh-1`), before a rewrite takes that source or id from the row:
    /// under `last` a fleet file's record of the same VIN makes the row `fleet`, without the id.
    /// The next record of the id without its VIN then found no row of its vehicle and added the
    /// id's row again; a later record with the VIN folded it back in, and so on: the same inputs
    /// imported again added and removed a row run after run (found by audit). Done only when the
    /// rewrite changes them, as the row's own `source` and `source_id` tell it otherwise.
    private func keepIDAssociation(_ writer: TableWriter, stored: StoredRow, key: String, newValues: [FieldValue?]) throws {
        guard let s = writer.sourceField, let i = writer.sourceIDField,
            let source = stored.values[s]?.text, !source.isEmpty, let id = stored.values[i]?.text, !id.isEmpty
        else { return }
        let idKey = "\(source):\(id)"
        guard key != idKey, newValues[s]?.text != source || newValues[i]?.text != id else { return }
        do {
            if keepAssociation == nil {
                keepAssociation = try connection.prepare("INSERT OR REPLACE INTO id_keys(table_name, id_key, key) VALUES (?1, ?2, ?3)")
            }
            try keepAssociation?.execute([.text(writer.schema.name), .text(idKey), .text(key)])
        } catch {
            throw VinyardStore.storeError(error, "cannot keep the key of \(idKey) in \(store.path)")
        }
    }
    private var keepAssociation: Statement?
    /// Rows earlier runs kept under an id that this run folded into their vehicle's VIN row.
    public private(set) var folded = 0

    /// The associations ``keepIDAssociation(_:stored:key:newValues:)`` kept for the source `name`
    /// in `table`, as (`name:id`, key).
    private func keptAssociations(table: String, name: String) throws -> [(String, String)] {
        var out: [(String, String)] = []
        do {
            // (`name:` up to `name;`, the next character: the ids of that source and no other.)
            let statement = try connection.prepare("SELECT id_key, key FROM id_keys WHERE table_name = ?1 AND id_key >= ?2 AND id_key < ?3")
            try statement.bind(table, at: 1)
            try statement.bind(name + ":", at: 2)
            try statement.bind(name + ";", at: 3)
            while try statement.step() {
                if let id = statement.text(0), let key = statement.text(1) { out.append((id, key)) }
            }
        } catch {
            throw VinyardStore.storeError(error, "cannot read the kept keys of \(name) in \(store.path)")
        }
        return out
    }

    private func rewrite(
        _ writer: TableWriter, rowID: Int64, key: String, values: [FieldValue?], hash: Int64, source: String?,
        input: String?, line: Int?, element: Int?
    ) throws(StoreError) {
        try writer.bindRow(
            writer.update, key: key, values: values, source: source, input: input, line: line, element: element, hash: hash)
        try writer.update.bind(rowID, at: writer.rowIDIndex)
        try writer.update.step()
        writer.update.reset()
    }

    private func isEmpty(_ value: FieldValue?) -> Bool {
        switch value {
        case nil: true
        case .text(let s): s.isEmpty
        default: false
        }
    }

    /// A merged record's own findings that belong on the row: those on a field it filled (empty
    /// in the row, now the record's value), and those on no schema field when it filled one. A
    /// warning on a value that was not taken (`vin.make_mismatch` on a make the row kept from an
    /// earlier record) stays with the record in `duplicates` only.
    private func mergedFindings(_ findings: [Finding], stored: [FieldValue?], kept: [FieldValue?], names: [String]) -> [Finding] {
        guard !findings.isEmpty else { return [] }
        let filled = stored.indices.map { isEmpty(stored[$0]) && !isEmpty(kept[$0]) }
        let anyFilled = filled.contains(true)
        return findings.filter { finding in
            guard let field = finding.field, let i = names.firstIndex(of: field), i < filled.count else { return anyFilled }
            return filled[i]
        }
    }

    /// True when `values` holds a value (not empty) that `kept` does not: it would be lost
    /// without a `duplicates` entry.
    private func losesValues(_ values: [FieldValue?], _ kept: [FieldValue?]) -> Bool {
        values.indices.contains { !isEmpty(values[$0]) && values[$0] != kept[$0] }
    }

    /// The fields whose values differ where both records have one. Provenance fields (`source`,
    /// `source_id`) and values decoded from the VIN (`vin_*`) do not count: the same vehicle from two
    /// systems differs there by nature.
    private func conflictingFields(_ stored: [FieldValue?], _ new: [FieldValue?], names: [String]) -> [Int] {
        var fields: [Int] = []
        for i in stored.indices where !isEmpty(stored[i]) && !isEmpty(new[i]) && stored[i] != new[i] {
            if !ConflictRule.counts(field: names[i]) { continue }
            fields.append(i)
        }
        return fields
    }

    /// One `key.conflict` warning for the record, naming every conflicting field with both values.
    private func conflictFindings(
        _ fields: [Int], writer: TableWriter, key: String, stored: StoredRow, new: [FieldValue?], kept: [FieldValue?],
        provenance: Provenance, policy: DuplicatePolicy
    ) -> [Finding] {
        guard !fields.isEmpty else { return [] }
        let earlier = stored.input.map { input in stored.line.map { "\(input):\($0)" } ?? input } ?? "an earlier record"
        let details = fields.map { i in
            let old = stored.values[i]?.text ?? "", value = new[i]?.text ?? ""
            let keptValue = kept[i]?.text ?? ""
            return "\(writer.names[i]) \"\(old)\" there, \"\(value)\" here, kept \"\(keptValue)\""
        }
        return [
            Finding(
                .keyConflict, .warning, field: fields.count == 1 ? writer.names[fields[0]] : nil,
                message: "key \(key) also in \(earlier) with other values: " + details.joined(separator: "; ")
                    + " (--on-duplicate \(policy.rawValue)); check which is right",
                input: provenance.input, line: provenance.line, element: provenance.index)
        ]
    }

    private func addFindings(_ findings: [Finding], table: String, key: String, provenance: Provenance) throws(StoreError) {
        if findings.isEmpty { return }
        for finding in findings where finding.severity == .warning {
            insertFinding.reset()
            try bindFindingPlace(insertFinding, finding, table: table, key: key, provenance: provenance)
            try insertFinding.bind(finding.severity.rawValue, at: 7)
            try insertFinding.bind(finding.field, at: 8)
            try insertFinding.bind(finding.message, at: 9)
            try insertFinding.bind(finding.suggestion, at: 10)
            try insertFinding.bind(finding.input == nil ? provenance.index : finding.element, at: 11)
            try insertFinding.step()
        }
        insertFinding.reset()
    }

    /// Binds a finding's table, key, input, line and code to parameters 2…6 (the statements that
    /// insert a finding and delete an earlier run's copy of it).
    private func bindFindingPlace(
        _ statement: Statement, _ finding: Finding, table: String, key: String, provenance: Provenance
    ) throws(StoreError) {
        try statement.bind(table, at: 2)
        try statement.bind(key, at: 3)
        try statement.bind(finding.input ?? provenance.input, at: 4)
        try statement.bind(finding.line ?? provenance.line, at: 5)
        try statement.bind(finding.code.rawValue, at: 6)
    }

    /// Deletes, for each warning, one identical finding (key, input, line, code, message) that an
    /// earlier run stored.
    private func removeEarlierFindings(
        _ findings: [Finding], table: String, key: String, provenance: Provenance
    ) throws(StoreError) {
        for finding in findings where finding.severity == .warning {
            deleteRepeatedFinding.reset()
            try bindFindingPlace(deleteRepeatedFinding, finding, table: table, key: key, provenance: provenance)
            try deleteRepeatedFinding.bind(finding.message, at: 7)
            try deleteRepeatedFinding.step()
        }
        deleteRepeatedFinding.reset()
    }

    private func findings(table: String, key: String) throws(StoreError) -> [Finding] {
        selectFindings.reset()
        defer { selectFindings.reset() }
        try selectFindings.bind(table, at: 1)
        try selectFindings.bind(key, at: 2)
        var list: [Finding] = []
        while try selectFindings.step() {
            list.append(
                Finding(
                    FindingCode(selectFindings.text(0) ?? ""), Severity(rawValue: selectFindings.text(1) ?? "") ?? .warning,
                    field: selectFindings.text(2), message: selectFindings.text(3) ?? "", suggestion: selectFindings.text(4),
                    input: selectFindings.text(5), line: selectFindings.isNull(6) ? nil : Int(selectFindings.int64(6)),
                    element: selectFindings.isNull(7) ? nil : Int(selectFindings.int64(7))))
        }
        return list
    }

    private func clearFindings(table: String, key: String) throws(StoreError) {
        deleteFindings.reset()
        try deleteFindings.bind(table, at: 1)
        try deleteFindings.bind(key, at: 2)
        try deleteFindings.step()
        deleteFindings.reset()
    }

    /// Removes the `duplicates` entry (same key, input, line, element, action and raw text: records
    /// of a JSON array on one line share the line, and two of them with the same stored values
    /// are told apart by their element; an entry without one, from a database written before
    /// entries kept it, matches any) and the `key.conflict` findings an earlier run left for the
    /// same record, so re-running an input does not pile them up.
    private func removeEarlier(table: String, key: String, provenance: Provenance, action: String, raw: String) throws(StoreError) {
        try removeEarlier(
            table: table, key: key, input: provenance.input, line: provenance.line, element: provenance.index, action: action,
            raw: raw)
    }

    private func removeEarlier(
        table: String, key: String, input: String?, line: Int?, element: Int?, action: String, raw: String
    ) throws(StoreError) {
        for statement in [deleteConflictFindings, deleteDuplicate] {
            statement.reset()
            try statement.bind(table, at: 1)
            try statement.bind(key, at: 2)
            try statement.bind(input, at: 3)
            try statement.bind(line, at: 4)
            if statement === deleteDuplicate {
                try statement.bind(action, at: 5)
                try statement.bind(raw, at: 6)
                try statement.bind(element, at: 8)
            }
            try statement.step()
            statement.reset()
        }
    }

    /// Moves the findings at a stored row's place (its `_input`, `_line`, `_element`) to
    /// `provenance` when that is in the same input: the row's own record's warnings, before the
    /// row itself moves. Conflicts stay.
    private func moveOwnFindings(table: String, key: String, rowID: Int64, to provenance: Provenance) throws(StoreError) {
        let statement: Statement
        if let prepared = moveFindings[table] {
            statement = prepared
        } else {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            statement = try connection.prepare(
                """
                UPDATE findings SET input=?1, line=?2, element=?3 WHERE table_name=?4 AND key=?5 AND code<>'key.conflict'
                AND run_id<>?7 AND input IS ?1 AND EXISTS(SELECT 1 FROM \(quoted) AS r WHERE r.rowid=?6
                AND r._input IS findings.input AND r._line IS findings.line AND r._element IS findings.element)
                """, persistent: true)
            moveFindings[table] = statement
        }
        statement.reset()
        defer { statement.reset() }
        try statement.bind(provenance.input, at: 1)
        try statement.bind(Int64(provenance.line), at: 2)
        try statement.bind(provenance.index, at: 3)
        try statement.bind(table, at: 4)
        try statement.bind(key, at: 5)
        try statement.bind(rowID, at: 6)
        try statement.bind(runID, at: 7)
        try statement.step()
    }

    /// - Parameter stored: a replaced row's stored values (as JSON), which identify its entry when a
    ///   later run meets the same row again; nil for a dropped or merged record (its `raw` does).
    private func addDuplicate(
        table: String, key: String, input: String?, line: Int?, element: Int?, action: String, raw: String,
        findings: [Finding], stored: String? = nil
    ) throws(StoreError) {
        insertDuplicate.reset()
        try insertDuplicate.bind(table, at: 2)
        try insertDuplicate.bind(key, at: 3)
        try insertDuplicate.bind(input, at: 4)
        try insertDuplicate.bind(line, at: 5)
        try insertDuplicate.bind(action, at: 6)
        try insertDuplicate.bind(raw, at: 7)
        try insertDuplicate.bind(StoreJSON.findings(findings), at: 8)
        try insertDuplicate.bind(stored, at: 9)
        try insertDuplicate.bind(element, at: 10)
        try insertDuplicate.step()
        insertDuplicate.reset()
    }

    // MARK: Raw fields of replaced rows

    /// A row replaced within the run under `last` leaves a `duplicates` entry whose record was read
    /// earlier in this run and is no longer at hand: the entry holds the row's stored values until
    /// ``fillReplacedRawFields(_:)`` reads the record again. The entries wait in a temporary table
    /// (on disk past SQLite's cache: memory does not grow with them).
    private func awaitRawFields(_ id: Int64) throws(StoreError) {
        if awaitingRaw == nil {
            try connection.execute("CREATE TEMP TABLE IF NOT EXISTS vinyard_awaiting_raw(id INTEGER PRIMARY KEY)")
            awaitingRaw = try connection.prepare("INSERT OR IGNORE INTO temp.vinyard_awaiting_raw(id) VALUES(?1)", persistent: true)
        }
        guard let awaitingRaw else { return }
        awaitingRaw.reset()
        try awaitingRaw.bind(id, at: 1)
        try awaitingRaw.step()
        awaitingRaw.reset()
    }

    /// A `duplicates` entry of a row replaced within this run, waiting for its record's raw fields.
    public struct ReplacedEntry: Sendable, Hashable {
        public var key: String
        /// The input, line and JSON array element the replaced row was read from.
        public var input: String
        public var line: Int
        public var element: Int?
    }

    /// Gives each entry of a row replaced within this run (``DuplicatePolicy/last``) the raw fields
    /// of its record, as `raw` holds them for dropped and merged records; `body` reads them again
    /// and is called in order of input, then line. An entry `body` has no fields for (standard
    /// input cannot be read twice) keeps the row's stored values as its `raw`.
    public func fillReplacedRawFields(_ body: (ReplacedEntry) throws -> [RawField]?) throws {
        guard awaitingRaw != nil else { return }
        let select = try connection.prepare(
            """
            SELECT d.id, d.key, d.input, d.line, d.element FROM temp.vinyard_awaiting_raw a JOIN duplicates d ON d.id = a.id
            WHERE d.input IS NOT NULL AND d.line IS NOT NULL ORDER BY d.input, d.line, d.element, d.id
            """)
        let update = try connection.prepare("UPDATE duplicates SET raw = ?1 WHERE id = ?2")
        while try select.step() {
            let entry = ReplacedEntry(
                key: select.text(1) ?? "", input: select.text(2) ?? "", line: Int(select.int64(3)),
                element: select.isNull(4) ? nil : Int(select.int64(4)))
            guard let fields = try body(entry) else { continue }
            update.reset()
            try update.bind(StoreJSON.fields(fields), at: 1)
            try update.bind(select.int64(0), at: 2)
            try update.step()
        }
        select.reset()
        update.reset()
        try connection.execute("DELETE FROM temp.vinyard_awaiting_raw")
    }

    static func optionsJSON(_ options: [String: String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, key) in options.keys.sorted().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            StoreJSON.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            StoreJSON.appendString(options[key] ?? "", to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    static func countsJSON(_ counts: [String: Int]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, key) in counts.keys.sorted().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            StoreJSON.appendString(key, to: &out)
            out.append(contentsOf: ":\(counts[key] ?? 0)".utf8)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    static func inputsJSON(_ inputs: [ImportInput]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, input) in inputs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"name\":".utf8)
            StoreJSON.appendString(input.name, to: &out)
            out.append(contentsOf: ",\"content_hash\":".utf8)
            StoreJSON.appendFieldValue(input.contentHash.map(FieldValue.text), to: &out)
            out.append(contentsOf: ",\"size\":".utf8)
            StoreJSON.appendFieldValue(input.size.map(FieldValue.integer), to: &out)
            out.append(contentsOf: ",\"source\":".utf8)
            StoreJSON.appendFieldValue(input.source.map(FieldValue.text), to: &out)
            out.append(contentsOf: ",\"read\":\(input.read ?? 0),\"rejected\":\(input.rejected ?? 0)}".utf8)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
