import Foundation
import VinyardKit

/// Refuses an output that is a file the same run reads (an input, the database) or another output
/// of the run: opening it for writing truncates it before, or while, it is read (`validate a.csv
/// --rejects a.csv` emptied a.csv; `convert a.csv -o a.csv` kept only the first rows).
///
/// Files are compared by device and inode when the output exists (so `./a.csv`, `dir/../a.csv`
/// and links are caught), else by their standardized absolute paths. `-` (standard input or
/// output) and outputs that are not regular files (`/dev/null`, pipes) are not compared; two
/// outputs that are both `-` are refused (their bytes would be mixed on standard output).
/// - Parameters:
///   - outputs: the output options and their paths (nil: not given).
///   - reads: what the run reads (`input`, `database`) and where.
/// - Throws: `.usage` naming the option and the file.
func checkOutputsAreNotRead(_ outputs: [(option: String, path: String?)], reads: [(what: String, path: String)]) throws {
    let all = outputs.compactMap { o in o.path.map { (option: o.option, path: $0) } }
    // An empty path names no file (it failed late, with exit 74 and the message ': cannot move the output into place').
    if let empty = all.first(where: { $0.path.isEmpty }) {
        throw VinyardError(.usage, "\(empty.option) is an empty path; give a file name, or - for standard output")
    }
    // Two outputs on standard output would be mixed into one stream (`convert -o - --rejects -`,
    // `generate --truth -`, whose -o is standard output by default).
    let onStandardOutput = all.filter { $0.path == "-" }.map(\.option)
    if onStandardOutput.count > 1 {
        throw VinyardError(
            .usage, "\(onStandardOutput.joined(separator: " and ")) would both write to standard output (-); "
                + "give all but one of them a file")
    }
    // Standard output redirected into a file the run reads (`convert in.csv -o - >> in.csv`,
    // `export --db x.db >> x.db`): the output was appended to the input being read, which grew
    // until the disk was full, or to the database file.
    if let option = onStandardOutput.first, let target = FileIdentity.standardOutput,
        let read = reads.first(where: { $0.path != "-" && FileIdentity($0.path) == target })
    {
        throw VinyardError(
            .usage, "\(option) - writes to standard output, which is redirected into the \(read.what) \(read.path) this run reads; "
                + "writing it would destroy it: redirect standard output to another file")
    }
    let given = all.filter { $0.path != "-" }
    for (n, output) in given.enumerated() {
        guard let target = FileIdentity(output.path) else { continue }
        if let read = reads.first(where: { $0.path != "-" && FileIdentity($0.path) == target }) {
            let which = read.path == output.path ? "is also the \(read.what)" : "is the same file as the \(read.what) \(read.path)"
            throw VinyardError(
                .usage, "\(output.option) \(output.path) \(which) this run reads; writing it would destroy it: choose another file")
        }
        if let other = given[..<n].first(where: { FileIdentity($0.path) == target }) {
            throw VinyardError(
                .usage, "\(other.option) \(other.path) and \(output.option) \(output.path) are the same file; choose two different files")
        }
    }
}

/// What a run that opens the database at `db` reads and writes besides it: SQLite's side files
/// (`--rejects db-wal` was written, then deleted by SQLite when the run closed the database).
func databaseFiles(_ db: String) -> [(what: String, path: String)] {
    [
        ("database", db), ("database's write-ahead log", db + "-wal"), ("database's shared-memory file", db + "-shm"),
        ("database's rollback journal", db + "-journal"),
    ]
}

/// A file as the system knows it: device and inode when it exists, else its absolute path.
/// Nil for files that are not regular files (devices, pipes, directories).
private enum FileIdentity: Equatable {
    case inode(dev: UInt64, ino: UInt64)
    case path(String)

    /// The regular file standard output is redirected into; nil for a terminal, pipe or device.
    static var standardOutput: FileIdentity? {
        var info = stat()
        guard fstat(STDOUT_FILENO, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return .inode(dev: UInt64(info.st_dev), ino: UInt64(info.st_ino))
    }

    init?(_ path: String) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            self = .inode(dev: UInt64(info.st_dev), ino: UInt64(info.st_ino))
        } else {
            self = .path(URL(fileURLWithPath: path).standardizedFileURL.path)
        }
    }
}
