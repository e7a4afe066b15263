/// Writes every finding of a run, one row each, and every record whose key an earlier record of
/// the run had (`validate --findings FILE`). The report lists each code's first five places and
/// the first 100 probable VINs, and a rejects file holds only the rejected rows; a fleet manager
/// asking which VINs are duplicated, or disagree with the make or model year written beside them,
/// wants every one, with its line.
///
/// Columns: `input`, `line`, `element` (a JSON array element's index), `severity` (`error`,
/// `warning`, or `info` for a duplicate), `code` (a finding code, or `duplicate`), `field`, `vin`
/// (as normalized, when the record has one), `suggestion` (a probable VIN) and `message`. CSV by
/// default (guarded against spreadsheet formulas, as exports are); JSON Lines for a path ending in
/// `.jsonl` or `.ndjson`, a JSON array for `.json`, tabs for `.tsv`. Written to a staged file and
/// moved into place by ``finish()``: a failed or interrupted run leaves none.
public final class FindingsWriter {
    public static let columns = ["input", "line", "element", "severity", "code", "field", "vin", "suggestion", "message"]

    public let path: String
    private let sink: any ByteSink
    private var json: JSONObjectStream?
    private let csv: CSVWriter?
    /// Rows written.
    public private(set) var count = 0

    /// - Throws: `.cantCreate` when the file cannot be created.
    public init(path: String) throws {
        self.path = path
        sink = try StagedFileSink(path: path)
        json = JSONObjectStream(sink: sink, path: path)
        csv =
            json != nil
            ? nil
            : CSVWriter(sink: sink, columns: Self.columns, delimiter: OutputFormat.csvDelimiter(fileName: path), guardFormulas: true)
    }

    /// Writes one finding; `vin` is the record's VIN, if it has one.
    public func write(_ finding: Finding, vin: String?) throws {
        try write(
            input: finding.input, line: finding.line, element: finding.element, severity: finding.severity.rawValue,
            code: finding.code.rawValue, field: finding.field, vin: vin, suggestion: finding.suggestion,
            message: finding.message)
    }

    /// Writes a record counted in `duplicates`: its key was read before, last at `earlier` when known.
    public func duplicate(key: String, at provenance: Provenance, earlier: Provenance?, vin: String?) throws {
        let place = earlier.map { " (last at \($0.input):\($0.line)\($0.index.map { " element \($0)" } ?? ""))" } ?? ""
        try write(
            input: provenance.input, line: provenance.line, element: provenance.index, severity: "info", code: "duplicate",
            field: nil, vin: vin, suggestion: nil,
            message: "key \(key) was read before in this run\(place); this record is counted in duplicates")
    }

    private func write(
        input: String?, line: Int?, element: Int?, severity: String, code: String, field: String?, vin: String?,
        suggestion: String?, message: String
    ) throws {
        count += 1
        if let csv {
            try csv.writeRow([
                input, line.map(String.init), element.map(String.init), severity, code, field, vin, suggestion, message,
            ])
            return
        }
        func text(_ s: String?) -> RawValue { s.map(RawValue.string) ?? .null }
        func number(_ n: Int?) -> RawValue { n.map { .number(String($0)) } ?? .null }
        let object = [
            RawField("input", text(input)), RawField("line", number(line)), RawField("element", number(element)),
            RawField("severity", .string(severity)), RawField("code", .string(code)), RawField("field", text(field)),
            RawField("vin", text(vin)), RawField("suggestion", text(suggestion)), RawField("message", .string(message)),
        ]
        try json?.append(object)
    }

    /// Flushes the rows and moves the file into place (an empty run's CSV gets its header).
    public func finish() throws {
        try csv?.finish()
        try json?.finish()
    }
}

/// JSON objects written one per line (JSON Lines: a path ending in `.jsonl` or `.ndjson`) or as
/// one array (`.json`), for the rejects and findings files. Nil for any other path (CSV).
struct JSONObjectStream {
    private let sink: any ByteSink
    private let array: Bool
    private var buffer: OutputBuffer
    private var count = 0

    init?(sink: any ByteSink, path: String) {
        let format = OutputFormat(fileName: path)
        guard format == .json || format == .jsonl else { return nil }
        self.sink = sink
        array = format == .json
        buffer = OutputBuffer(sink: sink)
    }

    mutating func append(_ object: [RawField]) throws {
        count += 1
        if array { buffer.append(count == 1 ? "[\n" : ",\n") }
        buffer.appendJSONObject(object)
        if !array { buffer.append(0x0A) }
        try buffer.flushIfNeeded()
    }

    /// Ends the array (`[]` when empty), flushes and closes the file.
    mutating func finish() throws {
        if array { buffer.append(count == 0 ? "[]\n" : "\n]\n") }
        try buffer.flush()
        try sink.close()
    }
}
