import ArgumentParser
import Foundation
import VinyardKit

/// `vinyard convert`: file to file. With `--source raw`, a plain format converter with no schema.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an input file to CSV, JSON or JSON Lines.",
        discussion: """
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

    @Option(help: "The source shape; only 'raw' (no schema) is available here.")
    var source: String = "raw"

    @Option(help: "Write rejected rows to this file (CSV, JSON or JSON Lines by its extension; CSV otherwise).")
    var rejects: String?

    @Flag(help: "Prefix text cells starting with = + - @ with ' in CSV output (spreadsheet formula guard).")
    var guardFormulas = false

    func run() throws {
        try reportingErrors {
            guard source == "raw" else {
                throw VinyardError(.usage, "--source \(source) is not available in convert yet; use --source raw")
            }
            guard input.inputs.count == 1, let path = input.inputs.first else {
                throw VinyardError(.usage, "convert takes exactly one input (got \(input.inputs.count))")
            }
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
            try convertRaw(path: path, options: options, outputFormat: outputFormat)
        }
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
        let rejectLog = try rejects.map { try RejectLog(path: $0) }
        var writer: (any RecordWriter)?
        func makeWriter(firstFields: [RawField]) throws -> any RecordWriter {
            let sink = try openOutput(path: output)
            switch outputFormat {
            case .json: return JSONWriter(sink: sink)
            case .jsonl: return JSONLinesWriter(sink: sink)
            case .csv:
                var cols = columns ?? []
                if columns == nil {
                    var seen = Set<String>()
                    cols = firstFields.map(\.name).filter { seen.insert($0).inserted }
                }
                let delimiter: UInt8 = output.lowercased().replacingOccurrences(of: ".gz", with: "").hasSuffix(".tsv") ? 0x09 : UInt8(ascii: ",")
                return CSVWriter(sink: sink, columns: cols, delimiter: delimiter, guardFormulas: guardFormulas)
            }
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

/// The rejects file: input, line, element index, code, message and original text per reject.
final class RejectLog {
    private let writer: any RecordWriter
    private static let columns = ["input", "line", "index", "code", "message", "text"]

    init(path: String) throws {
        let sink = try openOutput(path: path)
        switch OutputFormat(fileName: path) {
        case .json: writer = JSONWriter(sink: sink)
        case .jsonl: writer = JSONLinesWriter(sink: sink)
        case .csv, nil: writer = CSVWriter(sink: sink, columns: Self.columns, guardFormulas: true)
        }
    }

    func write(_ reject: RawReject) throws {
        let values: [FieldValue?] = [
            .text(reject.provenance.input), .integer(Int64(reject.provenance.line)),
            reject.provenance.index.map { .integer(Int64($0)) }, .text(reject.finding.code.rawValue),
            .text(reject.finding.message), .text(reject.text),
        ]
        try writer.write(values: values, columns: Self.columns)
    }

    func finish() throws { try writer.finish() }
}
