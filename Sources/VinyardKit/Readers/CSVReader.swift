/// A streaming RFC 4180 CSV reader that scans bytes in place.
///
/// - The first row is the header; a UTF-8 byte order mark before it is dropped.
/// - Quoted fields may hold delimiters, `""` (a quote) and line breaks. Rows end with LF, CRLF or a
///   lone CR. Text after a closing quote (`"ab"c`) is kept literally, as most tools do, except
///   after a quote that closes a field spanning lines: that row is malformed from its first line
///   (the opening quote was most likely an unescaped `"` of the text), and the lines after it are
///   read as rows of their own.
/// - The delimiter (`,` `;` tab `|`) is detected from the header line, counting outside quotes.
///   When several candidates occur there, the following rows decide (a candidate must split every
///   sampled row into as many fields as the header); when that does not settle it the reader
///   refuses to guess and asks for `--delimiter` (`.usage`).
/// - A row whose field count differs from the header's is a ``RawReject`` (`row.ragged`, error)
///   with its fields paired with the header and extra ones named `_extra_1`, `_extra_2`, …
/// - Completely empty lines are skipped (also in one-column files), and so are rows of delimiters
///   and empty fields alone (`,,,`) and the header repeated (files joined with `cat`); leading
///   empty lines before the header too.
/// - A quote left open at the end of input is fatal (`.malformedInput`, naming the line the
///   field started on), since every following row would have been swallowed.
/// - Records carry the 1-based line on which they start.
public final class CSVReader: RecordReader {
    public let inputName: String
    /// The delimiter in use (detected or forced).
    public let delimiter: UInt8
    /// The header's column names; empty for an empty input.
    public private(set) var header: [String] = []
    /// The non-blank lines skipped above the header (`skipLines`: a title or a note, not data),
    /// trimmed and clipped to 80 characters.
    public private(set) var preamble: [String] = []

    let buffer: InputBuffer
    let encoding: TextEncoding
    /// The line the next record starts on.
    var line = 1
    /// The last row ended with a CR at the end of the buffer: skip a LF that follows.
    var pendingCR = false
    /// Whether ``nextFast()`` may read records (false for a delimiter the fast scan cannot
    /// take, and in tests that compare it with the general path).
    var fastPathEnabled = false
    // Per-record scratch, reused.
    private var spans = FieldSpans()
    /// Columns a header may have (a wider "header" is not a table: one of binary-like data, or
    /// the wrong delimiter).
    static let maxHeaderColumns = 200_000
    /// Fields a row may have beyond the header before the rest is left unsplit (in its text).
    static let maxExtraFields = 1_000
    private var scratch: [UInt8] = []
    /// The last record's fields: their storage is reused when the caller has let go of them.
    var lastFields: [RawField] = []
    /// Field arrays handed back by the caller (``recycle(_:)``), filled again before `lastFields`.
    var spareFields: [[RawField]] = []
    /// One field per header column with an empty value: the shape of a record, copied when the
    /// last record's fields are still held by the caller.
    var template: [RawField] = []

    /// Where each field of the scanned record lies in the buffer.
    private struct FieldSpans {
        struct Span {
            var start: Int
            var end: Int
            var kind: UInt8  // 0 plain, 1 quoted (strip quotes), 2 needs unescaping
        }
        var items: [Span] = []
        /// Fields kept at most: a row of millions of delimiters (a hostile or broken file) would
        /// otherwise cost about 100 bytes of memory per byte read. Past it, the rest of the row
        /// is scanned but not split (``overflowed``).
        var limit = Int.max
        private(set) var overflowed = false
        var count: Int { items.count }
        mutating func removeAll() {
            items.removeAll(keepingCapacity: true)
            overflowed = false
        }
        @inline(__always) mutating func append(_ s: Int, _ e: Int, _ k: UInt8) {
            if items.count < limit {
                items.append(Span(start: s, end: e, kind: k))
            } else {
                overflowed = true
            }
        }
    }

    private struct Scanned {
        var start: Int
        var contentEnd: Int
        var next: Int
        var newlines: Int
        var endedWithCR: Bool
        /// The line of a quote that closed a quoted field spanning lines and was followed by
        /// text (`"Felgen 17"",1000⏎…,"ok",2000`: an inch mark left unescaped): the record was cut
        /// at the end of its first line, a malformed row; -1 for none.
        var strayQuoteLine = -1
        /// The line of a quote that opened a field and is never closed (the file ends inside it):
        /// the record was cut at the end of its first line in that field (or runs to the end of
        /// the file when the field has no line break), a malformed row; -1 for none.
        var unclosedQuoteLine = -1
        /// True when such a record runs to the end of the file (its field has no line break).
        var endsTheFile = false
        /// True when the quote was not closed within ``CSVReader/openQuoteLimit`` bytes (it may be
        /// closed further on): taken as never closed.
        var quoteOverLimit = false
    }

    /// How many bytes a quoted field spanning lines may hold before its opening quote is taken
    /// for one never closed (the record cut at its first line, the lines after it read as rows):
    /// 32 MiB, or half the record limit when that is smaller.
    private var openQuoteLimit: Int { min(32 * 1024 * 1024, buffer.maxRecordBytes / 2) }

    init(
        buffer: InputBuffer, delimiter forced: UInt8?, encoding: TextEncoding, defaultDelimiter: UInt8? = nil,
        skipLines: Int = 0
    ) throws {
        let inputName = buffer.source.name
        self.buffer = buffer
        self.inputName = inputName
        self.encoding = encoding
        try buffer.skipBOM()
        // A NUL in the header is refused below; a stray one in a row is that row's.
        try buffer.refuseBinaryData(expecting: "CSV", delimiter: forced ?? defaultDelimiter)
        // Excel's `sep=;` first line names the delimiter and precedes the header.
        let excelDelimiter = Self.skipExcelSeparatorLine(buffer)
        if excelDelimiter != nil { line += 1 }
        if skipLines > 0 {
            let (skipped, lines) = try Self.skipLines(skipLines, in: buffer, encoding: encoding)
            preamble = skipped
            line += lines
        }
        line += try Self.skipLineEnds(buffer)
        if let forced {
            delimiter = forced
        } else if let excelDelimiter {
            delimiter = excelDelimiter
        } else {
            delimiter = try Self.detectDelimiter(buffer, inputName: inputName, fallback: defaultDelimiter ?? UInt8(ascii: ","))
        }
        // Header: the first non-empty row. A line of delimiters alone (`;;;` or `"";"";""`: a sheet
        // whose table starts on row 2) is blank, as it is among the rows; it failed the source detection.
        // So is one of spaces or tabs alone (a tab was read as a header named `\t`, exit 64).
        spans.limit = Self.maxHeaderColumns
        let separator = delimiter
        while let scanned = try scanNext() {
            let onlyDelimiters = scanned.unclosedQuoteLine < 0 && buffer.withBytes { p in
                p[scanned.start..<scanned.contentEnd].allSatisfy {
                    $0 == separator || $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x1A || $0 == UInt8(ascii: "\"")
                }
            }
            if isBlank(scanned) || onlyDelimiters {
                consume(scanned)
                continue
            }
            let hasNUL = buffer.withBytes { p in
                p[scanned.start..<scanned.contentEnd].contains(0)
            }
            if hasNUL {
                throw VinyardError(.malformedInput, "\(inputName): binary data (NUL byte) in the CSV header; is this a text file?")
            }
            if scanned.unclosedQuoteLine >= 0 {
                // No header to read the rows by.
                let at = scanned.unclosedQuoteLine
                throw VinyardError(
                    .malformedInput,
                    "\(inputName):\(at): unterminated quoted field in the header (the quote opened on line \(at) is never closed); close the quote or fix the export")
            }
            if spans.overflowed {
                throw VinyardError(
                    .malformedInput,
                    "\(inputName):\(line): the header has more than \(Self.maxHeaderColumns) columns; is this a CSV file with this delimiter?")
            }
            header = decodeFields(scanned, names: nil).fields.map { $0.value.scalarText ?? "" }
            consume(scanned)
            break
        }
        // A row may have fields beyond the header (a ragged row, kept with them as a reject), up to a bound.
        spans.limit = header.count + Self.maxExtraFields
        template = header.map { RawField($0, .string("")) }
        lastFields = []  // the header's own fields have no names; records start from `template`
        fastPathEnabled = Self.fastScanHandles(delimiter: delimiter)
    }

    /// Creates a reader over any byte source.
    public convenience init(source: any ByteSource, delimiter: UInt8? = nil, encoding: TextEncoding = .auto,
                            maxRecordBytes: Int = 256 * 1024 * 1024) throws {
        try self.init(buffer: InputBuffer(source: source, maxRecordBytes: maxRecordBytes), delimiter: delimiter, encoding: encoding)
    }

    public func next() throws -> ReadItem? {
        if let record = nextFast() { return .record(record) }
        return try nextGeneral()
    }

    /// The next item by the general path (kept out of line so that the fast path's record goes
    /// straight into the caller's result instead of through copies of a merged exit).
    @inline(never)
    private func nextGeneral() throws -> ReadItem? {
        while let scanned = try scanNext() {
            if isBlank(scanned) {
                consume(scanned)
                continue
            }
            let startLine = line
            if scanned.strayQuoteLine >= 0 || scanned.unclosedQuoteLine >= 0 {
                let text = text(of: scanned)
                consume(scanned)
                let what =
                    scanned.strayQuoteLine >= 0
                    ? "a quoted field opens on this line and its closing quote, on line \(scanned.strayQuoteLine), is followed by "
                        + "text, not a delimiter"
                    : scanned.quoteOverLimit
                        ? "a quoted field opens on line \(scanned.unclosedQuoteLine) and its quote is not closed within "
                            + (openQuoteLimit >= 1 << 20 ? "\(openQuoteLimit >> 20) MiB" : "\(openQuoteLimit >> 10) KiB")
                            + " (taken as unterminated)"
                        : "a quoted field opens on line \(scanned.unclosedQuoteLine) and its quote is never closed (unterminated quoted field)"
                let finding = Finding(
                    .rowMalformed, .error,
                    message: what + ": a quote in the text (17\" for inches?) must be doubled (\"\"), or the field unquoted; "
                        + (scanned.endsTheFile ? "the row ends the file" : "the next lines are read as rows of their own"),
                    input: inputName, line: startLine)
                return .reject(RawReject(provenance: Provenance(input: inputName, line: startLine), text: text, finding: finding))
            }
            var (fields, flagged) = decodeFields(scanned, names: header)
            if Self.allEmpty(fields) || Self.isBlankText(fields) {
                // Delimiters alone (`,,,`), spaces or tabs alone, or a DOS end-of-file mark
                // (Ctrl-Z): a blank line, like an empty one.
                consume(scanned)
                continue
            }
            if repeatsHeaderStart(fields), fields.count == header.count,
                zip(fields.dropFirst(), header.dropFirst()).allSatisfy({ $0.value.scalarText?.lowercased() == $1.lowercased() })
            {
                // The header again, as in files joined with `cat` (with its byte order mark):
                // not a record.
                consume(scanned)
                continue
            }
            let provenance = Provenance(input: inputName, line: startLine)
            Self.absorbTrailingDelimiters(&fields, header: header)
            if fields.count != header.count || spans.overflowed {
                let overflowed = spans.overflowed
                let found = overflowed ? "more than \(header.count + Self.maxExtraFields)" : "\(fields.count)"
                let text = text(of: scanned)
                consume(scanned)
                let finding = Finding(
                    .rowRagged, .error,
                    message: "expected \(header.count) fields (as in the header), found \(found)",
                    input: inputName, line: startLine)
                // A row too wide to split is kept whole as its text, not as its first fields.
                return .reject(RawReject(provenance: provenance, text: text, fields: overflowed ? [] : fields, finding: finding))
            }
            consume(scanned)
            // One spare array fewer, as the fast path takes one per record: spares are handed
            // back for every record, and the pool kept growing while records took this path,
            // each spare keeping its old record's text alive (300 rows with a 1 MB cell held
            // 300 MB to the end of the run; an audit).
            if !spareFields.isEmpty { spareFields.removeLast() }
            return .record(RawRecord(fields: fields, provenance: provenance, decodedAsWindows1252: flagged, mayHaveFormulaGuard: true))
        }
        return nil
    }

    /// A trailing delimiter that only the rows or only the header have (`vin,make` over
    /// `1FT…,Ford,`, or `vin,make,` over `1FT…,Ford`) is not a ragged row: empty fields beyond
    /// the header are dropped, and empty-named header columns a row lacks at its end are empty.
    /// A row whose extra fields hold anything stays ragged.
    static func absorbTrailingDelimiters(_ fields: inout [RawField], header: [String]) {
        if fields.count > header.count {
            guard allEmpty(fields[header.count...]) else { return }
            fields.removeLast(fields.count - header.count)
        } else if fields.count < header.count, !fields.isEmpty {
            guard header[fields.count...].allSatisfy({ $0.isEmpty }) else { return }
            for name in header[fields.count...] { fields.append(RawField(name, .string(""))) }
        }
    }

    /// True for a row of one field that holds only white space or a DOS end-of-file mark (Ctrl-Z,
    /// which old exports end with): a blank line, not a ragged row.
    static func isBlankText(_ fields: [RawField]) -> Bool {
        guard fields.count == 1, case .string(let text) = fields[0].value, !text.isEmpty else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0 == "\u{1A}" }
    }

    /// True when every field is empty text: a row of delimiters alone, or the fields a row has
    /// beyond its header.
    static func allEmpty<C: Collection>(_ fields: C) -> Bool where C.Element == RawField {
        fields.allSatisfy { $0.value.scalarText?.isEmpty == true }
    }

    /// Whether a row's first value is the header's first name (not empty), a byte order mark
    /// before it or not: the row may be the header repeated.
    /// (Compares UTF-8 bytes after a length check: every row comes through here, and
    /// `String.hasPrefix` cost about 900 instructions a row.)
    func repeatsHeaderStart(_ fields: [RawField]) -> Bool {
        guard let name = header.first, !name.isEmpty, case .string(let value)? = fields.first?.value else { return false }
        let n = name.utf8.count, m = value.utf8.count
        // In any case (`vin;make` after `VIN;Make`: exports of two systems joined).
        if m == n { return value.utf8.elementsEqual(name.utf8) { Self.asciiLower($0) == Self.asciiLower($1) } }
        // With its byte order mark (files joined with `cat`), quoted or not: the mark before the
        // quote leaves the quotes in the value (`\u{FEFF}"VIN"`).
        guard value.utf8.starts(with: [0xEF, 0xBB, 0xBF]) else { return false }
        if m == n + 3 { return value.utf8.dropFirst(3).elementsEqual(name.utf8) { Self.asciiLower($0) == Self.asciiLower($1) } }
        return m == n + 5 && value.utf8.dropFirst(3).first == 0x22 && value.utf8.last == 0x22
            && value.utf8.dropFirst(4).dropLast().elementsEqual(name.utf8) { Self.asciiLower($0) == Self.asciiLower($1) }
    }

    @inline(__always)
    private static func asciiLower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }

    /// A scanned record's bytes as text (a reject keeps them).
    private func text(of scanned: Scanned) -> String {
        buffer.withBytes { p in
            let slice = UnsafeBufferPointer(rebasing: p[scanned.start..<scanned.contentEnd])
            return TextDecoding.decode(slice, encoding: encoding, recordIsUTF8: TextDecoding.isValidUTF8(slice))
        }
    }

    private func isBlank(_ s: Scanned) -> Bool {
        s.contentEnd == s.start && spans.count == 1
    }

    private func consume(_ s: Scanned) {
        buffer.start = s.next
        line += s.newlines
        pendingCR = s.endedWithCR
    }

    /// Scans the next record, refilling the buffer as needed; nil at the end of input.
    private func scanNext() throws -> Scanned? {
        while true {
            if pendingCR {
                if buffer.available == 0 && !buffer.eof { try buffer.fill(); continue }
                if buffer.available > 0 && buffer.bytes[buffer.start] == 0x0A { buffer.start += 1 }
                pendingCR = false
            }
            if buffer.available == 0 {
                if buffer.eof { return nil }
                let more = try buffer.fill()
                if !more { return nil }
            }
            if let s = try scan(from: buffer.start) { return s }
            try buffer.fill(what: "CSV record")
        }
    }

    /// Scans one record starting at `pos`; nil when more input is needed.
    private func scan(from pos: Int) throws -> Scanned? {
        var spans = self.spans
        self.spans = FieldSpans()
        defer { self.spans = spans }
        spans.removeAll()
        let line = self.line
        let eof = buffer.eof
        let n = buffer.end
        let delim = delimiter
        let quote = UInt8(ascii: "\""), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        var quoteOpenedOnLine = -1
        let quoteLimit = openQuoteLimit
        let result: Scanned? = buffer.withBytes { p -> Scanned? in
            var i = pos
            var newlines = 0
            while true {
                // At a field start.
                let fs = i
                var kind: UInt8 = 0
                if i < n && p[i] == quote {
                    kind = 1
                    quoteOpenedOnLine = line + newlines
                    i += 1
                    // The first line break inside the quotes, and the line breaks before it.
                    var breakAt = -1, breakNewlines = 0
                    while true {
                        i = ByteScan.first(in: p, from: i, to: n, quote, lf, cr)
                        // A quoted field spanning lines past the open-quote limit is taken as
                        // never closed, as at the end of the file: waiting for its quote held
                        // the rest of the file in memory (226 MB for a 110 MB file, found by
                        // audit), and past 256 MiB the whole file was refused.
                        let overLimit = breakAt >= 0 && i - fs > quoteLimit
                        if i >= n || overLimit {
                            if !eof && !overLimit { return nil }
                            // The file ends inside the quotes. As for a stray quote closed later
                            // (below), the record ends with its first line in the field, a
                            // malformed row, and the lines after it are records of their own:
                            // whether a file loaded depended on a quote somewhere after it.
                            var cut: Scanned
                            if breakAt >= 0 {
                                spans.append(fs, breakAt, 0)
                                cut = Scanned(
                                    start: pos, contentEnd: breakAt, next: breakAt + 1, newlines: breakNewlines + 1,
                                    endedWithCR: p[breakAt] == cr)
                            } else {
                                spans.append(fs, n, 0)
                                cut = Scanned(start: pos, contentEnd: n, next: n, newlines: newlines, endedWithCR: false)
                                cut.endsTheFile = true
                            }
                            cut.unclosedQuoteLine = quoteOpenedOnLine
                            cut.quoteOverLimit = overLimit
                            return cut
                        }
                        let c = p[i]
                        if c == quote {
                            if i + 1 >= n {
                                if !eof { return nil }
                                i += 1
                                break
                            }
                            if p[i + 1] == quote {
                                kind = 2
                                i += 2
                                continue
                            }
                            i += 1
                            let d = p[i]
                            if d != delim && d != lf && d != cr, breakAt >= 0, !Self.onlySpaceBeforeEnd(p, from: i, to: n, delim) {
                                // Text after the quote that closed a field spanning lines: the
                                // field's opening quote was most likely a character of its text
                                // (an unescaped inch mark), and the lines after it are records of
                                // their own. Read leniently, they vanished into this field.
                                spans.append(fs, breakAt, 0)
                                var cut = Scanned(
                                    start: pos, contentEnd: breakAt, next: breakAt + 1, newlines: breakNewlines + 1,
                                    endedWithCR: p[breakAt] == cr)
                                cut.strayQuoteLine = line + newlines
                                return cut
                            }
                            if d != delim && d != lf && d != cr {
                                kind = 2
                                while i < n, p[i] != delim, p[i] != lf, p[i] != cr { i += 1 }
                                if i >= n && !eof { return nil }
                            }
                            break
                        } else if c == lf {
                            if breakAt < 0 { (breakAt, breakNewlines) = (i, newlines) }
                            newlines += 1
                        } else if c == cr {
                            if breakAt < 0 { (breakAt, breakNewlines) = (i, newlines) }
                            if i + 1 >= n {
                                if !eof { return nil }
                                newlines += 1
                            } else if p[i + 1] != lf {
                                newlines += 1
                            }
                        }
                        i += 1
                    }
                } else {
                    i = ByteScan.first(in: p, from: i, to: n, delim, lf, cr)
                    if i >= n && !eof { return nil }
                }
                spans.append(fs, i, kind)
                if i >= n {
                    return Scanned(start: pos, contentEnd: i, next: i, newlines: newlines, endedWithCR: false)
                }
                let c = p[i]
                if c == delim {
                    i += 1
                    continue
                }
                // Line break.
                return Scanned(start: pos, contentEnd: i, next: i + 1, newlines: newlines + 1, endedWithCR: c == cr)
            }
        }
        return result
    }

    /// True when only spaces and tabs follow `from` up to the next delimiter or line end (or the
    /// end of what is buffered): white space after a closing quote, which is no stray quote.
    private static func onlySpaceBeforeEnd(_ p: UnsafeBufferPointer<UInt8>, from: Int, to n: Int, _ delim: UInt8) -> Bool {
        var j = from
        while j < n, p[j] == 0x20 || p[j] == 0x09 { j += 1 }
        return j >= n || p[j] == delim || p[j] == 0x0A || p[j] == 0x0D
    }

    /// Takes field arrays of records the caller no longer holds, to fill again in place (the
    /// pipeline hands back each batch's): an array with the header's shape keeps its field names,
    /// so the next record costs no array allocation and no retain per name.
    /// Arrays of another shape (another input's header) are dropped: only the values are written
    /// again, the names must already be this header's. The arrays of one call come from one batch,
    /// which holds one input's records: the names of the first are checked for all.
    func recycle(_ arrays: inout [[RawField]]) {
        let shape = template.count
        guard shape > 0, let first = arrays.first, first.count == shape else { return }
        for i in 0..<shape where first[i].name != template[i].name { return }
        // At most 4,096 arrays, and 65,536 fields in all: 4,096 spare rows of a 20,000-column
        // file held 2.6 GB (an audit).
        let limit = min(4096, max(2, 65_536 / shape))
        for array in arrays where array.count == shape && spareFields.count < limit {
            spareFields.append(array)
        }
    }

    /// The scanned record's fields (named from `names`, `_extra_N` beyond; unnamed when `names`
    /// is nil) and whether it was decoded as Windows-1252.
    private func decodeFields(_ s: Scanned, names: [String]?) -> (fields: [RawField], flagged: Bool) {
        let encoding = self.encoding
        let spans = self.spans
        var scratch = self.scratch
        self.scratch = []
        defer { self.scratch = scratch }
        return buffer.withBytes { p in
            let record = UnsafeBufferPointer(rebasing: p[s.start..<s.contentEnd])
            var isUTF8 = true
            var flagged = false
            let ascii = ByteScan.isASCII(record)
            if !ascii {
                isUTF8 = TextDecoding.isValidUTF8(record)
                flagged = !isUTF8 && encoding != .windows1252
            }
            var fields = self.lastFields
            self.lastFields = []
            fields.removeAll(keepingCapacity: true)
            fields.reserveCapacity(spans.count)
            let nameCount = names?.count ?? 0
            for f in 0..<spans.count {
                let span = spans.items[f]
                let a = span.start, b = span.end
                var value: String
                switch span.kind {
                case 0 where ascii:
                    value = TextDecoding.ascii(p, a, b)
                case 1 where ascii:
                    let close = p[b - 1] == UInt8(ascii: "\"") && b - 1 > a ? b - 1 : b
                    value = TextDecoding.ascii(p, a + 1, close)
                case 0:
                    value = TextDecoding.decode(UnsafeBufferPointer(rebasing: p[a..<b]), encoding: encoding, recordIsUTF8: isUTF8)
                case 1:
                    let close = p[b - 1] == UInt8(ascii: "\"") && b - 1 > a ? b - 1 : b
                    value = TextDecoding.decode(UnsafeBufferPointer(rebasing: p[(a + 1)..<close]), encoding: encoding, recordIsUTF8: isUTF8)
                default:
                    scratch.removeAll(keepingCapacity: true)
                    var j = a + 1
                    var inQuotes = true
                    while j < b {
                        let c = p[j]
                        if c == UInt8(ascii: "\"") && inQuotes {
                            if j + 1 < b && p[j + 1] == UInt8(ascii: "\"") {
                                scratch.append(c)
                                j += 2
                                continue
                            }
                            inQuotes = false
                        } else {
                            scratch.append(c)
                        }
                        j += 1
                    }
                    value = scratch.withUnsafeBufferPointer {
                        TextDecoding.decode($0, encoding: encoding, recordIsUTF8: isUTF8)
                    }
                }
                if value.utf8.first == UInt8(ascii: "=") { value = Self.excelText(value) }
                let name: String
                if let names {
                    name = f < nameCount ? names[f] : "_extra_\(f - nameCount + 1)"
                } else {
                    name = ""
                }
                fields.append(RawField(name, .string(value)))
            }
            self.lastFields = fields
            return (fields, flagged)
        }
    }

    /// The text of an Excel text formula `="0123"` (which spreadsheets write to keep leading zeros
    /// and long digit strings as text): the part inside the quotes, when it holds no quote itself;
    /// any other value unchanged.
    static func excelText(_ value: String) -> String {
        let u = value.utf8
        guard u.count >= 3, u.first == UInt8(ascii: "="), u.last == UInt8(ascii: "\""),
            u[u.index(after: u.startIndex)] == UInt8(ascii: "\"")
        else { return value }
        let inner = u.dropFirst(2).dropLast()
        guard !inner.contains(UInt8(ascii: "\"")) else { return value }
        return String(Substring(inner))
    }

    /// Consumes a first line `sep=X` (any case; X one printable ASCII character other than a quote,
    /// then the line's end), which spreadsheet programs write to name the delimiter, and returns X.
    private static func skipExcelSeparatorLine(_ buffer: InputBuffer) -> UInt8? {
        buffer.withBytes { p -> UInt8? in
            let i = buffer.start, n = buffer.end
            guard n - i >= 5, p[i] | 0x20 == UInt8(ascii: "s"), p[i + 1] | 0x20 == UInt8(ascii: "e"),
                p[i + 2] | 0x20 == UInt8(ascii: "p"), p[i + 3] == UInt8(ascii: "=")
            else { return nil }
            let d = p[i + 4]
            guard (d == 0x09 || (d >= 0x20 && d < 0x7F)), d != UInt8(ascii: "\""), d != UInt8(ascii: " ") else { return nil }
            var j = i + 5
            if j < n, p[j] == 0x0D { j += 1 }
            if j < n, p[j] == 0x0A { j += 1 }
            guard j > i + 5 || j == n else { return nil }
            buffer.start = j
            return d
        }
    }

    /// Consumes `count` non-blank lines (a title or note above the table; split at line ends,
    /// quotes aside) and the blank lines among them; returns their text (clipped) and how many
    /// lines were passed.
    /// Decoded as a record is (a Windows-1252 title, `Société`, showed as `Soci�t�`).
    private static func skipLines(_ count: Int, in buffer: InputBuffer, encoding: TextEncoding) throws -> (text: [String], lines: Int) {
        var text: [String] = []
        var lines = 0
        while text.count < count {
            try buffer.fill(atLeast: 64 * 1024)
            let found: (content: String, next: Int)? = buffer.withBytes { p in
                guard let end = (buffer.start..<buffer.end).first(where: { p[$0] == 0x0A || p[$0] == 0x0D }) else { return nil }
                var next = end + 1
                if p[end] == 0x0D, next < buffer.end, p[next] == 0x0A { next += 1 }
                let bytes = UnsafeBufferPointer(rebasing: p[buffer.start..<end])
                return (TextDecoding.decode(bytes, encoding: encoding, recordIsUTF8: TextDecoding.isValidUTF8(bytes)), next)
            }
            // No line end within 64 KiB, or the input ends: no line above a header.
            guard let found else { break }
            buffer.start = found.next
            lines += 1
            let trimmed = ValueParser.trimmed(found.content)
            if !trimmed.isEmpty { text.append(trimmed.count > 80 ? String(trimmed.prefix(80)) + "…" : trimmed) }
        }
        return (text, lines)
    }

    /// Consumes the empty lines before the header, a buffer at a time; returns how many. (The
    /// delimiter's detection looked for the header line through all of them at once: 300 MB of
    /// line ends, a 291 KB gzip, held 421 MB and failed as a 256 MiB header.)
    private static func skipLineEnds(_ buffer: InputBuffer) throws -> Int {
        var lines = 0
        while true {
            if buffer.available < 2, !buffer.eof { try buffer.fill(atLeast: 2) }
            let (consumed, counted, done): (Int, Int, Bool) = buffer.withBytes { p in
                var i = buffer.start, n = 0
                while i < buffer.end {
                    if p[i] == 0x0A {
                        n += 1
                        i += 1
                    } else if p[i] == 0x0D {
                        // CR LF is one line end; a CR last in the buffer waits for the next fill.
                        if i + 1 >= buffer.end, !buffer.eof { break }
                        n += 1
                        i += i + 1 < buffer.end && p[i + 1] == 0x0A ? 2 : 1
                    } else if p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x1A {
                        // A line of spaces, tabs or Ctrl-Z alone is blank too: the delimiter was
                        // detected from it (a tab), and the header was the blank line.
                        var j = i
                        while j < buffer.end, p[j] == 0x20 || p[j] == 0x09 || p[j] == 0x1A { j += 1 }
                        if j >= buffer.end {
                            if !buffer.eof { break }
                            i = j
                        } else if p[j] == 0x0A || p[j] == 0x0D {
                            i = j
                        } else {
                            return (i - buffer.start, n, true)
                        }
                    } else {
                        return (i - buffer.start, n, true)
                    }
                }
                return (i - buffer.start, n, buffer.eof && i >= buffer.end)
            }
            buffer.start += consumed
            lines += counted
            if done { return lines }
            if consumed == 0, buffer.available >= 2 { return lines }
            if !(try buffer.fill()) { return lines }
        }
    }

    /// Detects the delimiter from the header line (and following rows when the header alone is
    /// ambiguous).
    private static func detectDelimiter(_ buffer: InputBuffer, inputName: String, fallback: UInt8) throws -> UInt8 {
        let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]
        // Make sure the header line is in the buffer.
        while true {
            let lines = sampleLines(buffer, candidates: candidates, maxLines: 1)
            if lines.complete > 0 || buffer.eof { break }
            if !(try buffer.fill(what: "CSV header")) { break }
        }
        let sample = sampleLines(buffer, candidates: candidates, maxLines: 21)
        // A quote the header opens and nothing closes (`VIN;Make;"Model`) leaves no complete
        // line: its first line, quotes taken as text, tells the delimiter, and the reader then
        // names the unterminated quote (exit 65; a `;` file was split at `,` and refused as a
        // source it could not tell, exit 64).
        // The one there most often: an inch mark in a header (`vin,make,Rims; 17"`, `vin;make;model;
        // Rims, 17"`) is no quote, and the other delimiter is inside a name (found by audit); on
        // a tie, `,` as before.
        if sample.counts.isEmpty {
            guard let counts = firstLineCounts(buffer, candidates: candidates), let most = counts.max() else { return fallback }
            let top = candidates.indices.filter { counts[$0] == most }
            return top.count == 1 ? candidates[top[0]] : fallback
        }
        guard let headerCounts = sample.counts.first else { return fallback }
        let present = candidates.indices.filter { headerCounts[$0] > 0 }
        if present.isEmpty { return fallback }
        if present.count == 1 { return candidates[present[0]] }
        let rows = sample.counts.dropFirst().filter { $0.contains { $0 > 0 } || true }
        let consistent = present.filter { c in
            !rows.isEmpty && rows.allSatisfy { $0[c] == headerCounts[c] }
        }
        if consistent.count == 1 { return candidates[consistent[0]] }
        // Several delimiters as consistent (a German Excel header `VIN;Make;Odometer, km;Price, EUR`
        // over rows with decimal commas): the one that splits the header into the most columns,
        // when one does (the others are then inside column names).
        if consistent.count > 1 {
            let most = consistent.map { headerCounts[$0] }.max() ?? 0
            let top = consistent.filter { headerCounts[$0] == most }
            if top.count == 1 { return candidates[top[0]] }
        }
        let names = present.map { "\(Self.delimiterName(candidates[$0])) (\(headerCounts[$0])×)" }.joined(separator: ", ")
        throw VinyardError(
            .usage,
            "\(inputName): cannot tell the delimiter from the header: it holds \(names); pass --delimiter"
        )
    }

    /// Counts candidate delimiters outside quotes per line for the first `maxLines` lines in the
    /// buffer. `complete` is how many lines ended inside the buffer.
    private static func sampleLines(_ buffer: InputBuffer, candidates: [UInt8], maxLines: Int) -> (counts: [[Int]], complete: Int) {
        buffer.withBytes { p in
            var out: [[Int]] = []
            var complete = 0
            var counts = [Int](repeating: 0, count: candidates.count)
            var inQuotes = false
            var i = buffer.start
            var lineHasContent = false
            while i < buffer.end && out.count < maxLines {
                let c = p[i]
                if c == UInt8(ascii: "\"") {
                    inQuotes.toggle()
                    lineHasContent = true
                } else if !inQuotes && (c == 0x0A || c == 0x0D) {
                    if lineHasContent {
                        out.append(counts)
                        complete += 1
                    }
                    counts = [Int](repeating: 0, count: candidates.count)
                    lineHasContent = false
                } else {
                    lineHasContent = true
                    if !inQuotes, let k = candidates.firstIndex(of: c) { counts[k] += 1 }
                }
                i += 1
            }
            if lineHasContent && out.count < maxLines && buffer.eof && !inQuotes { out.append(counts); complete += 1 }
            return (out, complete)
        }
    }

    /// Candidate delimiters outside quotes in the buffer's first line, up to its first line break
    /// whether a quote is open or not (`VIN,Make,"Model; trim`: `,` twice, no `;`); nil when it
    /// has none.
    private static func firstLineCounts(_ buffer: InputBuffer, candidates: [UInt8]) -> [Int]? {
        buffer.withBytes { p in
            var counts = [Int](repeating: 0, count: candidates.count)
            var i = buffer.start
            // (Blank lines before the header are skipped, as the reader skips them.)
            while i < buffer.end, p[i] == 0x0A || p[i] == 0x0D { i += 1 }
            var inQuotes = false
            while i < buffer.end, p[i] != 0x0A, p[i] != 0x0D {
                if p[i] == UInt8(ascii: "\"") {
                    inQuotes.toggle()
                } else if !inQuotes, let k = candidates.firstIndex(of: p[i]) {
                    counts[k] += 1
                }
                i += 1
            }
            return counts.contains { $0 > 0 } ? counts : nil
        }
    }

    static func delimiterName(_ d: UInt8) -> String {
        d == 0x09 ? "tab" : "'\(Character(Unicode.Scalar(d)))'"
    }
}
