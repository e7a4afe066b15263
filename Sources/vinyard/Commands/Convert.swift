import ArgumentParser
import Foundation
import VinyardKit

/// `vinyard convert`: file to file. With `--source raw`, a plain format converter with no schema.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a file to CSV, JSON or JSON Lines without a database: read, validate, normalize, write.",
        discussion: """
            By default the input's source is detected (or taken from --source NAME), records are \
            mapped onto the canonical schema, validated and normalized, and the valid ones are \
            written with the schema's columns; rejected records go to --rejects FILE (with their \
            original fields plus _input, _line and _findings) and are counted on standard error. \
            A key seen again is counted as a duplicate; the last record of each key is written, as \
            import keeps it by default (a second pass over the input when a key repeats; from \
            standard input, which is read once, the first record is kept). CSV text cells starting \
            with = + - @, tab or CR get a leading ' (the spreadsheet formula guard, as in export; \
            import takes it off again); --raw-cells writes them as they are.

            With --source raw, fields pass through without a schema: CSV values as strings, JSON \
            values as they are. JSON to CSV: the columns are the keys in first-seen order over the \
            whole input (two passes) when the input is a regular file; from standard input, the \
            first record's keys, and later new keys are dropped with a warning. Rejected rows \
            (ragged CSV rows, malformed JSON elements or lines) are reported on standard error and \
            written to --rejects FILE when given; they do not change the exit status.

            Examples:
              vinyard convert leasing-export.csv -o clean.json --rejects rejects.csv
              vinyard convert fleet.json -o fleet.csv.gz
              vinyard convert autoscout.json -o listings.jsonl --source autoscout
              vinyard convert export.csv -o export.json --source raw
              cat fleet.csv | vinyard convert - -o - --format jsonl
            """
    )

    @OptionGroup var input: InputOptions

    @Option(name: .shortAndLong, help: "Output file ('-' for standard output; gzip when it ends in .gz).")
    var output: String

    @Option(help: "Output format: csv, tsv, json or jsonl (default: from the output file's extension).")
    var format: String?

    @OptionGroup var pipeline: PipelineOptionGroup

    @Option(help: "Write rejected rows to this file (CSV, JSON or JSON Lines by its extension; CSV otherwise).")
    var rejects: String?

    @Flag(help: "Write CSV text cells as they are, without the spreadsheet formula guard (canonical output guards cells starting with = + - @, tab or CR with ', as export does; --source raw never guards).")
    var rawCells = false

    // Accepted for scripts written when the guard was opt-in; the guard is on by default now.
    @Flag(help: .hidden)
    var guardFormulas = false

    /// The CSV formula guard: on for canonical output (a cleaned dataset that goes to people and
    /// spreadsheets, as `export`'s does: converting a guarded export took the guard off and wrote
    /// `=HYPERLINK(…)` bare), off for `--source raw`, a format converter that changes no value.
    private var guardsFormulas: Bool {
        pipeline.source == "raw" ? guardFormulas : !rawCells
    }

    func run() throws {
        removeStagedOutputsOnSignal(command: "convert")
        try reportingErrors {
            guard input.inputs.count == 1, let path = input.inputs.first else {
                throw VinyardError(.usage, "convert takes exactly one input (got \(input.inputs.count))")
            }
            try checkOutputsAreNotRead([("-o", output), ("--rejects", rejects)], reads: [("input", path)])
            let outputFormat: OutputFormat
            if let format {
                guard let f = OutputFormat(rawValue: OutputFormat.resolvingTSV(format).name) else {
                    throw VinyardError(.usage, "--format must be csv, tsv, json or jsonl, not '\(format)'")
                }
                outputFormat = f
            } else if let f = OutputFormat(fileName: output) {
                outputFormat = f
            } else {
                throw VinyardError(.usage, "cannot tell the output format from '\(output)'; pass --format csv|tsv|json|jsonl")
            }
            let options = try input.readOptions()
            // The output is written beside its place and moved there whole when the run succeeds:
            // an input that fails part-way (a corrupt gzip stream, a JSON syntax error between
            // records) left a truncated file that looked like a finished one.
            if let staging = StagedOutputs.stagingPath(for: output) {
                StagedOutputs.register(staging)
                defer {
                    try? FileManager.default.removeItem(atPath: staging)
                    StagedOutputs.unregister(staging)
                }
                try convert(path: path, options: options, outputFormat: outputFormat, to: staging)
                guard StagedOutputs.moveIntoPlace(staging, output) == 0 else {
                    throw VinyardError(.io, "\(output): cannot move the converted output into place: \(String(cString: strerror(errno)))")
                }
            } else {
                try convert(path: path, options: options, outputFormat: outputFormat, to: output)
            }
        }
    }

    /// Converts into `destination` (the output, or its staging file).
    private func convert(path: String, options: ReadOptions, outputFormat: OutputFormat, to destination: String) throws {
        if pipeline.source == "raw" {
            try convertRaw(path: path, options: options, outputFormat: outputFormat, to: destination)
        } else {
            try convertCanonical(path: path, options: options, outputFormat: outputFormat, to: destination)
        }
    }

    private func makeWriter(_ outputFormat: OutputFormat, columns: [String], to path: String) throws -> any RecordWriter {
        // Standard output is spooled to a temporary file first: its errors name that file.
        let sink = try openOutput(path: path, shownAs: output == "-" ? nil : output)
        // Schema array fields (options, images, vin_model_years) are JSON arrays in JSON output.
        let catalog = pipeline.source == "raw" ? nil : try? pipeline.catalog()
        let arrays = Set((catalog?.schemas.values.map { $0 } ?? []).flatMap { schema in
            schema.fields.filter { $0.type == .array }.map(\.name)
        })
        switch outputFormat {
        case .json: return JSONWriter(sink: sink, arrayColumns: arrays)
        case .jsonl: return JSONLinesWriter(sink: sink, arrayColumns: arrays)
        case .csv:
            let delimiter = OutputFormat.csvDelimiter(format: format, fileName: output)
            return CSVWriter(sink: sink, columns: columns, delimiter: delimiter, guardFormulas: guardsFormulas)
        }
    }

    /// Two passes when a key repeats (see ``ConvertSink``): the first writes the first record of
    /// each key and counts repeats; the second, over the same input, writes each repeated key's
    /// last record instead, as `import --on-duplicate last` keeps it. Standard output, and any
    /// output that is not a regular file (a pipe, a FIFO, `/dev/stdout`), is written once: the
    /// first pass goes to a temporary file, copied out when no key repeats (a FIFO got the stale
    /// first pass and the run then blocked reopening it; a pipe got both passes).
    private func convertCanonical(path: String, options read: ReadOptions, outputFormat: OutputFormat, to destination: String) throws {
        let catalog = try pipeline.catalog()
        let options = try pipeline.pipelineOptions(read: read, catalog: catalog)
        let writer = try rejects.map { try RejectsWriter(path: $0) }
        // `destination` is the output itself only when it is not staged: not a regular file.
        // The spool keeps the output's name at its end, so a `.gz` output is compressed there.
        let spool = output == "-" || destination == output
            ? FileManager.default.temporaryDirectory
                .appendingPathComponent("vinyard-convert-\(UUID().uuidString)-\((output as NSString).lastPathComponent)").path
            : nil
        defer { if let spool { try? FileManager.default.removeItem(atPath: spool) } }
        let sink = ConvertSink(rejects: writer) { columns in try makeWriter(outputFormat, columns: columns, to: spool ?? destination) }
        var report = try Pipeline(options: options, catalog: catalog)
            .run(inputs: [path], into: sink, progress: pipeline.progressLine(writingTo: [output, rejects]))
        let fallback = try catalog.schema(named: "vehicles").fields.map(\.name)
        try sink.finish(emptyColumns: fallback)
        var keptFirst = false
        if !sink.repeatedKeys.isEmpty, path != "-", isRegularFile(path) {
            // The second pass reads the same records, or nothing is written.
            func requireUnchanged() throws {
                guard InputSnapshots.unchanged(path) else {
                    throw VinyardError(.io, "\(path) changed while it was converted (it is read twice when keys repeat); convert it again")
                }
            }
            try requireUnchanged()
            let last = ConvertSink(keepingLastOf: sink.repeatedKeys) { columns in try makeWriter(outputFormat, columns: columns, to: destination) }
            _ = try Pipeline(options: options, catalog: catalog).run(inputs: [path], into: last, progress: nil)
            try requireUnchanged()
            try last.finish(emptyColumns: fallback)
        } else {
            keptFirst = !sink.repeatedKeys.isEmpty
            if let spool { try copy(spool, to: output) }
        }
        report.rejectsPath = rejects
        warnAboutInputs(report)
        let written = report.inserted
        StandardError.write(
            ("convert \(path) → \(output): \(written) written, \(report.duplicates) duplicates not written"
                + (report.duplicates > 0 ? keptFirst ? " (the first record of each key kept: standard input is read once)" : " (the last record of each key kept)" : "")
                + ", \(report.rejected) rejected" + (rejects.map { " (see \($0))" } ?? "") + "\n"))
    }

    /// Copies the spooled output's bytes to `destination` (`-`: standard output) as they are.
    private func copy(_ path: String, to destination: String) throws {
        guard let input = FileHandle(forReadingAtPath: path) else {
            throw VinyardError(.io, "\(path): cannot read the converted output back")
        }
        defer { try? input.close() }
        let out = try FileByteSink(path: destination)
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try out.write($0) }
        }
        try out.close()
    }

    private func convertRaw(path: String, options: ReadOptions, outputFormat: OutputFormat, to destination: String) throws {
        var reader = try openInput(path: path, options: options)
        var columns: [String]?
        if outputFormat == .csv {
            if let header = reader.csvHeader {
                columns = header
            } else if path != "-", isRegularFile(path) {
                columns = try collectKeys(path: path, options: options)
                reader = try openInput(path: path, options: options)
            }
        }
        let rejectLog = try rejects.map { try RejectsWriter(path: $0) }
        var writer: (any RecordWriter)?
        func makeWriter(firstFields: [RawField]) throws -> any RecordWriter {
            var seen = Set<String>()
            let cols = columns ?? firstFields.map(\.name).filter { seen.insert($0).inserted }
            return try self.makeWriter(outputFormat, columns: cols, to: destination)
        }
        var written = 0
        var rejected = 0
        while let item = try reader.next() {
            switch item {
            case .record(let record):
                if writer == nil { writer = try makeWriter(firstFields: record.fields) }
                try writer?.write(fields: record.fields)
                written += 1
            case .reject(let reject):
                rejected += 1
                if rejected <= 100 {
                    warn("\(reject.provenance.description): \(reject.finding.code): \(reject.finding.message)")
                }
                try rejectLog?.write(reject)
            }
        }
        if writer == nil { writer = try makeWriter(firstFields: []) }
        try writer?.finish()
        try rejectLog?.finish()
        if let csv = writer as? CSVWriter, csv.droppedFields > 0 {
            warn("\(path): \(csv.droppedFields) field(s) had keys not in the first record and were left out of the CSV")
        }
        if rejected > 100 { warn("… \(rejected - 100) more rejects not shown") }
        if rejected > 0 || FileHandle.standardError.isTerminal {
            warn("\(path): \(written) record(s) written, \(rejected) rejected")
        }
    }

    private func isRegularFile(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else { return false }
        let type = (try? FileManager.default.attributesOfItem(atPath: path)[.type]) as? FileAttributeType
        return type == .typeRegular
    }

    /// Every record key in first-seen order (first pass over a regular file).
    private func collectKeys(path: String, options: ReadOptions) throws -> [String] {
        let reader = try openInput(path: path, options: options)
        var keys: [String] = []
        var seen = Set<String>()
        while let item = try reader.next() {
            if case .record(let r) = item {
                for f in r.fields where seen.insert(f.name).inserted { keys.append(f.name) }
            }
        }
        return keys
    }
}

func warn(_ message: String) {
    StandardError.write("warning: \(message)\n")
}

extension FileHandle {
    var isTerminal: Bool { isatty(fileDescriptor) != 0 }
}

