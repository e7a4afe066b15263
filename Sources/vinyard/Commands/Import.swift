import ArgumentParser
import Foundation
import VinyardKit

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate, normalize, deduplicate and load records into a SQLite database.",
        discussion: """
            Each import is one transaction: it commits whole or leaves the database as it was (also \
            when the process is killed). Re-importing the same input changes nothing and says so. \
            Every run prints the count invariant, zeros included:
              read = inserted + updated + unchanged + duplicates + rejected
            where duplicates are records whose key already appeared earlier in the same run, and \
            unchanged/updated are records whose key was in the database before the run. Rejected \
            records are kept in the `rejects` table with their findings; merged or dropped duplicates \
            in `duplicates`; warnings on loaded rows in `findings`; the run in `import_runs`.

            --on-duplicate: last (default; later inputs are newer), first, or merge (later non-empty \
            values fill gaps; differing values are key.conflict warnings).
            --strict: any rejected record rolls the whole import back (exit 1).

            Exit status: 0 success; 1 --strict and records were rejected; 64 usage; 65 malformed \
            input or a --db that is not a Vinyard database; 66 missing input; 74 cannot create or \
            write the database, I/O or database error; 130 or 143 interrupted (SIGINT, SIGTERM: the run is \
            rolled back).

            Examples:
              vinyard import Samples/fleet.csv Samples/autoscout.json --db fleet.db
              vinyard import old-system/*.csv --db fleet.db --on-duplicate merge --report json
              vinyard import nightly.csv.gz --db fleet.db --strict
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var pipeline: PipelineOptionGroup

    @Option(help: "The SQLite database file (created when missing).")
    var db: String

    @Option(name: .customLong("on-duplicate"), help: "What to do with a key seen again: last, first or merge.")
    var onDuplicate: String = "last"

    @Option(help: "Report format: text or json.")
    var report: ReportFormat = .text

    @Flag(help: "Roll the whole import back if any record is rejected (exit 1).")
    var strict = false

    @Option(help: "Also write rejected records to this file (CSV; JSON Lines when it ends in .jsonl, a JSON array when .json, tab-separated when .tsv; - is standard output, and the report then goes to standard error).")
    var rejects: String?

    func validate() throws {
        if input.inputs.isEmpty { throw ValidationError("Give at least one input file ('-' for standard input).") }
        if DuplicatePolicy(rawValue: onDuplicate) == nil {
            throw ValidationError("--on-duplicate must be last, first or merge, not '\(onDuplicate)'.")
        }
    }

    func run() throws {
        var failedStrict = false
        // A run that creates the database and then fails before committing, or is rolled back
        // (--strict), removes it again: the database is left as it was, that is, not there. Not
        // when another import into the new file committed or is under way (started at the same
        // moment, it found no file either): removeIfUnused checks that under a lock.
        let existed = FileManager.default.fileExists(atPath: db)
        var committed = false
        func removeCreatedDatabase() {
            guard !existed else { return }
            VinyardStore.removeIfUnused(path: db)
        }
        // A JSON report on standard output (on standard error when the rejects go there).
        let json = JSONReportDestination(report: report, rejects: rejects)
        let interruption = ImportInterruption(database: db)
        // Interrupted while the run waits outside SQLite (for standard input, say): the watcher
        // exits for it, removing the database this run created if nothing else was committed there,
        // and a JSON report's reader gets its JSON ending too.
        func reportInterruption(_ signal: Int32, committed: Bool, removed: Bool) {
            let ending = ImportInterruption.ending(signal: signal, database: db, committed: committed, removed: removed)
            StandardError.write(ImportInterruption.message(signal: signal, database: db, committed: committed, removed: removed))
            // A JSON report's reader gets a JSON ending too (it got nothing); after the commit
            // the report itself has been printed.
            if !committed {
                json.write(errorReportJSON(kind: "interrupted", message: ending, exitStatus: 128 + signal))
            }
        }
        interruption.giveUp = { signal, connection in
            let removed = !existed && connection.map { VinyardStore.removeIfEmpty(path: db, lockedBy: $0) } == true
            reportInterruption(signal, committed: false, removed: removed)
        }
        func exitIfInterrupted() throws {
            let signal = interruption.takeOver()
            guard signal != 0 else { return }
            let removed = !existed && !committed && !FileManager.default.fileExists(atPath: db)
            reportInterruption(signal, committed: committed, removed: removed)
            throw ExitCode(128 + signal)
        }
        try reportingErrors(json: json) {
            // Before anything is opened: a --rejects file that is an input or the database
            // itself would destroy it.
            try checkOutputsAreNotRead(
                [("--rejects", rejects)], reads: input.inputs.map { ("input", $0) } + databaseFiles(db))
            do {
                failedStrict = try performImport(committed: &committed, interruption: interruption)
            } catch {
                if !committed { removeCreatedDatabase() }
                try exitIfInterrupted()
                throw error
            }
            if failedStrict { removeCreatedDatabase() }
            try exitIfInterrupted()
        }
        if failedStrict { throw ExitCode(1) }
    }

    /// Opens the database and begins the run. When a failed import that had created the file
    /// removed it while this one waited for the lock, opens the path again (a new file).
    private func beginImport(options: [String: String], schemas: [Schema]) throws -> (VinyardStore, ImportSession) {
        var attempts = 0
        while true {
            // A database this open creates gets its (empty) schema tables with its bookkeeping
            // tables, in one transaction, before the run: a first load killed mid-way (or at once)
            // leaves an empty Vinyard database that `export` and `stats` read, not one without
            // `vehicles`. (Only then: another import may be writing an existing one, and waiting
            // for it is `beginImport`'s job.)
            let store = try VinyardStore(path: db, creatingTables: schemas)
            do {
                return (store, try store.beginImport(options: options))
            } catch let error as VinyardError where (error.cause as? StoreError)?.isDatabaseMoved == true && attempts < 5 {
                attempts += 1
            }
        }
    }

    /// Runs the import; true when --strict rolled it back. The store is closed when it returns;
    /// `committed` is set once the run is in the database (a later error, e.g. writing the report,
    /// leaves it there).
    private func performImport(committed: inout Bool, interruption: ImportInterruption) throws -> Bool {
        do {
            let catalog = try pipeline.catalog()
            var options = try pipeline.pipelineOptions(read: try input.readOptions(), catalog: catalog)
            options.policy = DuplicatePolicy(rawValue: onDuplicate) ?? .last
            // A missing or unreadable input fails before the database is created or touched.
            for path in input.inputs { try FileByteSource.check(path: path) }
            // Every option that changes what is loaded, so a run can be told from (and repeated as) another.
            var recorded = ["on-duplicate": onDuplicate, "strict": String(strict)]
            if let source = pipeline.source { recorded["source"] = source }
            if pipeline.rejectAccidents { recorded["reject-accidents"] = "true" }
            if pipeline.decimal.lowercased() != "auto" { recorded["decimal"] = pipeline.decimal }
            if let dateFormat = pipeline.dateFormat { recorded["date-format"] = dateFormat }
            if !pipeline.schema.isEmpty { recorded["schema"] = pipeline.schema.joined(separator: ",") }
            if !pipeline.mapping.isEmpty { recorded["mapping"] = pipeline.mapping.joined(separator: ",") }
            if let inputFormat = input.inputFormat { recorded["input-format"] = inputFormat }
            if let delimiter = input.delimiter { recorded["delimiter"] = delimiter }
            if let encoding = input.encoding { recorded["encoding"] = encoding }
            let schemas = catalog.schemas.values.sorted(by: { $0.name < $1.name })
            let (store, session) = try beginImport(options: recorded, schemas: schemas)
            interruption.watch(store.connection)
            defer { interruption.watch(nil) }
            // Every schema's table exists after an import, also when all its records were
            // rejected, so `export` and `emissions` find an empty table rather than none.
            for schema in schemas {
                try store.prepareTable(for: schema)
            }
            let writer = try rejects.map { try RejectsWriter(path: $0) }
            let sink = StoreSink(session: session, policy: options.policy, rejects: writer)
            var result = try Pipeline(options: options, catalog: catalog)
                .run(inputs: input.inputs, into: sink, progress: pipeline.progressLine(writingTo: [rejects]))
            try writer?.finish()
            result.rejectsPath = rejects
            // The session nets out keys that were updated and then duplicated back within the run.
            let counts = session.counts
            (result.read, result.inserted, result.updated, result.unchanged, result.duplicates, result.rejected) =
                (counts.read, counts.inserted, counts.updated, counts.unchanged, counts.duplicates, counts.rejected)
            result.folded = session.folded
            if strict && result.rejected > 0 {
                try session.rollback()
                result.committed = false
                result.folded = 0
                try printReport(result, format: report, title: "import into \(db): ROLLED BACK (--strict, \(result.rejected) rejected)")
                return true
            }
            let inputs = result.inputs.map {
                ImportInput(name: $0.name, contentHash: $0.contentHash, size: $0.bytes, source: $0.source,
                            read: $0.read, rejected: $0.rejected)
            }
            interruption.holdOff()
            let run = try session.finish(inputs: inputs)
            committed = true
            (result.committed, result.runID) = (true, run.runID)
            // The run's time as stored, which includes rebuilding the key index after a first load.
            result.elapsedSeconds = run.elapsedSeconds
            var title = "import into \(db) (run \(run.runID))"
            if result.read > 0 && result.nothingChanged {
                if result.rejected == 0 {
                    title += ": nothing changed, every record was already there"
                } else if result.unchanged + result.duplicates == 0 {
                    title += ": nothing stored, every record was rejected"
                } else {
                    title += ": nothing changed (\(result.rejected) rejected, the rest already there)"
                }
            }
            if result.folded > 0 {
                // (Outside the count invariant: no record of this run was read for them.)
                title += "; \(result.folded) row\(result.folded == 1 ? "" : "s") an earlier run kept under a source's id folded "
                    + "into \(result.folded == 1 ? "its vehicle's row" : "their vehicles' rows") under the VIN (kept in duplicates)"
            }
            do {
                try printReport(result, format: report, title: title)
            } catch let error as VinyardError {
                // The run is in the database: a script that sees 74 must not take it for a failed import.
                throw VinyardError(error.code, "\(error.message) (the import itself was committed: run \(run.runID) is in \(db))")
            }
            return false
        }
    }
}
