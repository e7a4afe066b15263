/// A streaming writer of records in one output format.
public protocol RecordWriter: AnyObject {
    /// Writes a raw record (a plain format conversion).
    func write(fields: [RawField]) throws
    /// Writes a canonical record: one optional value per column.
    func write(values: [FieldValue?], columns: [String]) throws
    /// Ends the document (closing brackets) and closes the sink.
    func finish() throws
}

/// An output format.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    case csv, json, jsonl

    /// The format a file name implies (`.csv`, `.tsv`, `.json`, `.jsonl`, `.ndjson`, after any `.gz`).
    public init?(fileName: String) {
        var name = fileName.lowercased()
        if name.hasSuffix(".gz") { name.removeLast(3) }
        if name.hasSuffix(".csv") || name.hasSuffix(".tsv") {
            self = .csv
        } else if name.hasSuffix(".json") {
            self = .json
        } else if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") {
            self = .jsonl
        } else {
            return nil
        }
    }
}

extension OutputFormat {
    /// `--format tsv` is CSV with tab-separated cells: the format name to look up and whether
    /// cells are separated by tabs.
    public static func resolvingTSV(_ format: String) -> (name: String, tabs: Bool) {
        format.lowercased() == "tsv" ? ("csv", true) : (format.lowercased(), false)
    }

    /// The CSV cell delimiter of `--format` (tsv) or, else, of a file name.
    public static func csvDelimiter(format: String?, fileName: String) -> UInt8 {
        if let format, resolvingTSV(format).tabs { return 0x09 }
        return csvDelimiter(fileName: fileName)
    }

    /// The CSV cell delimiter a file name implies: a tab for `.tsv` (after any `.gz`), else a comma.
    public static func csvDelimiter(fileName: String) -> UInt8 {
        var name = fileName.lowercased()
        if name.hasSuffix(".gz") { name.removeLast(3) }
        return name.hasSuffix(".tsv") ? 0x09 : UInt8(ascii: ",")
    }
}

/// Output bytes accumulated by a writer and handed to its sink in large blocks.
struct OutputBuffer {
    var bytes: [UInt8] = []
    let sink: any ByteSink
    /// The last top-level names ``appendJSONObject(_:)`` found unique: a CSV input's rows share
    /// their header's names, so the next row is checked against these (equal storage compares at
    /// once) instead of name against name (~30% more time for a 30-column `--source raw` JSON output).
    private var uniqueNames: [String] = []

    init(sink: any ByteSink) {
        self.sink = sink
        bytes.reserveCapacity(128 * 1024)
    }

    @inline(__always) mutating func append(_ b: UInt8) { bytes.append(b) }
    @inline(__always) mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }
    @inline(__always) mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Hands the bytes to the sink when enough have accumulated.
    mutating func flushIfNeeded() throws {
        if bytes.count >= 64 * 1024 { try flush() }
    }

    mutating func flush() throws {
        guard !bytes.isEmpty else { return }
        let sink = self.sink
        try bytes.withUnsafeBytes { try sink.write($0) }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends `s` as a JSON string literal: quotes, backslashes and control characters escaped,
    /// everything else (non-ASCII included) kept as UTF-8.
    mutating func appendJSONString(_ s: String) {
        JSONEscaping.appendQuoted(s, to: &bytes)
    }

    /// Appends a raw value as JSON. Nesting is bounded by the reader's depth limit.
    mutating func appendJSON(_ v: RawValue) {
        switch v {
        case .null: append("null" as StaticString)
        case .bool(let b): append(b ? "true" as StaticString : "false")
        case .number(let n): append(n)
        case .string(let s): appendJSONString(s)
        case .array(let items):
            append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { append(UInt8(ascii: ",")) }
                appendJSON(item)
            }
            append(UInt8(ascii: "]"))
        case .object(let fields):
            appendJSONObject(fields, topLevel: false)
        }
    }

    /// - Parameter topLevel: a record's own object, whose names are checked against the last
    ///   record's (a nested object's names would displace them: every record missed).
    mutating func appendJSONObject(_ fields: [RawField], topLevel: Bool = true) {
        append(UInt8(ascii: "{"))
        guard topLevel else {
            appendMembers(RawField.withUniqueNames(fields))
            return
        }
        var known = fields.count == uniqueNames.count
        if known {
            for i in fields.indices where fields[i].name != uniqueNames[i] {
                known = false
                break
            }
        }
        let named = known ? fields : RawField.withUniqueNames(fields)
        if !known, fields.count > 1 {
            // Unique as they are (no name changed): remembered for the next record.
            var same = true
            for i in fields.indices where named[i].name != fields[i].name {
                same = false
                break
            }
            if same {
                uniqueNames.removeAll(keepingCapacity: true)
                for f in fields { uniqueNames.append(f.name) }
            }
        }
        appendMembers(named)
    }

    /// `"name":value,…}` for an object's fields.
    private mutating func appendMembers(_ named: [RawField]) {
        for (i, f) in named.enumerated() {
            if i > 0 { append(UInt8(ascii: ",")) }
            appendJSONString(f.name)
            append(UInt8(ascii: ":"))
            appendJSON(f.value)
        }
        append(UInt8(ascii: "}"))
    }

    /// Appends a canonical value as JSON (`null` for nil and for non-finite numbers).
    mutating func appendJSON(_ v: FieldValue?) {
        switch v {
        case nil: append("null" as StaticString)
        case .text(let s): appendJSONString(s)
        case .integer(let i): append(String(i))
        case .real(let d): if d.isFinite { append(FieldValue.decimalText(d)) } else { append("null" as StaticString) }
        case .bool(let b): append(b ? "true" as StaticString : "false")
        }
    }

    /// Appends canonical values as one JSON object; a text value of an `arrayColumns` column that
    /// is a bracketed JSON array (as the typer stores arrays) is written as the array.
    mutating func appendJSONObject(values: [FieldValue?], columns: [String], arrayColumns: Set<String> = []) {
        append(UInt8(ascii: "{"))
        for (i, name) in columns.enumerated() {
            if i > 0 { append(UInt8(ascii: ",")) }
            appendJSONString(name)
            append(UInt8(ascii: ":"))
            let value = i < values.count ? values[i] : nil
            if !arrayColumns.isEmpty, case .text(let s)? = value, s.hasPrefix("["), s.hasSuffix("]"),
                arrayColumns.contains(name)
            {
                append(s)
            } else {
                appendJSON(value)
            }
        }
        append(UInt8(ascii: "}"))
    }
}

extension RawValue {
    /// The value as compact JSON text (numbers as written; no recursion, see ``JSONText``).
    public var jsonText: String { JSONText.encode(self) }
}
