/// Writes records as one JSON array of objects, streamed: `[`, one object per line, `]`.
public final class JSONWriter: RecordWriter {
    private var out: OutputBuffer
    private var count = 0
    private var finished = false

    /// Columns holding an array as JSON text (schema array fields), written as the array.
    private let arrayColumns: Set<String>

    public init(sink: any ByteSink, arrayColumns: Set<String> = []) {
        out = OutputBuffer(sink: sink)
        self.arrayColumns = arrayColumns
        out.append("[\n" as StaticString)
    }

    private func separator() {
        if count > 0 { out.append(",\n" as StaticString) }
        count += 1
    }

    public func write(fields: [RawField]) throws {
        separator()
        out.appendJSONObject(fields)
        try out.flushIfNeeded()
    }

    public func write(values: [FieldValue?], columns: [String]) throws {
        separator()
        out.appendJSONObject(values: values, columns: columns, arrayColumns: arrayColumns)
        try out.flushIfNeeded()
    }

    public func finish() throws {
        guard !finished else { return }
        finished = true
        out.append(count > 0 ? "\n]\n" as StaticString : "]\n")
        try out.flush()
        try out.sink.close()
    }
}

/// Writes records as JSON Lines: one compact object per line.
public final class JSONLinesWriter: RecordWriter {
    private var out: OutputBuffer
    private var finished = false

    /// Columns holding an array as JSON text (schema array fields), written as the array.
    private let arrayColumns: Set<String>

    public init(sink: any ByteSink, arrayColumns: Set<String> = []) {
        out = OutputBuffer(sink: sink)
        self.arrayColumns = arrayColumns
    }

    public func write(fields: [RawField]) throws {
        out.appendJSONObject(fields)
        out.append(0x0A)
        try out.flushIfNeeded()
    }

    public func write(values: [FieldValue?], columns: [String]) throws {
        out.appendJSONObject(values: values, columns: columns, arrayColumns: arrayColumns)
        out.append(0x0A)
        try out.flushIfNeeded()
    }

    public func finish() throws {
        guard !finished else { return }
        finished = true
        try out.flush()
        try out.sink.close()
    }
}
