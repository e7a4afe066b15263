/// The first load's INSERT path: while a table's key index is dropped (the table was empty when
/// the run started, see ``TableWriter/runKeys``), new rows are queued and written
/// ``batchSize`` at a time by one multi-row `INSERT`, which lists only the columns that some row
/// of the run has filled.
///
/// Why: per row, a single-row `INSERT` pays for a whole statement run (opening the table cursor,
/// seeking its last row, halting: about 2.3k instructions, measured with callgrind) and copies
/// every one of the table's 41 parameters into registers, NULL or not. A batch pays the
/// statement once per ``batchSize`` rows, and an unlisted column costs nothing.
///
/// Rows of one statement get consecutive rowids (each is the table's largest + 1, and nothing
/// else writes the table in between), so the rowids of a batch follow from the last one.
/// Queued rows are not in the table yet: ``contains(keyHash:)`` tells the caller to ``flush()``
/// before it looks a key up, and the writer flushes before anything else reads or indexes the table.
final class RowAppender {
    /// Rows per multi-row statement (measured: 16 → 32 saves little more; a partial batch is
    /// written row by row).
    static let batchSize = 32

    private let connection: Connection
    private let table: String
    private let fieldColumns: [String]
    private let runID: Int64
    private let timestamp: String

    /// A queued row: what ``TableWriter/bindRow`` binds, plus the key's hash for the run keys.
    private struct Row {
        var key: String
        var values: [FieldValue?]
        var source: String?
        var input: String?
        var line: Int?
        var element: Int?
        var hash: Int64
        var keyHash: UInt64
    }

    private var queue: [Row] = []
    /// The fields the statements list (some row of the run filled them), in schema order.
    private var listed: [Int] = []
    private var isListed: [Bool]
    private var batch: Statement?
    private var single: Statement?
    /// Parameters per row: key, listed fields, source, input, line, hash, element.
    private var perRow: Int { listed.count + 6 }
    /// Parameters bound to NULL in the current statements (bound again only when that changes).
    private var batchNulls: [Bool] = []
    private var singleNulls: [Bool] = []
    @exclusivity(unchecked) private var arena = RowArena()

    init(connection: Connection, table: String, fieldColumns: [String], runID: Int64, timestamp: String) {
        self.connection = connection
        self.table = table
        self.fieldColumns = fieldColumns
        self.runID = runID
        self.timestamp = timestamp
        isListed = Array(repeating: false, count: fieldColumns.count)
        queue.reserveCapacity(Self.batchSize)
    }

    var isEmpty: Bool { queue.isEmpty }

    /// True when a queued row has a key with this hash (maybe the same key): flush before looking
    /// the key up.
    func contains(keyHash: UInt64) -> Bool {
        for row in queue where row.keyHash == keyHash { return true }
        return false
    }

    /// Queues a new row. When the queue is full it is written, and `written` gets each row's key
    /// hash and rowid, in order.
    func append(
        key: String, values: [FieldValue?], source: String?, input: String?, line: Int?, element: Int?, hash: Int64,
        keyHash: UInt64, written: (UInt64, Int64) throws(StoreError) -> Void
    ) throws(StoreError) {
        var widen = false
        for i in values.indices where values[i] != nil && !isListed[i] { widen = true }
        if widen {
            // A column no statement lists yet: write what is queued with the statements as they
            // are, then list it (a run settles on its sources' columns after a few rows).
            try flush(written)
            for i in values.indices where values[i] != nil { isListed[i] = true }
            listed = isListed.indices.filter { isListed[$0] }
            batch = nil
            single = nil
        }
        queue.append(
            Row(key: key, values: values, source: source, input: input, line: line, element: element, hash: hash, keyHash: keyHash))
        if queue.count == Self.batchSize { try flush(written) }
    }

    /// Writes the queued rows; `written` gets each row's key hash and rowid, in order.
    func flush(_ written: (UInt64, Int64) throws(StoreError) -> Void) throws(StoreError) {
        guard !queue.isEmpty else { return }
        let rows = queue
        queue.removeAll(keepingCapacity: true)
        var needed = 0
        for row in rows {
            needed += row.key.utf8.count
            for case .text(let s)? in row.values { needed += s.utf8.count }
        }
        // Every text of the statement run is bound without a copy: the arena holds them all.
        arena.reset(capacity: needed)
        if rows.count == Self.batchSize {
            let statement = try batchStatement()
            statement.reset()
            for (j, row) in rows.enumerated() { try bind(row, to: statement, slot: j, nulls: &batchNulls) }
            try statement.step()
            statement.reset()
            let last = connection.lastInsertRowID
            let first = last - Int64(rows.count) + 1
            // Only the key hashes: a loop over whole rows copied each (retaining its strings).
            for j in rows.indices { try written(rows[j].keyHash, first + Int64(j)) }
        } else {
            let statement = try singleStatement()
            for row in rows {
                statement.reset()
                try bind(row, to: statement, slot: 0, nulls: &singleNulls)
                try statement.step()
                statement.reset()
                try written(row.keyHash, connection.lastInsertRowID)
            }
        }
    }

    private func bind(_ row: Row, to statement: Statement, slot: Int, nulls: inout [Bool]) throws(StoreError) {
        let base = slot * perRow
        try statement.bindStatic(arena.append(row.key), at: base + 1)
        var p = base + 2
        for i in listed {
            switch row.values[i] {
            case nil:
                if !nulls[p] {
                    try statement.bindNull(at: p)
                    nulls[p] = true
                }
                p += 1
                continue
            case .text(let s)?: try statement.bindStatic(arena.append(s), at: p)
            case .integer(let v)?: try statement.bind(v, at: p)
            case .real(let d)?: try statement.bind(d, at: p)
            case .bool(let b)?: try statement.bind(Int64(b ? 1 : 0), at: p)
            }
            nulls[p] = false
            p += 1
        }
        try statement.bindRepeating(row.source, at: p)
        try statement.bindRepeating(row.input, at: p + 1)
        try statement.bind(row.line, at: p + 2)
        try statement.bind(row.hash, at: p + 3)
        try statement.bind(row.element, at: p + 4)
    }

    private func batchStatement() throws(StoreError) -> Statement {
        if let batch { return batch }
        let statement = try prepare(rows: Self.batchSize)
        batchNulls = Array(repeating: false, count: statement.parameterCount + 1)
        batch = statement
        return statement
    }

    private func singleStatement() throws(StoreError) -> Statement {
        if let single { return single }
        let statement = try prepare(rows: 1)
        singleNulls = Array(repeating: false, count: statement.parameterCount + 1)
        single = statement
        return statement
    }

    /// `INSERT OR FAIL INTO t(_key, listed…, _source, _input, _line, _hash, _element, _run_id,
    /// _first_run_id, _updated_at) VALUES (…), (…)…`: each row its own parameters, the run id and the time shared.
    /// `OR FAIL`: a multi-row statement that may abort needs a statement journal, which copied the
    /// table's last page (64 KiB then) to a temporary file per statement (15k writes for 200k rows). A
    /// failed statement fails the run, whose transaction is rolled back whole: nothing partial stays.
    private func prepare(rows: Int) throws(StoreError) -> Statement {
        let columns = ["\"_key\""] + listed.map { fieldColumns[$0] } + [
            "\"_source\"", "\"_input\"", "\"_line\"", "\"_hash\"", "\"_element\"", "\"_run_id\"", "\"_first_run_id\"",
            "\"_updated_at\"",
        ]
        let shared = rows * perRow
        let tuples = (0..<rows).map { j in
            let own = (1...perRow).map { "?\(j * perRow + $0)" }
            return "(" + (own + ["?\(shared + 1)", "?\(shared + 1)", "?\(shared + 2)"]).joined(separator: ",") + ")"
        }
        let statement = try connection.prepare(
            "INSERT OR FAIL INTO \(table)(\(columns.joined(separator: ","))) VALUES\(tuples.joined(separator: ","))",
            persistent: true)
        try statement.bind(runID, at: shared + 1)
        try statement.bind(timestamp, at: shared + 2)
        return statement
    }
}
