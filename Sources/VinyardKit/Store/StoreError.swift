import CSQLite

/// An SQLite failure: the extended result code, SQLite's message and the SQL that failed.
/// Bound values (VINs, positions) are never part of the description.
public struct StoreError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    public var extendedCode: Int32
    /// SQLite's message, e.g. `UNIQUE constraint failed: vehicles._key`.
    public var message: String
    /// The statement that failed, when there is one.
    public var sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`extendedCode & 0xff`), e.g. 19 (`SQLITE_CONSTRAINT`).
    public var primaryCode: Int32 { extendedCode & 0xff }

    public var description: String {
        let name = String(cString: sqlite3_errstr(extendedCode))
        var text = "SQLite error \(extendedCode) (\(name)): \(message)"
        // The statement's start names it; a batched insert runs on for kilobytes of placeholders.
        if let sql { text += " — while executing `\(sql.count > 160 ? sql.prefix(160) + "…" : sql)`" }
        return text
    }

    /// The error for `code` returned by a call on `db`.
    init(code: Int32, db: OpaquePointer?, sql: String? = nil) {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        // sqlite3_extended_errcode reports the last error on the connection; keep the call's own
        // code when they disagree (e.g. after an API misuse that does not set the handle's error).
        let useExtended = extended & 0xff == code & 0xff
        self.extendedCode = useExtended ? extended : code
        self.message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }
    var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT }
    var isCantOpen: Bool { primaryCode == SQLITE_CANTOPEN }
    var isDiskFull: Bool { primaryCode == SQLITE_FULL || primaryCode == SQLITE_IOERR }
    var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
    /// `SQLITE_READONLY_DBMOVED` (`SQLITE_READONLY | 4 << 8`; Swift does not import the macro).
    static let readOnlyDatabaseMoved: Int32 = SQLITE_READONLY | 4 << 8

    /// The error of a write into a database file that was removed while it was open.
    static var databaseMoved: StoreError {
        StoreError(extendedCode: readOnlyDatabaseMoved, message: "the database file was removed while it was open")
    }

    /// `SQLITE_READONLY_DBMOVED`: the database file was deleted or replaced while it was open.
    public var isDatabaseMoved: Bool { extendedCode == Self.readOnlyDatabaseMoved }
}
