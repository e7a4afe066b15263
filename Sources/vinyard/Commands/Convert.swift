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
            A key seen again is counted as a duplicate and not written (the first record wins: \
            a stream cannot take back a row already written).

            With --source raw, fields pass through without a schema: CSV values as strings, JSON \
            values as they are. JSON to CSV: the columns are the keys in first-seen order over the \
            whole input (two passes) when the input is a regular file; from standard input, the \
            first record's keys, and later new keys are dropped with a warning. Rejected rows \
            (ragged CSV rows, malformed JSON elements or lines) are reported on standard error and \
            written to --rejects FILE when given; they do not change the exit status.
            """
    )

    @OptionGroup var input: InputOptions

    @Option(name: .shortAndLong, help: "Output file ('-' for standard output; gzip when it ends in .gz).")
    var output: String

    @Option(help: "Output format: csv, json or jsonl (default: from the output file's extension).")
    var format: String?

    @OptionGroup var pipeline: PipelineOptionGroup

    @Option(help: "Write rejected rows to this file (CSV, JSON or JSON Lines by its extension; CSV otherwise).")
    var rejects: String?

    @Flag(help: "Prefix text cells starting with = + - @ with ' in CSV output (spreadsheet formula guard).")
    var guardFormulas = false

    func run() throws {
        try reportingErrors {
            guard input.inputs.count == 1, let path = input.inputs.first else {
                throw VinyardError(.usage, "convert takes exactly one input (got \(input.inputs.count))")
            }
            try checkOutputsAreNotRead([("-o", output), ("--rejects", rejects)], reads: [("input", path)])
            let outputFormat: OutputFormat
            if let format {
                guard let f = OutputFormat(rawValue: format.lowercased()) else {
                    throw VinyardError(.usage, "--format must be csv, json or jsonl, not '\(format)'")
                }
                outputFormat = f
            } else if let f = OutputFormat(fileName: output) {
                outputFormat = f
            } else {
                throw VinyardError(.usage, "cannot tell the output format from '\(output)'; pass --format csv|json|jsonl")
            }
            let options = try input.readOptions()
            if pipeline.source == "raw" {
                try convertRaw(path: path, options: options, outputFormat: outputFormat)
            } else {
                try convertCanonical(path: path, options: options, outputFormat: outputFormat)
            }
        }
    }

    private func makeWriter(_ outputFormat: OutputFormat, columns: [String]) throws -> any RecordWriter {
        let sink = try openOutput(path: output)
        // Schema array fields (options, images, vin_model_years) are JSON arrays in JSON output.
        let catalog = pipeline.source == "raw" ? nil : try? pipeline.catalog()
        let arrays = Set((catalog?.schemas.values.map { $0 } ?? []).flatMap { schema in
            schema.fields.filter { $0.type == .array }.map(\.name)
        })
        switch outputFormat {
        case .json: return JSONWriter(sink: sink, arrayColumns: arrays)
        case .jsonl: return JSONLinesWriter(sink: sink, arrayColumns: arrays)
        case .csv:
            let delimiter = OutputFormat.csvDelimiter(fileName: output)
            return CSVWriter(sink: sink, columns: columns, delimiter: delimiter, guardFormulas: guardFormulas)
        }
    }

    private func convertCanonical(path: String, options read: ReadOptions, outputFormat: OutputFormat) throws {
        let catalog = try pipeline.catalog()
        let options = try pipeline.pipelineOptions(read: read, catalog: catalog)
        let writer = try rejects.map { try RejectsWriter(path: $0) }
        let sink = ConvertSink(rejects: writer) { columns in try makeWriter(outputFormat, columns: columns) }
        var report = try Pipeline(options: options, catalog: catalog)
            .run(inputs: [path], into: sink, progress: pipeline.progressLine())
        let fallback = try catalog.schema(named: "vehicles").fields.map(\.name)
        try sink.finish(emptyColumns: fallback)
        report.rejectsPath = rejects
        warnAboutInputs(report)
        let written = report.inserted
        FileHandle.standardError.write(Data(
            ("convert \(path) → \(output): \(written) written, \(report.duplicates) duplicates not written, "
                + "\(report.rejected) rejected" + (rejects.map { " (see \($0))" } ?? "") + "\n").utf8))
    }

    private func convertRaw(path: String, options: ReadOptions, outputFormat: OutputFormat) throws {
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
            return try self.makeWriter(outputFormat, columns: cols)
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
    FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
}

extension FileHandle {
    var isTerminal: Bool { isatty(fileDescriptor) != 0 }
}

