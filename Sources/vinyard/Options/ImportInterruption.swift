import Foundation
import Synchronization
import VinyardKit

/// The signal that arrived (SIGINT or SIGTERM), or 0. Stored by the signal handler only (a
/// lock-free atomic store is async-signal-safe).
private let receivedSignal = Atomic<Int32>(0)

/// SIGINT (Ctrl-C) and SIGTERM during `import`: the statement running on the watched connection
/// is interrupted, so the run's transaction rolls back in the process, which then says so and
/// exits with 128 + the signal (130, 143).
///
/// A watcher thread notices the signal (the handler only records it) and calls
/// ``Connection/interrupt()`` until the command takes over (``takeOver()``). When the command is not
/// in SQLite (waiting for standard input, say) it has not taken over after 3 seconds: the watcher
/// then writes the message and exits; the open transaction is rolled back by SQLite when the
/// database is opened next.
final class ImportInterruption: @unchecked Sendable {
    private let database: String
    private let lock = NSLock()
    private var connection: Connection?
    private var tookOver = false
    /// Set while the run finishes in SQLite (key index, bookkeeping, COMMIT): the watcher then
    /// waits for the command to take over however long that takes, instead of giving up after 3 s.
    private var finishing = false

    /// Installs the handlers (unblocking the two signals, which a parent may have blocked) and
    /// starts the watcher.
    init(database: String) {
        self.database = database
        _ = receivedSignal.load(ordering: .relaxed)  // initialized before a handler can run
        let handler: @convention(c) (Int32) -> Void = { receivedSignal.store($0, ordering: .relaxed) }
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM] {
            signal(number, handler)
            sigaddset(&signals, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let watcher = Thread { [self] in watch() }
        watcher.name = "vinyard-interruption"
        watcher.start()
    }

    /// What the watcher does before it exits when the command has not taken over, given the signal
    /// and the watched connection (which may hold the run's open transaction): report how the run
    /// ended. Set before a signal can arrive; without it the watcher writes ``message(signal:database:committed:removed:)``.
    var giveUp: ((_ signal: Int32, _ connection: Connection?) -> Void)?

    /// From now on the command does not wait outside SQLite before it takes over: it finishes the
    /// run (whose COMMIT cannot be interrupted once under way). A signal during a long COMMIT made
    /// the watcher give up after 3 s and report "rolled back" while the commit went through (an
    /// audit saw all 1.5M rows committed after that message, 3 times in 11).
    func holdOff() {
        lock.withLock { finishing = true }
    }

    /// The connection to interrupt when a signal arrives (nil: none now).
    func watch(_ connection: Connection?) {
        lock.withLock { self.connection = connection }
    }

    /// The signal received (0 for none). From now on the watcher leaves reporting and exiting to
    /// the caller.
    func takeOver() -> Int32 {
        lock.withLock {
            tookOver = true
            return receivedSignal.load(ordering: .relaxed)
        }
    }

    /// What an interrupted run prints: how it ended for the database.
    /// `removed`: the run had created the database and took it away again.
    static func message(signal: Int32, database: String, committed: Bool, removed: Bool = false) -> String {
        "error: \(ending(signal: signal, database: database, committed: committed, removed: removed))\n"
    }

    /// ``message(signal:database:committed:removed:)`` without `error: ` and the line end (the
    /// JSON report's message).
    static func ending(signal: Int32, database: String, committed: Bool, removed: Bool = false) -> String {
        let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
        if removed {
            return "interrupted by \(name): the import was rolled back and \(database), which it had created, was removed"
        }
        return committed
            ? "interrupted by \(name) after the import was committed: it is in \(database)"
            : "interrupted by \(name): the import was rolled back, nothing of it is in \(database)"
    }

    private func watch() {
        while receivedSignal.load(ordering: .relaxed) == 0 { usleep(5_000) }
        let signal = receivedSignal.load(ordering: .relaxed)
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline || lock.withLock({ finishing }) {
            let done = lock.withLock {
                if !tookOver { connection?.interrupt() }
                return tookOver
            }
            if done { return }
            usleep(1_000)
        }
        lock.lock()  // the command cannot take over any more
        if tookOver {
            lock.unlock()
            return
        }
        if let giveUp {
            giveUp(signal, connection)
        } else {
            StandardError.write(Self.message(signal: signal, database: database, committed: false))
        }
        StagedOutputs.removeAll()  // an unfinished --rejects file
        _exit(128 + signal)
    }
}
