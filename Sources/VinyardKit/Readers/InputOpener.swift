/// An input's format.
public enum InputFormat: String, Sendable, Hashable, CaseIterable {
    case csv, json, jsonl
}

/// How to read an input. Everything left nil is detected.
public struct ReadOptions: Sendable, Hashable {
    /// Forces the format; nil lets the file name, then the content, decide.
    public var format: InputFormat?
    /// Forces the CSV delimiter; nil detects it from the header.
    public var delimiter: UInt8?
    public var encoding: TextEncoding
    /// The largest record, JSON element or line accepted, in bytes.
    public var maxRecordBytes: Int
    /// Non-blank lines above a CSV header to skip (a title or a note a spreadsheet export puts
    /// above the table); see ``InputReader/csvPreamble``.
    public var skipLines = 0

    public init(format: InputFormat? = nil, delimiter: UInt8? = nil, encoding: TextEncoding = .auto,
                maxRecordBytes: Int = 256 * 1024 * 1024) {
        self.format = format
        self.delimiter = delimiter
        self.encoding = encoding
        self.maxRecordBytes = maxRecordBytes
    }

    /// Parses a `--delimiter` value: one ASCII character, or `tab`/`\t`.
    public static func delimiter(from text: String) throws -> UInt8 {
        switch text {
        case "tab", "\\t", "\t": return 0x09
        default:
            guard text.utf8.count == 1, let b = text.utf8.first, b < 0x80, b != UInt8(ascii: "\""),
                b != 0x0A, b != 0x0D
            else {
                throw VinyardError(.usage, "--delimiter must be one ASCII character (or 'tab'), not '\(text)'")
            }
            return b
        }
    }
}

/// A reader for one input, whatever its format: CSV, JSON or JSON Lines, optionally gzip
/// compressed, from a file or standard input.
public final class InputReader: RecordReader {
    public var inputName: String { base.inputName }
    /// The format read (forced, from the name, or from the content).
    public let format: InputFormat
    /// True when the input was gzip-compressed.
    public let isGzip: Bool
    private var base: any RecordReader
    /// `base` when it is a CSV reader, called directly (no existential call and copy per record).
    private let csv: CSVReader?
    private let counter: CountingByteSource
    /// The thread inflating a gzip input ahead of the parser (it owns `counter` while it runs).
    private let readAhead: ReadAheadByteSource?
    /// The input's size in bytes when it is a regular file (nil for standard input and pipes).
    public let totalBytes: Int64?
    /// The base reader's window on the (decompressed) input.
    private let buffer: InputBuffer?

    init(
        base: any RecordReader, format: InputFormat, isGzip: Bool, counter: CountingByteSource,
        readAhead: ReadAheadByteSource? = nil, totalBytes: Int64?
    ) {
        self.base = base
        self.csv = base as? CSVReader
        self.format = format
        self.isGzip = isGzip
        self.counter = counter
        self.readAhead = readAhead
        self.totalBytes = totalBytes
        buffer = csv?.buffer ?? (base as? JSONReader)?.inputBuffer ?? (base as? JSONLinesReader)?.inputBuffer
    }

    /// Bytes of the input, decompressed, that the records read so far took (0 when unknown).
    var decodedBytes: Int { buffer.map { $0.base + $0.start } ?? 0 }

    /// Bytes of the input (compressed, for gzip) read so far.
    public var bytesRead: Int64 { readAhead?.countedBytes ?? counter.count }
    /// A 64-bit hash of the input's bytes read so far (all of them once `next()` returned nil).
    /// Stops a gzip input's read-ahead thread first.
    public var contentHash: String {
        readAhead?.stop()
        return counter.hexDigest
    }

    /// The CSV header (nil for JSON inputs).
    public var csvHeader: [String]? { csv?.header }
    /// The lines skipped above the CSV header (``ReadOptions/skipLines``), clipped.
    public var csvPreamble: [String] { csv?.preamble ?? [] }
    /// The CSV delimiter in use (nil for JSON inputs).
    public var csvDelimiter: UInt8? { csv?.delimiter }
    /// True when the CSV text began with a byte order mark or was UTF-16.
    public var csvHadBOM: Bool { csv?.buffer.hadBOM ?? false }
    /// True when the CSV text is read as Windows-1252 throughout (`--encoding windows-1252`).
    public var csvIsWindows1252: Bool { csv?.encoding == .windows1252 }
    /// The key of the object wrapping a JSON record array (`vehicles`), if any.
    public var wrapperKey: String? { (base as? JSONReader)?.wrapperKey }
    /// What the reader skipped and says so (``JSONReader/notes``), once reading is over.
    public var notes: [String] { (base as? JSONReader)?.notes ?? [] }

    public func next() throws -> ReadItem? {
        if let csv { return try csv.next() }
        return try base.next()
    }

    /// Field arrays of records the caller is done with, for a CSV reader to fill again (the
    /// other readers drop them). Empties `arrays`.
    func recycle(_ arrays: inout [[RawField]]) {
        if let csv { csv.recycle(&arrays) }
        arrays.removeAll(keepingCapacity: true)
    }
}

/// Opens an input (a path, or `-` for standard input) for reading records.
///
/// gzip is detected by its magic bytes. The format is `options.format` when set; else the name
/// decides (`.csv`, `.tsv`, `.json`, `.jsonl`, `.ndjson`, after stripping `.gz`); else the content:
/// a first non-whitespace byte `[` means JSON; `{` means JSON Lines when a complete object is
/// followed, on a later line, by anything (the rest of its line being blank), else JSON;
/// anything else is CSV. An empty input read as CSV or JSON Lines has zero records.
/// - Throws: `.missingInput` (absent file, directory), `.malformedInput` (corrupt gzip, binary data,
///   JSON syntax), `.usage` (ambiguous delimiter).
public func openInput(path: String, options: ReadOptions = ReadOptions()) throws -> InputReader {
    let opened = try FileByteSource(path: path)
    InputSnapshots.recordFirst(path)
    let totalBytes = opened.regularFileSize
    let file = CountingByteSource(opened)
    // Sniff the gzip magic.
    var prefix = [UInt8](repeating: 0, count: 64 * 1024)
    var got = 0
    while got < 2 {
        let n = try prefix.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[got...])) }
        if n == 0 { break }
        got += n
    }
    prefix.removeSubrange(got...)
    let isGzip = got >= 2 && prefix[0] == 0x1F && prefix[1] == 0x8B
    let raw = PrefixedByteSource(prefix: prefix, rest: file)
    // A gzip input is inflated on its own thread, ahead of the parser.
    let readAhead = isGzip ? ReadAheadByteSource(try GzipByteSource(source: raw), counter: file) : nil
    let source: any ByteSource = readAhead ?? raw
    var buffer = InputBuffer(source: source, maxRecordBytes: options.maxRecordBytes)
    var encoding = options.encoding
    if let bigEndian = try wideText(buffer, name: file.name) {
        // What the UTF-16 transcoder hands on is UTF-8, whatever --encoding says (as a byte
        // order mark would win): read as Windows-1252 it was mojibake without a warning.
        encoding = .utf8
        // UTF-16: read on as UTF-8, from the bytes the sniffing took.
        let sniffed = buffer.withBytes { Array($0[buffer.start..<buffer.end]) }
        let utf16 = UTF16ByteSource(source: PrefixedByteSource(prefix: sniffed, rest: source), bigEndian: bigEndian)
        buffer = InputBuffer(source: utf16, maxRecordBytes: options.maxRecordBytes)
        buffer.hadBOM = true
    }
    if isGzip { try refuseCompressedTwice(buffer, name: file.name) }

    var name = path.lowercased()
    if name.hasSuffix(".gz") { name.removeLast(3) }
    var defaultDelimiter: UInt8?
    let format: InputFormat
    if let forced = options.format {
        format = forced
        if name.hasSuffix(".tsv") { defaultDelimiter = 0x09 }
    } else if name.hasSuffix(".csv") {
        format = .csv
    } else if name.hasSuffix(".tsv") {
        format = .csv
        defaultDelimiter = 0x09
    } else if name.hasSuffix(".json") {
        format = .json
    } else if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") {
        format = .jsonl
    } else {
        format = try sniffFormat(buffer)
    }

    let reader: any RecordReader
    switch format {
    case .csv:
        reader = try CSVReader(buffer: buffer, delimiter: options.delimiter ?? nil, encoding: encoding,
                               defaultDelimiter: defaultDelimiter, skipLines: options.skipLines)
    case .json:
        let json = JSONReader(buffer: buffer, encoding: encoding)
        try json.begin()
        reader = json
    case .jsonl:
        reader = try JSONLinesReader(buffer: buffer, encoding: encoding)
    }
    return InputReader(
        base: reader, format: format, isGzip: isGzip, counter: file, readAhead: readAhead, totalBytes: totalBytes)
}

/// Recognizes UTF-16 text (Excel's "Unicode Text" export, PowerShell's default) by its byte order
/// mark or, without one, by a NUL after each of the first two ASCII characters (read as UTF-8 it
/// is binary data, or lines of NUL bytes): returns whether it is big-endian, nil for other text.
/// - Throws: `.malformedInput` for UTF-32 text, naming the input and how to convert it.
func wideText(_ buffer: InputBuffer, name: String) throws -> Bool? {
    try buffer.fill(atLeast: 4096)
    enum Kind { case utf16(bigEndian: Bool), utf32(String) }
    let kind: Kind? = buffer.withBytes { whole in
        let p = UnsafeBufferPointer(rebasing: whole[buffer.start..<buffer.end])
        guard p.count >= 2 else { return nil }
        if p.count >= 4, p[0] == 0xFF, p[1] == 0xFE, p[2] == 0, p[3] == 0 {
            return .utf32("UTF-32 little-endian text (byte order mark FF FE 00 00)")
        }
        if p.count >= 4, p[0] == 0, p[1] == 0, p[2] == 0xFE, p[3] == 0xFF {
            return .utf32("UTF-32 big-endian text (byte order mark 00 00 FE FF)")
        }
        if p[0] == 0xFF && p[1] == 0xFE { return .utf16(bigEndian: false) }
        if p[0] == 0xFE && p[1] == 0xFF { return .utf16(bigEndian: true) }
        guard p.count >= 4 else { return nil }
        if p[0] != 0 && p[0] < 0x80 && p[1] == 0 && p[2] != 0 && p[2] < 0x80 && p[3] == 0 {
            return .utf16(bigEndian: false)
        }
        if p[0] == 0 && p[1] != 0 && p[1] < 0x80 && p[2] == 0 && p[3] != 0 && p[3] < 0x80 {
            return .utf16(bigEndian: true)
        }
        // Without a byte order mark, starting with other characters (a Cyrillic or CJK title):
        // NULs (the high bytes of ASCII characters) in one byte position of the pairs only, in
        // at least 1 of 8 pairs of the first 4 KiB. Binary data has them in both.
        let n = min(p.count, 4096) & ~1
        var even = 0, odd = 0
        for i in 0..<n where p[i] == 0 { if i & 1 == 0 { even += 1 } else { odd += 1 } }
        if n >= 16, even == 0, odd * 8 >= n / 2 { return .utf16(bigEndian: false) }
        if n >= 16, odd == 0, even * 8 >= n / 2 { return .utf16(bigEndian: true) }
        return nil
    }
    switch kind {
    case nil: return nil
    case .utf16(let bigEndian): return bigEndian
    case .utf32(let what):
        throw VinyardError(
            .malformedInput,
            "\(name): \(what); Vinyard reads UTF-8, UTF-16 or Windows-1252: save it as UTF-8 "
                + "(Excel: CSV UTF-8) or convert it (iconv -f UTF-32 -t UTF-8)")
    }
}

/// Refuses a gzip input whose content is gzip again (`gzip -c f.csv.gz > g.csv.gz`, or a server
/// that compressed a download that already was), which read as binary data before.
func refuseCompressedTwice(_ buffer: InputBuffer, name: String) throws {
    try buffer.fill(atLeast: 2)
    let twice = buffer.withBytes { whole in
        buffer.end - buffer.start >= 2 && whole[buffer.start] == 0x1F && whole[buffer.start + 1] == 0x8B
    }
    if twice {
        throw VinyardError(
            .malformedInput,
            "\(name): the file is gzip-compressed twice (its decompressed content is gzip again); "
                + (name == "-" ? "decompress it once (gzip -dc) before it is piped in"
                    : "decompress it once (gzip -dc \(name) > file.gz) and read the result"))
    }
}

/// Decides the format from the first bytes of the (decompressed) content.
func sniffFormat(_ buffer: InputBuffer) throws -> InputFormat {
    try buffer.fill(atLeast: 1024 * 1024)
    return buffer.withBytes { whole -> InputFormat in
        let p = UnsafeBufferPointer(rebasing: whole[0..<buffer.end])
        var i = buffer.start
        if p.count - i >= 3, p[i] == 0xEF, p[i + 1] == 0xBB, p[i + 2] == 0xBF { i += 3 }
        func isWS(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        while i < p.count, isWS(p[i]) { i += 1 }
        guard i < p.count else { return .csv }
        if p[i] == UInt8(ascii: "[") { return .json }
        guard p[i] == UInt8(ascii: "{") else { return .csv }
        var parser = JSONParser()
        guard case .value(_, let end) = parser.parse(p, from: i, final: buffer.eof) else { return .json }
        var j = end
        while j < p.count, p[j] == 0x20 || p[j] == 0x09 || p[j] == 0x0D { j += 1 }
        guard j < p.count, p[j] == 0x0A else { return .json }
        while j < p.count, isWS(p[j]) { j += 1 }
        // More after the object's line: JSON Lines, whose later lines are read (or rejected) one
        // by one; as JSON, anything after the top-level value would end the input with an error.
        return j < p.count ? .jsonl : .json
    }
}
