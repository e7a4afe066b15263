import Foundation

extension VinyardStore {
    /// Removes the database at `path` (the file a symbolic link names), with its `-wal`, `-shm` and
    /// `-journal` files, when it holds nothing (no table, or Vinyard's tables all empty but
    /// `vinyard_meta`) and no other connection has it open; keeps it otherwise. For an import that created the file and then failed or was
    /// rolled back: an import started at the same moment may be using the same new file, or may
    /// have committed into it.
    ///
    /// The file leaves WAL mode first (SQLite refuses that while another connection has it open in
    /// WAL mode) and is removed under an exclusive lock, its side files before it. A writer that
    /// opened it earlier and reads or begins its import after the removal sees that the file has
    /// moved (``Connection/fileHasMoved``) and does not write into it.
    /// - Returns: true when the files were removed.
    @discardableResult
    public static func removeIfUnused(path given: String) -> Bool {
        // Through a symbolic link: the file it names (SQLite names the side files after it too);
        // the link stays.
        guard let resolved = realpath(given, nil) else { return false }
        let path = String(cString: resolved)
        free(resolved)
        guard let connection = try? Connection(path: path, mode: .readWrite) else { return false }
        connection.setBusyTimeout(seconds: 1)
        guard let mode = try? connection.scalarText("PRAGMA journal_mode"),
            (try? connection.scalarText("PRAGMA journal_mode=DELETE"))?.lowercased() == "delete"
        else { return false }
        var removed = false
        if (try? connection.execute("BEGIN EXCLUSIVE")) != nil {
            if (try? holdsNothing(connection)) == true, !connection.fileHasMoved {
                for suffix in ["-wal", "-shm", "-journal", ""] { unlink(path + suffix) }
                removed = true
            }
            try? connection.rollback()
        }
        if !removed, mode.lowercased() != "delete" { _ = try? connection.scalarText("PRAGMA journal_mode=\(mode)") }
        return removed
    }

    /// Removes the database at `path` (the file a symbolic link names) with its side files when its
    /// committed state holds nothing, for a process that is about to exit while `writer`, its own
    /// connection to the file, holds the write lock in an open transaction (an import interrupted
    /// while it waited outside SQLite, for standard input, say): no other process can commit into
    /// the file meanwhile, and the transaction's work goes with the file. Another process waiting
    /// to write sees that the file has moved (``Connection/fileHasMoved``) and opens the path again.
    /// Keeps the file when `writer` holds no transaction or the committed state cannot be read.
    /// - Returns: true when the files were removed.
    @discardableResult
    public static func removeIfEmpty(path given: String, lockedBy writer: Connection) -> Bool {
        guard !writer.isAutocommit, let resolved = realpath(given, nil) else { return false }
        let path = String(cString: resolved)
        free(resolved)
        guard let reader = try? Connection(path: path, mode: .readOnly),
            (try? holdsNothing(reader)) == true, !reader.fileHasMoved, !writer.isAutocommit
        else { return false }
        for suffix in ["-wal", "-shm", "-journal", ""] { unlink(path + suffix) }
        return true
    }

    /// True when the database has no table, or is a Vinyard database whose tables are all empty
    /// (`vinyard_meta` aside).
    private static func holdsNothing(_ connection: Connection) throws -> Bool {
        let tables = try tableNames(in: connection)
        if tables.isEmpty { return true }
        guard tables.contains("vinyard_meta") else { return false }
        for table in tables where table != "vinyard_meta" {
            if try !isEmpty(table: table, in: connection) { return false }
        }
        return true
    }
}
