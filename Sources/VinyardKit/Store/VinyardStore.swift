import CSQLite
import Foundation

/// A Vinyard database: one SQLite file holding a table per ``Schema`` plus the bookkeeping tables
/// `vinyard_meta`, `import_runs`, `rejects`, `findings` and `duplicates`.
///
/// Opening refuses, and leaves byte-for-byte untouched, a file that is not an SQLite database and
/// an SQLite database that holds other tables but no `vinyard_meta` table. An existing empty file
/// is taken as a new database. Writers use WAL mode with `synchronous=NORMAL` and wait up to the
/// busy timeout for another writer instead of failing.
public final class VinyardStore {
    /// The underlying connection (for streaming reads with ``Statement``).
    public let connection: Connection
    /// The database file path.
    public let path: String
    /// True when opened with ``init(path:readOnly:busyTimeout:)`` `readOnly: true`.
    public let isReadOnly: Bool
    /// Seconds a writer waits for another connection's lock.
    public let busyTimeout: Double
    /// True when the file holds the Vinyard bookkeeping tables (false for a new, read-only open).
    public private(set) var isInitialized: Bool
    /// True when this open created the database's bookkeeping tables (a new database).
    public private(set) var wasCreated = false

    /// At most this many keys of an import into an empty table are kept in memory (about 11 bytes
    /// each) while its key index is dropped; past it the index is built and the run goes on with
    /// it. 0 keeps the index throughout (for tests comparing both paths).
    var fastKeyLimit = Int.max
    /// Keys of such an import kept in memory before they move to a temporary file (see
    /// ``RunKeyIndex``); tests use a small number to exercise the spilled runs.
    var runKeyLiveLimit = RunKeyIndex.defaultLiveLimit

    /// The page cache of a writer (64 MiB, as a negative KiB count for `PRAGMA cache_size`).
    static let writerCacheSize = -65536
    /// The page cache while appending to a table without its key index (8 MiB: appending needs
    /// few pages; the memory goes to the run's in-memory keys).
    static let appendCacheSize = -8192
    /// The page cache (and so the sorter's memory) while the key index is built (2 MiB: the sort
    /// spills sorted runs to temporary files and merges them). Measured with the sqlite3 shell's
    /// `CREATE UNIQUE INDEX` on 1M and 5M-row tables: 2 MiB with one helper thread took 0.52-0.58 s
    /// and 2.5 s at a peak of 38 and 40 MB; 8 MiB with two helpers 0.60-0.66 s and 2.65 s at 52 and
    /// 62 MB (each helper's merge buffers grow with the number of sorted runs); no helper 0.75 s.
    static let indexBuildCacheSize = -2048
    /// `PRAGMA threads` for the key-index build: 1 (the sort gets a helper thread) when there is
    /// a second core, else 0.
    static let indexBuildThreads = ProcessInfo.processInfo.activeProcessorCount > 1 ? 1 : 0

    /// An import into tables that are all empty (the big first load) runs with a rollback journal
    /// instead of the WAL, when no other connection has the file open: its new pages are then
    /// written once, where the WAL would write them twice (to the log, then copied into the file
    /// by the checkpoint at the end; about 1 s of a 1M-row import). The run stays one atomic
    /// transaction (a killed run leaves a hot journal that the next open rolls back), and the
    /// file is back in WAL mode when it ends. Off keeps the WAL throughout (`ImportPathTests` compares both).
    var bulkLoadJournal = true

    /// The database format this code writes (`vinyard_meta.format`). 2: rows and `duplicates`
    /// entries keep their JSON array element (`_element`, `duplicates.element`). A format-1 file
    /// is brought to 2 by the first writer that opens it; a version that writes format 1 refuses
    /// a format-2 file, since it would leave rows with another input's element (found by audit).
    public static let formatVersion = 2
    /// Tables Vinyard keeps for itself; a schema cannot use these names.
    public static let bookkeepingTables: [String] = ["vinyard_meta", "import_runs", "rejects", "findings", "duplicates", "id_keys"]
    /// The bookkeeping columns every schema table has, after the schema's fields.
    public static let bookkeepingColumns: [String] = [
        "_key", "_source", "_input", "_line", "_element", "_run_id", "_first_run_id", "_hash", "_updated_at",
    ]

    /// Opens (and, for writers, creates) the Vinyard database at `path`.
    /// - Parameter creatingTables: a writer that creates the database creates these schemas'
    ///   tables in the same transaction as its bookkeeping tables: a first import killed at once
    ///   left a Vinyard database with `locations` but no `vehicles` (each table was committed on
    ///   its own), which `export` refused.
    /// - Throws: ``VinyardError`` `.malformedInput` for a file that is not a Vinyard database,
    ///   `.missingInput` for a read-only open of a missing file, `.cantCreate` when the file cannot
    ///   be created or written, `.store` for other SQLite failures.
    public init(path: String, readOnly: Bool = false, busyTimeout: Double = 30, creatingTables schemas: [Schema] = []) throws {
        self.path = path
        self.isReadOnly = readOnly
        self.busyTimeout = busyTimeout
        try Self.checkFile(path: path, readOnly: readOnly)
        try Self.refuseForeign(path)
        if readOnly { Self.rollBackHotJournal(path) }
        let hadWAL = access(path + "-wal", F_OK) == 0, hadSHM = access(path + "-shm", F_OK) == 0
        do {
            connection = try Self.openConnection(path: path, readOnly: readOnly, busyTimeout: busyTimeout)
        } catch {
            throw Self.openError(error, path: path, readOnly: readOnly)
        }
        isInitialized = false
        // Until the file is known to be ours: closing must not checkpoint another application's
        // log into its database (whose tables may be in the log alone, where the check before
        // the open does not see them).
        connection.setCheckpointOnClose(false)
        do {
            let tables = try userTableNames()
            if tables.contains("vinyard_meta") {
                isInitialized = true
                try checkFormat()
            } else if !tables.isEmpty {
                throw Self.foreignDatabase(path, tables: tables)
            } else if let refusal = try Self.applicationClaim(connection, path: path) {
                throw refusal
            }
            connection.setCheckpointOnClose(true)
            if !readOnly {
                try configureWriter()
                if !isInitialized {
                    try createBookkeeping(schemas: schemas)
                    wasCreated = true
                } else {
                    try addColumnIfMissing(table: "findings", column: "element", type: "INTEGER")
                    try addColumnIfMissing(table: "duplicates", column: "stored", type: "TEXT")
                    try addColumnIfMissing(table: "duplicates", column: "element", type: "INTEGER")
                    try migrate(
                        when: "SELECT count(*) > 0 FROM vinyard_meta WHERE key = 'format' AND CAST(value AS INTEGER) < \(Self.formatVersion)",
                        "UPDATE vinyard_meta SET value = '\(Self.formatVersion)' WHERE key = 'format'")
                    try indexByPlace(table: "findings", last: "run_id", name: "findings_place_run", replacing: ["findings_key", "findings_place"])
                    try indexByPlace(
                        table: "duplicates", last: "element", name: "duplicates_place_element", replacing: ["duplicates_key", "duplicates_place"])
                    try migrate(
                        when: Self.indexMissing("rejects_record", on: "rejects"),
                        Self.rejectsRecordIndex)
                    try migrate(
                        when: "SELECT count(*) = 0 FROM sqlite_master WHERE type = 'table' AND name = 'id_keys'", Self.idKeysTable)
                }
                isInitialized = true
            } else {
                try connection.execute("PRAGMA cache_size=-65536")
                // A Vinyard database read in a folder we can write: closing takes away the log
                // files this read-only open created (see ``Connection/removesLogFilesOnClose``).
                connection.removesLogFilesOnClose =
                    access(path, W_OK) == 0 && access(Self.directory(of: path), W_OK) == 0
            }
        } catch let error as StoreError {
            if error.isCorrupt || error.isNotADatabase {
                // Opening a damaged file whose header says WAL creates an empty `-wal` and a
                // `-shm` beside it: take away what this open added, so the folder is as it was.
                connection.close()
                Self.removeAddedWALFiles(path, hadWAL: hadWAL, hadSHM: hadSHM)
            }
            throw Self.openError(error, path: path, readOnly: readOnly)
        } catch let error as VinyardError where !isInitialized {
            // Another application's database: its log stays (no checkpoint on close), and the
            // `-shm` (and empty `-wal`) this open added go.
            connection.close()
            Self.removeAddedWALFiles(path, hadWAL: hadWAL, hadSHM: hadSHM)
            throw error
        }
    }

    /// Removes the `-wal` (only if empty) and `-shm` files of `path` that did not exist before;
    /// an added `-shm` stays only beside an added `-wal` that is not empty.
    private static func removeAddedWALFiles(_ path: String, hadWAL: Bool, hadSHM: Bool) {
        var info = stat()
        var walGone = hadWAL
        if !hadWAL, stat(path + "-wal", &info) == 0, info.st_size == 0 {
            unlink(path + "-wal")
            walGone = true
        }
        if !hadSHM, walGone { unlink(path + "-shm") }
    }

    // MARK: Opening checks

    /// The 16-byte header every SQLite 3 database file starts with.
    static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]

    private static func checkFile(path: String, readOnly: Bool) throws {
        guard !path.isEmpty else { throw VinyardError(.usage, "the database path is empty") }
        var isDirectory: ObjCBool = false
        let fm = FileManager.default
        if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
            // A database to read (export, emissions, stats) is an input: a directory or a special
            // file there is a missing input (66), as for an input file; a writer cannot create it (74).
            if isDirectory.boolValue {
                throw VinyardError(readOnly ? .missingInput : .cantCreate, "\(path) is a directory, not a database file; choose a file path for --db")
            }
            // Before opening it: reading a FIFO waits for a writer, for ever.
            var info = stat()
            let statted = stat(path, &info) == 0
            if statted, info.st_mode & S_IFMT != S_IFREG {
                let kind = switch info.st_mode & S_IFMT {
                case S_IFIFO: "a FIFO"
                case S_IFCHR: "a character device"
                case S_IFBLK: "a block device"
                case S_IFSOCK: "a socket"
                default: "a special file"
                }
                throw VinyardError(
                    readOnly ? .missingInput : .cantCreate, "\(path) is not a regular file (it is \(kind)); choose a file path for --db")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw VinyardError(.io, "cannot read \(path): permission denied")
            }
            defer { try? handle.close() }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            if !header.isEmpty, Array(header) != sqliteHeader {
                throw VinyardError(
                    .malformedInput,
                    "\(path) is not a Vinyard database (not an SQLite file); it was left untouched: "
                        + "choose another --db path")
            }
            if !readOnly, !fm.isWritableFile(atPath: path) {
                throw VinyardError(.cantCreate, "cannot write the database \(path): permission denied")
            }
            // Root may write a file nobody may write; a database made read-only is meant to stay as it is.
            if !readOnly, statted, info.st_mode & 0o222 == 0 {
                throw VinyardError(
                    .cantCreate,
                    "cannot write the database \(path): the file is read-only (mode \(String(info.st_mode & 0o777, radix: 8)))")
            }
        } else if readOnly {
            throw VinyardError(
                .missingInput, "no database at \(path): run `vinyard import --db \(path)` first")
        } else {
            let dir = Self.directory(of: path)
            if !fm.fileExists(atPath: dir, isDirectory: &isDirectory) {
                throw VinyardError(.cantCreate, "cannot create the database \(path): directory \(dir) does not exist")
            }
            if !isDirectory.boolValue {
                throw VinyardError(.cantCreate, "cannot create the database \(path): \(dir) is a file, not a directory")
            }
            if !fm.isWritableFile(atPath: dir) {
                throw VinyardError(.cantCreate, "cannot create the database \(path): directory \(dir) is not writable")
            }
        }
    }

    /// The directory a new file at `path` goes into: `.` for a bare name. (Foundation's
    /// `deletingLastPathComponent` trapped on a one-character name: `--db a` crashed.)
    static func directory(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    /// Opens the connection. A writer opens again when the file it opened was removed before its
    /// first read (``removeIfUnused(path:)`` of an import that created the file and failed):
    /// otherwise it would write into the removed file, and SQLite would create its `-wal` and
    /// `-shm` beside the new file at `path`.
    private static func openConnection(path: String, readOnly: Bool, busyTimeout: Double) throws(StoreError) -> Connection {
        var attempts = 0
        while true {
            let connection = try Connection(path: path, mode: readOnly ? .readOnly : .readWriteCreate)
            connection.setBusyTimeout(seconds: busyTimeout)
            if readOnly { return connection }
            // The first read (waiting for a remover's lock; its errors are the open's errors).
            _ = try connection.scalarInt("SELECT count(*) FROM main.sqlite_schema")
            attempts += 1
            if !connection.fileHasMoved || attempts == 5 { return connection }
        }
    }

    private static func openError(_ error: StoreError, path: String, readOnly: Bool) -> VinyardError {
        if error.isNotADatabase {
            // No cause: SQLite's text and the SQL that met the damage say nothing more to a user.
            return VinyardError(
                .malformedInput,
                "\(path) is not a Vinyard database (not a valid SQLite file); it was left untouched: choose another --db path")
        }
        if error.isCorrupt {
            return VinyardError(
                .malformedInput,
                "\(path) is damaged (\(error.message)); it was left untouched: restore it from a backup or choose another --db path",
                cause: nil)
        }
        if error.isCantOpen {
            return VinyardError(
                readOnly ? .missingInput : .cantCreate, "cannot open the database \(path)", cause: error)
        }
        if error.isReadOnly { return VinyardError(.cantCreate, "cannot write the database \(path)", cause: error) }
        return storeError(error, "cannot open the database \(path)")
    }

    /// Wraps a ``StoreError`` as a ``VinyardError`` with a code that matches the failure.
    static func storeError(_ error: StoreError, _ context: String) -> VinyardError {
        if error.isBusy {
            return VinyardError(.store, "\(context): the database is locked by another process", cause: error)
        }
        if error.isDiskFull { return VinyardError(.io, "\(context): disk full or I/O error", cause: error) }
        if error.isNotADatabase {
            return VinyardError(
                .malformedInput, "\(context): not a valid SQLite file; it was left untouched: choose another --db path")
        }
        // Damage found only when a page is read (an import that reaches a broken page) becomes
        // the damaged database of the exit-status table (65) in `VinyardError.init`.
        return VinyardError(.store, context, cause: error)
    }

    private func userTableNames() throws(StoreError) -> [String] {
        try Self.tableNames(in: connection, views: true)
    }

    /// The names of the main database's own tables (SQLite's `sqlite_…` aside), and of its views
    /// when `views` is true, in name order.
    static func tableNames(in connection: Connection, views: Bool = false) throws(StoreError) -> [String] {
        let types = views ? "('table','view')" : "('table')"
        let statement = try connection.prepare(
            "SELECT name FROM main.sqlite_schema WHERE type IN \(types) AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0) ?? "") }
        return names
    }

    /// True when `table` has no row.
    static func isEmpty(table: String, in connection: Connection) throws(StoreError) -> Bool {
        try connection.scalarInt("SELECT 1 FROM \(quoteIdentifier(table)) LIMIT 1") == nil
    }

    private func checkFormat() throws {
        let format = try connection.scalarText("SELECT value FROM vinyard_meta WHERE key = 'format'")
        guard let format, let version = Int(format) else {
            throw VinyardError(.malformedInput, "\(path) has a vinyard_meta table without a format version")
        }
        if version > Self.formatVersion {
            // Exit 65 like any database this tool cannot use (was 74, an I/O error); the file is
            // not touched.
            throw VinyardError(
                .malformedInput,
                "\(path) was written by a newer Vinyard (database format \(version), this tool reads up to \(Self.formatVersion)); "
                    + "use that version or a later one for this file, or give another --db")
        }
    }

    private func configureWriter() throws(StoreError) {
        // 16 KiB pages for a new file (a no-op on an existing one). Bulk loads and exports run as
        // fast as with 64 KiB pages (and faster than with the 4 KiB default: an export of 1M rows
        // took ~25% longer), while a re-import that rewrites rows here and there dirties a
        // quarter of the bytes per row: with 64 KiB pages the page cache filled with dirty pages,
        // the key index's clean pages were evicted and read again (14 GB of `pread` for a 600k-row
        // dirty file read again), and that re-import took 9.4-11.5 s against 7.9-8.2 s now.
        try connection.execute("PRAGMA page_size=16384")
        do {
            _ = try setJournalMode("wal")
        } catch where error.isBusy {
            // Another process is loading with a rollback journal (see `bulkLoadJournal`) and holds
            // the lock: this run waits for it at BEGIN, and the file goes back to WAL after it.
        }
        try connection.execute(
            "PRAGMA synchronous=NORMAL; PRAGMA cache_size=\(Self.writerCacheSize); PRAGMA temp_store=FILE")
    }

    /// `PRAGMA journal_mode=MODE`; true when the connection is now in that mode.
    @discardableResult
    func setJournalMode(_ mode: String) throws(StoreError) -> Bool {
        // journal_mode returns a row; run it through a statement so a failure is reported.
        let statement = try connection.prepare("PRAGMA journal_mode=\(mode)")
        guard try statement.step() else { return false }
        return statement.text(0)?.lowercased() == mode
    }

    /// Before an import's transaction: switches to a rollback journal when ``bulkLoadJournal`` is
    /// on, every schema table is empty (or not created yet) and no other connection has the file
    /// open (the switch out of WAL needs that, and fails at once otherwise). True when switched;
    /// the caller calls ``leaveBulkLoadJournal()`` when the run ends.
    func enterBulkLoadJournal() -> Bool {
        guard bulkLoadJournal, connection.isAutocommit else { return false }
        do {
            for table in try Self.tableNames(in: connection) where !Self.bookkeepingTables.contains(table) {
                if try !Self.isEmpty(table: table, in: connection) { return false }
            }
            guard try setJournalMode("delete") else { return false }
            // FULL: with a rollback journal, NORMAL can lose the journal's sync on power loss.
            try connection.execute("PRAGMA synchronous=FULL")
            return true
        } catch {
            return false
        }
    }

    /// After a run that ``enterBulkLoadJournal()`` switched: back to WAL. When another process
    /// holds the lock the switch is left to the next writer that opens the file (readers and
    /// writers work in either mode).
    func leaveBulkLoadJournal() {
        _ = try? setJournalMode("wal")
        try? connection.execute("PRAGMA synchronous=NORMAL")
    }

    /// Another application's database is refused before a normal open, which would checkpoint a
    /// `-wal` beside it into it or roll a `-journal` back (and delete them), and leaves a `-wal`
    /// and `-shm` beside a WAL file opened to read: the file is left as it was, as the message
    /// says. Its main file is read as it is (`immutable`); a Vinyard database whose tables are
    /// still in its log (a first import running) shows no tables there and goes on to the normal open.
    /// An empty database that names its application (`PRAGMA application_id` or `user_version`,
    /// which Vinyard leaves at 0) is another application's too: it was taken over and written.
    private static func refuseForeign(_ path: String) throws {
        guard access(path, R_OK) == 0,
            let connection = try? Connection(path: path, mode: .immutable),
            let tables = try? tableNames(in: connection, views: true),
            !tables.contains("vinyard_meta")
        else { return }
        if !tables.isEmpty { throw foreignDatabase(path, tables: tables) }
        if let refusal = try? applicationClaim(connection, path: path) { throw refusal }
    }

    /// The refusal of an empty database that names its application (`application_id` or
    /// `user_version`, which Vinyard leaves at 0); nil for one that does not.
    private static func applicationClaim(_ connection: Connection, path: String) throws(StoreError) -> VinyardError? {
        let application = try connection.scalarInt("PRAGMA application_id") ?? 0
        let version = try connection.scalarInt("PRAGMA user_version") ?? 0
        guard application != 0 || version != 0 else { return nil }
        return VinyardError(
            .malformedInput,
            "\(path) is an empty SQLite database of another application (application_id \(application), "
                + "user_version \(version)); it was left untouched: choose another --db path")
    }

    /// The refusal of another application's SQLite database.
    private static func foreignDatabase(_ path: String, tables: [String]) -> VinyardError {
        let listed = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
        return VinyardError(
            .malformedInput,
            "\(path) is an SQLite database but not a Vinyard database (it holds tables \(listed) and no "
                + "vinyard_meta table); it was left untouched: choose another --db path")
    }

    /// A killed bulk load leaves a hot journal beside the file, which a read-only connection cannot
    /// roll back ("attempt to write a readonly database"). When the file is writable, a short
    /// read-write connection rolls it back first, as any writer would on open, and puts a Vinyard
    /// database back in WAL mode (the killed run could not).
    private static func rollBackHotJournal(_ path: String) {
        guard access(path + "-journal", F_OK) == 0, access(path, W_OK) == 0 else { return }
        guard let connection = try? Connection(path: path, mode: .readWrite) else { return }
        connection.setBusyTimeout(seconds: 5)
        guard (try? connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name='vinyard_meta'")) == 1 else { return }
        try? connection.execute("PRAGMA journal_mode=WAL")
    }

    private func createBookkeeping(schemas: [Schema]) throws {
        for schema in schemas { try Self.validate(schema) }
        let now = Self.timestamp(Date())
        try connection.begin(.immediate)
        do {
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS vinyard_meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                INSERT OR IGNORE INTO vinyard_meta(key, value) VALUES
                  ('format', '\(Self.formatVersion)'), ('created_at', '\(now)'), ('created_by', 'vinyard \(VinyardVersion.string)');
                CREATE TABLE IF NOT EXISTS import_runs(
                  id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, finished_at TEXT,
                  tool_version TEXT NOT NULL, options TEXT NOT NULL DEFAULT '{}', inputs TEXT NOT NULL DEFAULT '[]',
                  read INTEGER NOT NULL DEFAULT 0, inserted INTEGER NOT NULL DEFAULT 0,
                  updated INTEGER NOT NULL DEFAULT 0, unchanged INTEGER NOT NULL DEFAULT 0,
                  duplicates INTEGER NOT NULL DEFAULT 0, rejected INTEGER NOT NULL DEFAULT 0,
                  findings TEXT NOT NULL DEFAULT '{}', elapsed_seconds REAL, status TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS rejects(
                  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, table_name TEXT, input TEXT NOT NULL,
                  line INTEGER, element INTEGER, source TEXT, raw TEXT NOT NULL, raw_text TEXT,
                  findings TEXT NOT NULL, reason TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS rejects_run ON rejects(run_id);
                CREATE INDEX IF NOT EXISTS rejects_input ON rejects(input, line);
                \(Self.rejectsRecordIndex);
                CREATE TABLE IF NOT EXISTS findings(
                  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, table_name TEXT NOT NULL, key TEXT NOT NULL,
                  input TEXT, line INTEGER, code TEXT NOT NULL, severity TEXT NOT NULL, field TEXT,
                  message TEXT NOT NULL, suggestion TEXT, element INTEGER);
                CREATE INDEX IF NOT EXISTS findings_place_run ON findings(table_name, key, input, line, run_id);
                CREATE TABLE IF NOT EXISTS duplicates(
                  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, table_name TEXT NOT NULL, key TEXT NOT NULL,
                  input TEXT, line INTEGER, action TEXT NOT NULL, raw TEXT NOT NULL, findings TEXT NOT NULL, stored TEXT,
                  element INTEGER);
                CREATE INDEX IF NOT EXISTS duplicates_place_element ON duplicates(table_name, key, input, line, element);
                \(Self.idKeysTable);
                """)
            for schema in schemas { try createOrMigrate(schema) }
            try connection.commit()
        } catch {
            try? connection.rollback()
            throw error
        }
    }

    /// The vehicles a source knows by an id (`fleet-record:veh-1`) whose row is stored under
    /// another key (the VIN) and no longer carries that source and id (see ``ImportSession``).
    static let idKeysTable = """
        CREATE TABLE IF NOT EXISTS id_keys(
          table_name TEXT NOT NULL, id_key TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (table_name, id_key)) WITHOUT ROWID
        """

    /// Finds an earlier run's reject of the same record (``ImportSession``) by its input and the
    /// start of its raw JSON (which holds the first fields, the VIN among them in most files):
    /// by input alone, each reject of a re-import read every reject of that input, so a file of
    /// 20,000 rejects took 277 s to import again (found by audit). The prefix keeps the index
    /// small whatever the size of a rejected record; the run id last, so that the run's own rejects
    /// of one record (20,000 `{}`) are not read again for each (earlier runs have smaller ids).
    static let rejectsRecordIndex = "CREATE INDEX IF NOT EXISTS rejects_record ON rejects(input, substr(raw, 1, 160), run_id)"

    /// A database written before a bookkeeping column existed gets it, NULL in the existing rows:
    /// `findings.element` and `duplicates.element` (the index of a JSON array record, which tells
    /// apart the records of an array written on one line), `duplicates.stored` (a replaced row's stored values, see
    /// ``ImportSession``). Under a write lock, and only when it is missing: concurrent writers
    /// opening an old file add it once.
    private func addColumnIfMissing(table: String, column: String, type: String) throws(StoreError) {
        try migrate(
            when: "SELECT count(*) = 0 FROM pragma_table_info('\(table)') WHERE name = '\(column)'",
            "ALTER TABLE \(table) ADD COLUMN \(column) \(type)")
    }

    /// A database written before `findings` and `duplicates` were indexed by place gets the index
    /// (and loses the one on the key alone, a prefix of it). A run looks a record's earlier
    /// entries and conflict findings up by key, input and line: by key alone it read every entry
    /// of the key, so a file whose rows all share one key (one vehicle's history) took quadratic
    /// time (10,000 rows: 60 s under `last`, 142 s under `merge`).
    ///
    /// The place is followed by `last`: the run id in `findings` (a run clears what earlier runs
    /// left, `run_id < ?`), the element in `duplicates`: the records of a JSON array on one line
    /// share the place, and each read all the entries of the others (10,000 records of one VIN in
    /// a minified array: 94 s; found by audit).
    private func indexByPlace(table: String, last: String, name: String, replacing old: [String]) throws(StoreError) {
        try migrate(
            when: Self.indexMissing(name, on: table),
            "CREATE INDEX \(name) ON \(table)(table_name, key, input, line, \(last)); "
                + old.map { "DROP INDEX IF EXISTS \($0)" }.joined(separator: "; "))
        // An older version writing the file again re-creates the shorter index; it goes again.
        let names = old.map { "'\($0)'" }.joined(separator: ", ")
        try migrate(
            when: "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'index' AND name IN (\(names))",
            old.map { "DROP INDEX IF EXISTS \($0)" }.joined(separator: "; "))
    }

    /// A query giving 1 when the table is there without the index: a database missing the table
    /// itself is damaged, which the run reports (exit 65) rather than failing to index it.
    private static func indexMissing(_ index: String, on table: String) -> String {
        "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '\(index)') = 0 "
            + "AND (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(table)') = 1"
    }

    /// Runs `sql` when `missing` (a query giving 1 or 0) says the database needs it: checked
    /// first without a lock, then again under a write lock, so concurrent writers opening an old
    /// file change it once.
    private func migrate(when missing: String, _ sql: String) throws(StoreError) {
        guard try connection.scalarInt(missing) == 1 else { return }
        try connection.begin(.immediate)
        do {
            if try connection.scalarInt(missing) == 1 { try connection.execute(sql) }
            try connection.commit()
        } catch {
            try? connection.rollback()
            throw error
        }
    }

    /// An ISO 8601 UTC timestamp with milliseconds, e.g. `2024-05-01T12:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

/// Quotes an SQL identifier: `"name"`, with embedded quotes doubled.
func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
