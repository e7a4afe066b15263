import CSQLite

/// A compiled SQL statement, finalized when released. Parameters are bound by their 1-based index;
/// columns are read by their 0-based index. Step it to stream rows: memory does not grow with the
/// number of rows. Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
public final class Statement {
    let handle: OpaquePointer
    /// The connection is kept alive as long as its statements.
    public let connection: Connection
    /// The SQL text this statement was compiled from.
    public let sql: String
    /// Parameters 1-64 known to be bound to NULL (bit `index - 1`), kept by ``TableWriter/bindRow``,
    /// which binds every parameter of its statements on every row: a column that stays empty
    /// row after row is bound once (`sqlite3_reset` keeps bindings).
    var nullParameters: UInt64 = 0
    /// Text last bound by ``bindRepeating(_:at:)``, by parameter index.
    private var repeatedText: [String?] = []

    init(connection: Connection, sql: String, persistent: Bool) throws(StoreError) {
        var statement: OpaquePointer?
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw StoreError(code: rc == SQLITE_OK ? SQLITE_MISUSE : rc, db: connection.handle, sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding

    /// The number of parameters. The corresponding C function is `sqlite3_bind_parameter_count`.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    @inline(__always)
    private func check(_ rc: Int32) throws(StoreError) {
        if rc != SQLITE_OK { throw StoreError(code: rc, db: connection.handle, sql: sql) }
    }

    /// Binds text (copied by SQLite). The corresponding C function is `sqlite3_bind_text`.
    public func bind(_ text: String, at index: Int) throws(StoreError) {
        var text = text
        let handle = self.handle
        let rc: Int32 = text.withUTF8 { (buffer: UnsafeBufferPointer<UInt8>) -> Int32 in
            let base = buffer.baseAddress.map(UnsafeRawPointer.init) ?? emptyBytes
            return csqlite_bind_text_transient(
                handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(clamping: buffer.count))
        }
        try check(rc)
    }

    /// Binds text (copied by SQLite), or NULL, that usually repeats row after row at this
    /// parameter (an import's `_source` and `_input`): bound again only when it changes
    /// (`sqlite3_reset` keeps bindings). Bind this parameter only through this method.
    func bindRepeating(_ text: String?, at index: Int) throws(StoreError) {
        if repeatedText.count <= index { repeatedText += Array(repeating: nil, count: index + 1 - repeatedText.count) }
        guard let text else {
            repeatedText[index] = nil
            return try bindNull(at: index)
        }
        // Identical storage compares equal at once.
        if repeatedText[index] == text { return }
        repeatedText[index] = nil  // a failed bind leaves the parameter unknown
        try bind(text, at: index)
        repeatedText[index] = text
    }

    /// Binds text from bytes the caller keeps alive and unchanged until the statement is reset
    /// and rebound (`SQLITE_STATIC`): no copy.
    func bindStatic(_ bytes: UnsafeRawBufferPointer, at index: Int) throws(StoreError) {
        let base = bytes.baseAddress ?? emptyBytes
        try check(
            csqlite_bind_text_static(
                handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(clamping: bytes.count)))
    }

    /// Binds a 64-bit integer. The corresponding C function is `sqlite3_bind_int64`.
    public func bind(_ value: Int64, at index: Int) throws(StoreError) {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    /// Binds an integer.
    public func bind(_ value: Int, at index: Int) throws(StoreError) {
        try check(sqlite3_bind_int64(handle, Int32(index), Int64(value)))
    }

    /// Binds a double. The corresponding C function is `sqlite3_bind_double`.
    public func bind(_ value: Double, at index: Int) throws(StoreError) {
        try check(sqlite3_bind_double(handle, Int32(index), value))
    }

    /// Binds a blob (copied by SQLite). The corresponding C function is `sqlite3_bind_blob`.
    public func bind(blob: [UInt8], at index: Int) throws(StoreError) {
        let handle = self.handle
        let rc: Int32 = blob.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32 in
            csqlite_bind_blob_transient(handle, Int32(index), buffer.baseAddress ?? emptyBytes, Int32(clamping: buffer.count))
        }
        try check(rc)
    }

    /// Binds NULL. The corresponding C function is `sqlite3_bind_null`.
    public func bindNull(at index: Int) throws(StoreError) {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    /// Binds text, or NULL for nil.
    public func bind(_ text: String?, at index: Int) throws(StoreError) {
        if let text { try bind(text, at: index) } else { try bindNull(at: index) }
    }

    /// Binds an integer, or NULL for nil.
    public func bind(_ value: Int?, at index: Int) throws(StoreError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds a field value (booleans as 0/1), or NULL for nil.
    public func bind(_ value: FieldValue?, at index: Int) throws(StoreError) {
        switch value {
        case nil: try bindNull(at: index)
        case .text(let s): try bind(s, at: index)
        case .integer(let i): try bind(i, at: index)
        case .real(let d): try bind(d, at: index)
        case .bool(let b): try bind(Int64(b ? 1 : 0), at: index)
        }
    }

    /// Binds `values` to parameters 1, 2, …
    public func bind(_ values: [FieldValue?]) throws(StoreError) {
        for (i, value) in values.enumerated() { try bind(value, at: i + 1) }
    }

    /// Resets the statement so it can run again; bindings are kept. The corresponding C function is `sqlite3_reset`.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Sets all parameters to NULL. The corresponding C function is `sqlite3_clear_bindings`.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when done.
    /// The corresponding C function is `sqlite3_step`.
    @discardableResult
    public func step() throws(StoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc:
            let error = StoreError(code: rc, db: connection.handle, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets, binds `values` to parameters 1, 2, … and runs the statement to completion.
    public func execute(_ values: [FieldValue?] = []) throws(StoreError) {
        reset()
        try bind(values)
        while try step() {}
        reset()
    }

    // MARK: Columns

    /// The number of result columns. The corresponding C function is `sqlite3_column_count`.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index`. The corresponding C function is `sqlite3_column_name`.
    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// The names of all result columns.
    public var columnNames: [String] { (0..<columnCount).map(columnName) }

    /// True when column `index` of the current row is NULL.
    public func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    /// Column `index` as an integer. The corresponding C function is `sqlite3_column_int64`.
    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// Column `index` as a double. The corresponding C function is `sqlite3_column_double`.
    public func double(_ index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    /// Column `index` as text, or nil when NULL. The corresponding C function is `sqlite3_column_text`.
    public func text(_ index: Int) -> String? {
        guard let pointer = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with column `index`'s UTF-8 bytes (empty for NULL), valid only inside `body`:
    /// no String is made, for writers that copy bytes straight to their output.
    public func withTextBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let pointer = sqlite3_column_text(handle, Int32(index)) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as a field value by its storage class (nil for NULL; blobs as text).
    public func value(_ index: Int) -> FieldValue? {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_NULL: nil
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        default: text(index).map(FieldValue.text)
        }
    }
}

/// A valid pointer for empty buffers, which may have a nil base address.
private var emptyBytes: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }
