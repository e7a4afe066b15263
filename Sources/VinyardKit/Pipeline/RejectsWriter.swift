/// Writes rejected records for sending back to whoever made the file: each with its original
/// fields plus `_input`, `_line` and `_findings` (the codes and messages that rejected it).
/// A CSV text cell that a spreadsheet would run as a formula gets a `'` first, as in `export`.
///
/// CSV (the default) takes its columns from the first rejected record that has fields (a reader's
/// rejects, which may have only some of them, are held until then; without one, the ragged row
/// with the most, not counting its fields beyond the header); fields a record has beyond them, and the original
/// text of a row that could not be split into fields, go to a final `_extra` column as JSON, so
/// nothing is lost. JSON Lines (a path ending in `.jsonl` or `.ndjson`,
/// before any `.gz`) writes one object per reject with `_findings` as an array of objects; JSON
/// (a path ending in `.json`) writes the same objects as one array. A `.tsv` path gets tabs.
public final class RejectsWriter {
    public let path: String
    private let sink: any ByteSink
    /// The objects of a JSON Lines or JSON file (nil for CSV).
    private var json: JSONObjectStream?
    /// The CSV delimiter: a tab for `.tsv`, like the input a tab-separated rejects file is sent back
    /// for; for `.csv`, the first CSV input's (`;` from a European Excel export: a `,` file opened
    /// there as one column a row).
    private var delimiter: UInt8
    /// A `.csv` path's delimiter follows the first input's.
    private let followsInput: Bool
    /// A byte order mark first, when the first CSV input had one, was UTF-16 or is read as
    /// Windows-1252 (`--encoding`): Excel reads a file without one in its code page (`ungÃ¼ltig`).
    private var byteOrderMark = false
    /// Whether a CSV row written came from a row read as Windows-1252 (`row.encoding`): without
    /// a byte order mark, Excel, which wrote that row in its code page, reads the UTF-8 rejects
    /// file in it too (`N° de chÃ¢ssis`). The mark is put first when the file is finished (the
    /// header was written before that row was met).
    private var wroteWindows1252Row = false
    /// Whether an input's style was taken (the first CSV input's only).
    private var styled = false
    /// The CSV header of each input (of the first few), by name: the columns of a rejects file
    /// whose first rejects are rows the reader could not split (a short row named only its own).
    private var headers: [String: [String]] = [:]
    private var csv: CSVWriter?
    private var columns: [String] = []
    /// Each column name's positions, in order: a header may repeat a name (`vin,make,vin`, or the
    /// empty names of an Excel export's trailing columns).
    private var columnIndex: [String: [Int]] = [:]
    public private(set) var count = 0

    /// - Throws: `.cantCreate` when the file cannot be created.
    public init(path: String) throws {
        self.path = path
        // Moved into place when finished: a run that fails or is interrupted leaves no partial
        // rejects file (it left one that looked complete, over the one that was there).
        sink = try StagedFileSink(path: path)
        json = JSONObjectStream(sink: sink, path: path)
        delimiter = OutputFormat.csvDelimiter(fileName: path)
        followsInput = delimiter == UInt8(ascii: ",")
    }

    /// Notes how a CSV input is written: the first one's delimiter (for a `.csv` path) and byte
    /// order mark are the file's, and each input's header names the columns of its rows.
    public func beginInput(_ style: InputStyle) {
        if headers.count < 64 { headers[style.name] = style.header }
        guard csv == nil, json == nil, !styled else { return }
        styled = true
        if followsInput, [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")].contains(style.delimiter) {
            delimiter = style.delimiter
        }
        byteOrderMark = style.byteOrderMark
    }

    /// Writes a record the validators rejected.
    public func write(_ record: CanonicalRecord) throws {
        if json == nil, !wroteWindows1252Row, record.findings.contains(where: { $0.code == .rowEncoding }) { wroteWindows1252Row = true }
        let fields = record.raw.mayHaveFormulaGuard ? Self.unguarded(record.raw.fields) : record.raw.fields
        try write(fields: fields, provenance: record.provenance, text: nil, findings: record.findings)
    }

    /// Writes a row the reader could not split into fields.
    public func write(_ reject: RawReject) throws {
        // Only the CSV reader recovers fields from a reject. A short ragged row's fields are
        // written as its text alone: under the header's first names (`Colour` holding the
        // odometer of a row missing its colour) they loaded, shifted, when the rejects file was
        // read again unfixed (found by audit); as text, the row is rejected again until fixed.
        // Its columns are still named (empty), so that a file of such rejects has the input's.
        let short = reject.finding.code == .rowRagged && !reject.fields.contains { Self.isReaderExtraName($0.name) }
        try write(
            fields: short ? reject.fields.map { RawField($0.name, .null) } : Self.unguarded(reject.fields),
            provenance: reject.provenance, text: reject.text, findings: [reject.finding], fromReader: true, textOnly: short)
    }

    /// CSV cells without the formula guard a CSV export put before them (`'=x` is `=x`, as typing
    /// reads it, in a field of any type): a CSV rejects file guards them again, once, and a JSON
    /// one has no need of it.
    static func unguarded(_ fields: [RawField]) -> [RawField] {
        fields.map { RawField($0.name, FieldTyper.unguarded($0.value, trimming: false)) }
    }

    /// - Parameter fromReader: a reader's reject, whose fields may be only some of the input's (a
    ///   short ragged row's): held, as one without fields is, until a record names the columns.
    /// - Parameter textOnly: the record is its `text` (its fields only name columns).
    private func write(
        fields: [RawField], provenance: Provenance, text: String?, findings: [Finding], fromReader: Bool = false,
        textOnly: Bool = false
    ) throws {
        let fields = Self.withoutBookkeeping(fields)
        count += 1
        if json != nil {
            var object = fields
            object.append(RawField("_input", .string(provenance.input)))
            object.append(RawField("_line", .number(String(provenance.line))))
            if let index = provenance.index { object.append(RawField("_element", .number(String(index)))) }
            if fields.isEmpty || textOnly, let text { object.append(RawField("_text", .string(text))) }
            object.append(RawField("_findings", .array(findings.map(Self.json))))
            try json?.append(object)
            return
        }
        if csv == nil {
            // A row that could not be split has no fields to name the columns: held (in order)
            // until a reject that has them, so the file still gets the input's columns.
            // A short ragged row (`vin` of `vin,make,model`) named only some of them.
            if fields.isEmpty || fromReader, pending.count < Self.pendingLimit, pendingBytes < Self.pendingByteLimit {
                pending.append(Pending(fields: fields, provenance: provenance, text: text, findings: findings, textOnly: textOnly))
                pendingBytes += text?.utf8.count ?? 0
                return
            }
            try settleColumns(fromReader ? pending.map(\.fields) + [fields] : [fields], input: pending.first?.provenance.input ?? provenance.input)
            try writeHeld()
        }
        try writeRow(fields: fields, provenance: provenance, text: text, findings: findings, textOnly: textOnly)
    }

    /// Starts the CSV with the columns of the candidate with the most of them (the held rows
    /// written first). A ragged row's fields beyond the header (`_extra_1`, …) are not columns of
    /// the input: they go to `_extra`, as they do for any later ragged row.
    private func settleColumns(_ candidates: [[RawField]], input: String?) throws {
        var best: [String] = []
        // The header of the first reject's input, when it names more columns than the rejects.
        let header = input.flatMap { headers[$0] }.map { $0.map { RawField($0, .null) } }
        for fields in candidates + (header.map { [$0] } ?? []) {
            let names = fields.map(\.name).filter { !Self.isReaderExtraName($0) && !Self.bookkeepingNames.contains($0) }
            if names.count > best.count { best = names }
        }
        if byteOrderMark { try [UInt8]([0xEF, 0xBB, 0xBF]).withUnsafeBytes { try sink.write($0) } }
        columns = best
        for (i, name) in columns.enumerated() { columnIndex[name, default: []].append(i) }
        // Guarded like an export: the file goes back to whoever made the input, who opens it in a
        // spreadsheet; reading it again takes the guard off (see ``FieldTyper/isGuarded(_:)``).
        csv = CSVWriter(
            sink: sink, columns: columns + ["_input", "_line", "_findings", "_extra"],
            delimiter: delimiter, guardFormulas: true)
    }

    private func writeHeld() throws {
        let held = pending
        pending = []
        for p in held { try writeRow(fields: p.fields, provenance: p.provenance, text: p.text, findings: p.findings, textOnly: p.textOnly) }
    }

    /// A reject held until the CSV columns are known.
    private struct Pending {
        var fields: [RawField]
        var provenance: Provenance
        var text: String?
        var findings: [Finding]
        var textOnly: Bool
    }
    private var pending: [Pending] = []
    /// Rejects without fields held at most before the columns are settled without them.
    static let pendingLimit = 1000
    /// And at most this much of their text (a row kept whole as its text may be megabytes).
    static let pendingByteLimit = 16 << 20
    private var pendingBytes = 0

    /// The columns (CSV) or keys (JSON) this writer adds to a reject. A rejects file fixed and read
    /// again has them as its own: they describe the earlier run, and a reject of it gets this run's
    /// values instead of a second set of columns with the same names. A
    /// non-empty `_extra` or `_text` (the earlier row's fields beyond the header, or its text) is
    /// data: it is kept in this reject's `_extra`.
    public static let bookkeepingNames: Set<String> = ["_input", "_line", "_element", "_findings", "_extra", "_text"]
    /// The bookkeeping that holds no data of the record (`_extra` and `_text` may): not reported
    /// as columns or keys that are not loaded.
    public static let regeneratedNames: Set<String> = ["_input", "_line", "_element", "_findings"]

    /// The fields of a reject without the earlier run's bookkeeping (an empty `_extra` or `_text`
    /// included); the same array when there is none, as for any input but a rejects file.
    static func withoutBookkeeping(_ fields: [RawField]) -> [RawField] {
        func isBookkeeping(_ f: RawField) -> Bool {
            guard f.name.hasPrefix("_"), bookkeepingNames.contains(f.name) else { return false }
            if regeneratedNames.contains(f.name) { return true }
            switch f.value {
            case .null: return true
            case .string(let s): return s.isEmpty
            default: return false
            }
        }
        guard fields.contains(where: isBookkeeping) else { return fields }
        return fields.filter { !isBookkeeping($0) }
    }

    /// `_extra_N`: the name the CSV reader gives a field beyond the header.
    static func isReaderExtraName(_ name: String) -> Bool {
        guard name.hasPrefix("_extra_") else { return false }
        let digits = name.dropFirst(7)
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    private func writeRow(fields: [RawField], provenance: Provenance, text: String?, findings: [Finding], textOnly: Bool) throws {
        var row = [String?](repeating: nil, count: columns.count + 4)
        var extra: [RawField] = []
        var filled = [Bool](repeating: false, count: columns.count)
        for field in fields {
            if let i = columnIndex[field.name]?.first(where: { !filled[$0] }) {
                filled[i] = true
                row[i] = textOnly ? nil : field.value.scalarText ?? field.value.jsonText
            } else if field.name == "_extra", case .string(let text) = field.value, text.utf8.first == UInt8(ascii: "{"),
                case .object(let members)? = JSONParser.wholeValue(text)
            {
                // An earlier rejects file's `_extra`, read again: its members, not the object
                // as one more level of text (each round nested it deeper).
                extra += members
            } else {
                extra.append(field)
            }
        }
        if fields.isEmpty || textOnly, let text { extra.append(RawField("_text", .string(text))) }
        row[columns.count] = provenance.input
        row[columns.count + 1] = String(provenance.line)
        row[columns.count + 2] = findings.map { f in
            (f.field.map { "\(f.code) (\($0))" } ?? f.code.rawValue) + ": " + f.message
        }.joined(separator: " | ")
        row[columns.count + 3] = extra.isEmpty ? nil : RawValue.object(extra).jsonText
        try csv?.writeRow(row)
    }

    static func json(_ f: Finding) -> RawValue {
        .object([
            RawField("code", .string(f.code.rawValue)), RawField("severity", .string(f.severity.rawValue)),
            RawField("field", f.field.map(RawValue.string) ?? .null), RawField("message", .string(f.message)),
            RawField("suggestion", f.suggestion.map(RawValue.string) ?? .null),
        ])
    }

    /// Flushes and closes the file (an empty CSV file gets a header of the bookkeeping columns).
    public func finish() throws {
        if json != nil {
            try json?.finish()
            return
        }
        if csv == nil {
            try settleColumns(pending.map(\.fields), input: pending.first?.provenance.input)
            try writeHeld()
        }
        if wroteWindows1252Row, !byteOrderMark, let staged = sink as? StagedFileSink, staged.canPrefix {
            staged.prefix = [0xEF, 0xBB, 0xBF]
        }
        try csv?.finish()
    }
}
