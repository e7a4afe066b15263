/// One CSV cell: its text and whether it is a text value (only text cells get the
/// spreadsheet-formula guard; numbers such as `-5` never do).
public struct CSVCell: Sendable, Hashable {
    public var text: String
    public var isText: Bool
    public init(_ text: String, isText: Bool = true) {
        self.text = text
        self.isText = isText
    }
}

/// Writes RFC 4180 CSV: a header, then one row per record, LF line ends; a cell is quoted when it
/// holds the delimiter, a quote, CR or LF (or starts or ends with a space), quotes doubled.
public final class CSVWriter: RecordWriter {
    /// The column names, written as the header.
    public let columns: [String]
    /// When true, a text cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'` so
    /// spreadsheets do not run it as a formula.
    public let guardFormulas: Bool
    /// How many fields of raw records had no column and were left out.
    public private(set) var droppedFields = 0
    private let delimiter: UInt8
    private var out: OutputBuffer
    private var headerWritten = false
    private var finished = false
    private let columnIndex: [String: Int]
    private var cells: [CSVCell?] = []

    public init(sink: any ByteSink, columns: [String], delimiter: UInt8 = UInt8(ascii: ","), guardFormulas: Bool = false) {
        self.columns = columns
        self.delimiter = delimiter
        self.guardFormulas = guardFormulas
        out = OutputBuffer(sink: sink)
        var index: [String: Int] = [:]
        for (i, c) in columns.enumerated() where index[c] == nil { index[c] = i }
        columnIndex = index
    }

    private func writeHeaderIfNeeded() {
        guard !headerWritten else { return }
        headerWritten = true
        appendRow(columns.map { CSVCell($0, isText: false) })
    }

    /// Writes one row of cells (nil is an empty cell).
    public func writeRow(_ row: [CSVCell?]) throws {
        writeHeaderIfNeeded()
        appendRow(row)
        try out.flushIfNeeded()
    }

    /// Writes one row of text cells.
    public func writeRow(_ row: [String?]) throws {
        try writeRow(row.map { $0.map { CSVCell($0) } })
    }

    /// A text cell that spreadsheets would run as a formula (it starts with `= + - @`, tab or CR),
    /// or one whose `'`s (any number) stand before such a character: reading the file again
    /// (`import` takes one `'` off such a cell) would take its own first `'` for the guard, so it
    /// gets one too. `=x`, `'=x`, `''=x` all load back as they were.
    static func needsGuard(_ text: String) -> Bool {
        text.withUTF8Bytes { b in needsGuard(count: b.count) { b[$0] } }
    }

    /// ``needsGuard(_:)`` for a cell of `count` bytes, read through `byte`.
    ///
    /// A plain number (`-5`, `+3.5`, `-1,25`, `-2e3`) and a lone `-` or `+` get no guard:
    /// spreadsheets read them as a number or as text, never as a formula, and a guard would make
    /// a negative odometer in a rejects file `'-5`, which no longer reads as a number.
    @inline(__always)
    static func needsGuard(count: Int, byte: (Int) -> UInt8) -> Bool {
        var i = 0
        while i < count && byte(i) == UInt8(ascii: "'") { i += 1 }
        guard i < count && startsFormula(byte(i)) else { return false }
        return i > 0 || !isHarmlessSigned(count: count, byte: byte)
    }

    /// `[+-]` alone, or `[+-]digits[(.|,)digits][e[+-]digits]`.
    static func isHarmlessSigned(count: Int, byte: (Int) -> UInt8) -> Bool {
        let first = byte(0)
        guard first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else { return false }
        if count == 1 { return true }
        var i = 1
        func digits() -> Bool {
            let start = i
            while i < count && byte(i) >= UInt8(ascii: "0") && byte(i) <= UInt8(ascii: "9") { i += 1 }
            return i > start
        }
        guard digits() else { return false }
        if i < count && (byte(i) == UInt8(ascii: ".") || byte(i) == UInt8(ascii: ",")) {
            i += 1
            guard digits() else { return false }
        }
        if i < count && (byte(i) == UInt8(ascii: "e") || byte(i) == UInt8(ascii: "E")) {
            i += 1
            if i < count && (byte(i) == UInt8(ascii: "-") || byte(i) == UInt8(ascii: "+")) { i += 1 }
            guard digits() else { return false }
        }
        return i == count
    }

    @inline(__always)
    static func startsFormula(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "=") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: "@") || b == 0x09 || b == 0x0D
    }

    private func appendRow(_ row: [CSVCell?]) {
        for (i, cell) in row.enumerated() {
            if i > 0 { out.append(delimiter) }
            if let cell { appendCell(cell) }
        }
        out.append(0x0A)
    }

    private func appendCell(_ cell: CSVCell) {
        var text = cell.text
        // A NUL (a JSON `\u0000`) is left out, which no CSV reader takes; before the formula guard
        // looks at the start (`\u0000=HYPERLINK(…)` went out unguarded; found by review).
        if text.utf8.contains(0) { text = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\0" })) }
        if guardFormulas && cell.isText, Self.needsGuard(text) { text = "'" + text }
        let delimiter = self.delimiter
        let needsQuotes = text.utf8.contains { $0 == delimiter || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            || text.utf8.first == 0x20 || text.utf8.last == 0x20
        guard needsQuotes else {
            out.append(text)
            return
        }
        out.append(UInt8(ascii: "\""))
        for b in text.utf8 {
            if b == UInt8(ascii: "\"") { out.append(b) }
            out.append(b)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The CSV cell for a raw value: strings as text cells, numbers and booleans as typed, null
    /// empty, arrays and objects as compact JSON.
    public static func cell(_ v: RawValue) -> CSVCell? {
        switch v {
        case .null: nil
        case .bool(let b): CSVCell(b ? "true" : "false", isText: false)
        case .number(let n): CSVCell(n, isText: false)
        case .string(let s): CSVCell(s)
        case .array, .object: CSVCell(v.jsonText)
        }
    }

    /// The CSV cell for a canonical value. `position`: a latitude or longitude, whose one dot is
    /// always read as the decimal point, written without ``FieldValue/csvDecimalText(_:)``'s
    /// fourth decimal.
    public static func cell(_ v: FieldValue?, position: Bool = false) -> CSVCell? {
        switch v {
        case nil: nil
        case .text(let s): CSVCell(s)
        case .real(let d)?: CSVCell(position ? FieldValue.decimalText(d) : FieldValue.csvDecimalText(d), isText: false)
        case let v?: CSVCell(v.text, isText: false)
        }
    }

    /// Writes a raw record, placing each field under the column of the same name; fields without
    /// a column are counted in ``droppedFields``.
    public func write(fields: [RawField]) throws {
        cells.removeAll(keepingCapacity: true)
        cells.append(contentsOf: repeatElement(nil, count: columns.count))
        var filled = [Bool](repeating: false, count: columns.count)
        for f in fields {
            if let i = columnIndex[f.name], !filled[i] {
                filled[i] = true
                cells[i] = Self.cell(f.value)
            } else if columnIndex[f.name] == nil {
                droppedFields += 1
            } else if let i = columns.indices.first(where: { columns[$0] == f.name && !filled[$0] }) {
                // Duplicate header names: the next column with that name.
                filled[i] = true
                cells[i] = Self.cell(f.value)
            } else {
                droppedFields += 1
            }
        }
        try writeRow(cells)
    }

    public func write(values: [FieldValue?], columns: [String]) throws {
        if positions.count != columns.count { positions = columns.map { $0 == "latitude" || $0 == "longitude" } }
        let positions = self.positions
        try writeRow(values.indices.map { Self.cell(values[$0], position: $0 < positions.count && positions[$0]) })
    }

    /// Per column of ``write(values:columns:)``, true for a latitude or longitude.
    private var positions: [Bool] = []

    /// Writes the header if no row did, flushes and closes the sink.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        writeHeaderIfNeeded()
        try out.flush()
        try out.sink.close()
    }
}
