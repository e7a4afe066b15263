import CSQLite
import Foundation

/// An open SQLite database connection, closed when released.
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/sqlite3.html>
///
/// A connection is not thread-safe: use it from one thread (or task) at a time.
public final class Connection {
    /// How to open the database file.
    public enum Mode: Sendable {
        /// Read only: the file must exist.
        case readOnly
        /// Read and write, creating the file when it does not exist.
        case readWriteCreate
        /// Read and write an existing file.
        case readWrite
        /// Read the main file as it is (`immutable=1`): no lock, no `-wal` read or checkpointed,
        /// no hot journal rolled back, nothing created beside it.
        case immutable
    }

    let handle: OpaquePointer
    /// The file path this connection was opened on.
    public let path: String

    /// Opens `path`. The corresponding C function is `sqlite3_open_v2`.
    public init(path: String, mode: Mode) throws(StoreError) {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        // A path names a file, never one of SQLite's special names: `:memory:` is a database that
        // vanishes when closed, and so is `file:x.db?mode=memory` where the system SQLite reads
        // `file:` names as URIs (Debian and Ubuntu build it with SQLITE_USE_URI), which also
        // opens `x.db` for `file:x.db` while every check here looks at `file:x.db`. Written as
        // `./…`, both are the files they name.
        var name = path == ":memory:" || path.lowercased().hasPrefix("file:") ? "./" + path : path
        switch mode {
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY
            // Reading a WAL database needs its `-shm` file beside it. In a directory we cannot write
            // (a shared, read-only folder), with no writer active (no `-wal` file), open it as
            // immutable instead of failing with "attempt to write a readonly database".
            if let uri = Self.immutableURI(for: path) {
                name = uri
                flags |= SQLITE_OPEN_URI
            }
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = Self.uri(path) + "?immutable=1"
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = StoreError(code: rc, db: db)
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // `vinyard_fold(text)`: lower case for every script (SQLite's lower() folds ASCII only),
        // for case-insensitive filters (`export --where 'make~škoda'`).
        sqlite3_create_function_v2(
            db, "vinyard_fold", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, foldFunction, nil, nil, nil)
    }

    private var isClosed = false

    /// Closes the connection now rather than when it is released; nothing may use it afterwards.
    /// Whether closing the last connection checkpoints the WAL into the file and deletes it
    /// (SQLite's default); off while the file may be another application's.
    func setCheckpointOnClose(_ on: Bool) {
        _ = csqlite_checkpoint_on_close(handle, on ? 1 : 0)
    }

    /// For a read-only connection: once closed, open the file read-write for a moment so that its
    /// close removes the `-wal` and `-shm` files (a read-only connection cannot, and `export`,
    /// `stats` and `emissions` left both beside a database that had none). SQLite removes them
    /// only when no other connection has the file open, so a writer's log is never lost.
    var removesLogFilesOnClose = false

    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
        if removesLogFilesOnClose, access(path + "-wal", F_OK) == 0 {
            // The first read opens the log; the close checkpoints it (empty) and removes both files.
            guard let tidier = try? Connection(path: path, mode: .readWrite) else { return }
            tidier.setBusyTimeout(seconds: 0)
            _ = try? tidier.scalarInt("SELECT count(*) FROM sqlite_schema")
            tidier.close()
        }
    }

    deinit { close() }

    /// `file:PATH?immutable=1` when `path`'s directory is not writable and no `-wal` or `-journal`
    /// file exists (an immutable open would ignore them); nil otherwise.
    static func immutableURI(for path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard access(directory, W_OK) != 0, access(path + "-wal", F_OK) != 0, access(path + "-journal", F_OK) != 0 else {
            return nil
        }
        return uri(path) + "?immutable=1"
    }

    /// `file:` and the path, percent-encoded where a URI needs it.
    private static func uri(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7F...:
                encoded += String(format: "%%%02X", byte)
            default:
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return "file:" + encoded
    }

    /// Runs one or more SQL statements without results. The corresponding C function is `sqlite3_exec`.
    public func execute(_ sql: String) throws(StoreError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw StoreError(code: rc, db: handle, sql: sql) }
    }

    /// Compiles one SQL statement. The corresponding C function is `sqlite3_prepare_v3`.
    public func prepare(_ sql: String, persistent: Bool = false) throws(StoreError) -> Statement {
        try Statement(connection: self, sql: sql, persistent: persistent)
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE. The corresponding C function is `sqlite3_changes64`.
    public var changes: Int64 { sqlite3_changes64(handle) }

    /// The rowid of the last inserted row. The corresponding C function is `sqlite3_last_insert_rowid`.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    /// The corresponding C function is `sqlite3_busy_timeout`.
    public func setBusyTimeout(seconds: Double) {
        sqlite3_busy_timeout(handle, Int32(clamping: Int((seconds * 1000).rounded())))
    }

    /// True when the file this connection has open is no longer at ``path`` (deleted, or replaced
    /// by another file) since it was opened. The corresponding C function is `sqlite3_file_control`
    /// (`SQLITE_FCNTL_HAS_MOVED`).
    public var fileHasMoved: Bool {
        var moved: Int32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0
    }

    /// Stops the statement running on this connection, which then fails with `SQLITE_INTERRUPT`
    /// (inside a transaction, SQLite rolls it back). Safe to call from another thread while the
    /// connection is open; no effect when no statement is running.
    /// The corresponding C function is `sqlite3_interrupt`.
    public func interrupt() { sqlite3_interrupt(handle) }

    /// True when no transaction is open. The corresponding C function is `sqlite3_get_autocommit`.
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The first column of the first row of `sql` as an integer, or nil when there is no row.
    public func scalarInt(_ sql: String) throws(StoreError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// The first column of the first row of `sql` as text, or nil when there is no row.
    public func scalarText(_ sql: String) throws(StoreError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }
}

extension Connection {
    /// Text as `vinyard_fold` compares it, for `--where`'s case-insensitive `=`, `!=`, `in` and `~`:
    /// lower case, and `ß` (and `ẞ`) as `ss`, the way `STRASSE` writes `Straße` in capitals.
    static func caseless(_ text: String) -> String {
        let lower = text.lowercased()
        return lower.utf8.contains(0xC3) && lower.contains("ß") ? lower.replacingOccurrences(of: "ß", with: "ss") : lower
    }
}

/// The `vinyard_fold` SQL function: NULL for NULL, else the value's text in lower case (ASCII
/// byte by byte, anything else through ``Connection/caseless(_:)``). A real is its text as
/// exports write it (``FieldValue/decimalText(_:)``: `1000000`, `0.00001`), not SQLite's
/// (`1000000.0`, `1.0e-05`), so `~` finds what the user sees.
private let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard count == 1, let values, let value = values[0], sqlite3_value_type(value) != SQLITE_NULL else {
        sqlite3_result_null(context)
        return
    }
    if sqlite3_value_type(value) == SQLITE_FLOAT {
        let d = sqlite3_value_double(value)
        var text = d.isFinite ? FieldValue.decimalText(d) : (d > 0 ? "inf" : d < 0 ? "-inf" : "nan")
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                csqlite_result_text_transient(context, $0.baseAddress, Int32(clamping: $0.count))
            }
        }
        return
    }
    guard let text = sqlite3_value_text(value) else {
        sqlite3_result_null(context)
        return
    }
    let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
    var folded: [UInt8]
    if bytes.allSatisfy({ $0 < 0x80 }) {
        folded = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    } else {
        folded = Array(Connection.caseless(String(decoding: bytes, as: UTF8.self)).utf8)
    }
    folded.append(0)  // never empty, so the buffer has an address
    folded.withUnsafeBufferPointer { out in
        guard let base = out.baseAddress else { return sqlite3_result_null(context) }
        base.withMemoryRebound(to: CChar.self, capacity: out.count) {
            csqlite_result_text_transient(context, $0, Int32(clamping: out.count - 1))
        }
    }
}
