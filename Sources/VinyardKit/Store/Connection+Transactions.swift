import CSQLite

extension Connection {
    /// How a transaction closure ends.
    public enum TransactionCompletion: Sendable {
        case commit
        case rollback
    }

    /// How a transaction takes its locks. Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    public enum TransactionKind: String, Sendable {
        /// Takes locks on first use (readers).
        case deferred = "DEFERRED"
        /// Takes the write lock at once, waiting up to the busy timeout for other writers (writers).
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: commits when it returns `.commit`, rolls back when it returns
    /// `.rollback` or throws (the error is rethrown).
    public func inTransaction(
        _ kind: TransactionKind = .immediate, _ body: () throws -> TransactionCompletion
    ) throws {
        try begin(kind)
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            try? rollback()
            throw error
        }
        switch completion {
        case .commit:
            do { try commit() } catch {
                try? rollback()
                throw error
            }
        case .rollback:
            try rollback()
        }
    }

    /// `BEGIN <kind> TRANSACTION`.
    public func begin(_ kind: TransactionKind = .immediate) throws(StoreError) {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// `COMMIT`.
    public func commit() throws(StoreError) { try execute("COMMIT") }

    /// `ROLLBACK`, when a transaction is open.
    public func rollback() throws(StoreError) {
        if !isAutocommit { try execute("ROLLBACK") }
    }
}
