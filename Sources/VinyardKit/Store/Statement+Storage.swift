import CSQLite

extension Statement {
    /// The storage class of a result column's value in the current row.
    public enum StorageClass: Sendable, Hashable {
        case null, integer, real, text, blob
    }

    /// The storage class of column `index` in the current row. The corresponding C function is
    /// `sqlite3_column_type`.
    public func storageClass(_ index: Int) -> StorageClass {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_BLOB: .blob
        default: .text
        }
    }
}
