/// The one error the pipeline throws: a ``Code`` that maps to an exit status, a message that says
/// where and why (file, line, field), and an optional underlying cause.
public struct VinyardError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. Each code maps to one documented exit status (sysexits.h).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case usage, malformedInput, missingInput, cantCreate, io, store
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// Bad flags or arguments (exit 64, `EX_USAGE`).
        public static var usage: Self { .init(.usage) }
        /// The input is not what its format says (exit 65, `EX_DATAERR`).
        public static var malformedInput: Self { .init(.malformedInput) }
        /// An input file does not exist or cannot be opened (exit 66, `EX_NOINPUT`).
        public static var missingInput: Self { .init(.missingInput) }
        /// An output file or database cannot be created or written (exit 74, DESIGN.md's I/O error;
        /// the JSON error's kind stays `cant_create`).
        public static var cantCreate: Self { .init(.cantCreate) }
        /// Reading or writing failed (exit 74, `EX_IOERR`).
        public static var io: Self { .init(.io) }
        /// The database failed (exit 74, `EX_IOERR`).
        public static var store: Self { .init(.store) }

        /// The process exit status for this code.
        public var exitStatus: Int32 {
            switch kind {
            case .usage: 64
            case .malformedInput: 65
            case .missingInput: 66
            case .cantCreate, .io, .store: 74
            }
        }
        public var description: String { kind.rawValue }
    }

    public var code: Code
    /// Where and why, e.g. `fleet.csv:1042: unterminated quoted field; close the quote or fix the export`.
    public var message: String
    public var cause: (any Error & Sendable)?

    /// A `.store` error caused by a damaged database file (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, found
    /// where a page is read, not only when the file is opened) is `.malformedInput`, exit 65, as
    /// a damaged `--db` is when opening it, and says what to do.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
        if code == .store, let error = cause as? StoreError, error.isCorrupt || error.isNotADatabase {
            self.code = .malformedInput
            self.message += "; the database file is damaged: restore it from a backup or choose another --db path"
        }
    }

    public var description: String { cause.map { "\(message) (\($0))" } ?? message }
}
