/// A streaming JSON Lines reader: one JSON object per line. Blank lines are skipped; a line that
/// is not one well-formed object is a ``RawReject`` (`row.malformed`) with its line, and reading
/// goes on.
public final class JSONLinesReader: RecordReader {
    public let inputName: String
    private let buffer: InputBuffer
    /// The window on the input (the pipeline reads how far it got).
    var inputBuffer: InputBuffer { buffer }
    private var parser: JSONParser
    private let encoding: TextEncoding
    private var line = 1

    init(buffer: InputBuffer, encoding: TextEncoding) throws {
        self.buffer = buffer
        self.inputName = buffer.source.name
        self.encoding = encoding
        self.parser = JSONParser(encoding: encoding)
        try buffer.skipBOM()
        // Binary data is refused as such, not read as lines that each fail to parse (a random
        // 3 MB file was ~20,000 `row.malformed` rejects). JSON text holds no raw NUL byte at all.
        try buffer.refuseBinaryData(expecting: "JSON Lines")
        try refuseJSONDocument()
    }

    /// A JSON document under a JSON Lines name (a pretty-printed array saved as `.jsonl`) was read
    /// line by line: a 12-record file became 239 `row.malformed` rejects. A document starts with
    /// `[`, or with a line that is `{` alone; no JSON Lines file does.
    private func refuseJSONDocument() throws {
        try buffer.fill(atLeast: 64 * 1024)
        let starts: UInt8? = buffer.withBytes { p in
            var i = buffer.start
            while i < buffer.end, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
            guard i < buffer.end else { return nil }
            if p[i] == UInt8(ascii: "[") { return p[i] }
            guard p[i] == UInt8(ascii: "{") else { return nil }
            var j = i + 1
            while j < buffer.end, p[j] == 0x20 || p[j] == 0x09 || p[j] == 0x0D { j += 1 }
            return j < buffer.end && p[j] == 0x0A ? p[i] : nil
        }
        guard let starts else { return }
        throw VinyardError(
            .malformedInput,
            "\(inputName): this is one JSON document (it starts with '\(Character(Unicode.Scalar(starts)))'), not JSON Lines "
                + "(one object per line); rename it to .json or pass --input-format json")
    }

    /// Creates a reader over any byte source.
    public convenience init(source: any ByteSource, encoding: TextEncoding = .auto, maxRecordBytes: Int = 256 * 1024 * 1024) throws {
        try self.init(buffer: InputBuffer(source: source, maxRecordBytes: maxRecordBytes), encoding: encoding)
    }

    public func next() throws -> ReadItem? {
        while true {
            // Find the end of the line.
            var scanFrom = buffer.start
            var lineEnd = -1
            while true {
                let found: Int? = buffer.withBytes { p in
                    var i = scanFrom
                    while i < buffer.end {
                        if p[i] == 0x0A { return i }
                        i += 1
                    }
                    return nil
                }
                if let found {
                    lineEnd = found
                    break
                }
                let consumedBefore = buffer.start
                scanFrom = buffer.end - consumedBefore
                if !(try buffer.fill(what: "JSON Lines line")) {
                    lineEnd = buffer.end
                    break
                }
                scanFrom += buffer.start
            }
            var lineStart = buffer.start
            if lineStart >= buffer.end && buffer.eof { return nil }
            let lineNumber = line
            line += 1
            let next = min(lineEnd + 1, buffer.end)
            defer { buffer.start = next }
            // A byte order mark starting a later line: files joined with `cat`, each with its own
            // (the line was a `row.malformed` reject, "unexpected character byte 0xEF").
            if lineEnd - lineStart >= 3, buffer.withBytes({ p in p[lineStart] == 0xEF && p[lineStart + 1] == 0xBB && p[lineStart + 2] == 0xBF }) {
                lineStart += 3
            }
            // Blank?
            let blank = buffer.withBytes { p in
                p[lineStart..<lineEnd].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            }
            if blank {
                if lineEnd >= buffer.end && buffer.eof { buffer.start = next; return nil }
                continue
            }
            let provenance = Provenance(input: inputName, line: lineNumber)
            parser.sawInvalidUTF8 = false
            parser.decodeAsWindows1252 = false
            var outcome = parseLine(lineStart, lineEnd)
            var flagged = parser.sawInvalidUTF8
            if flagged && encoding == .auto {
                parser.decodeAsWindows1252 = true
                outcome = parseLine(lineStart, lineEnd)
            }
            if encoding == .windows1252 { flagged = false }
            var problem: String
            switch outcome {
            case .value(let v, let end):
                let trailing = buffer.withBytes { p in
                    p[end..<lineEnd].firstIndex { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
                }
                if let trailing {
                    problem = "column \(trailing - lineStart + 1): unexpected characters after the value"
                } else if case .object(let fields) = v {
                    var record = RawRecord(fields: fields, provenance: provenance, decodedAsWindows1252: flagged)
                    record.loneSurrogateField = RawRecord.loneSurrogateField(member: parser.loneSurrogateMember)
                    return .record(record)
                } else {
                    problem = "the line holds \(JSONReader.kindName(v)), not an object"
                }
            case .failure(let message, let at):
                problem = "column \(at - lineStart + 1): \(message)"
            case .needMore:
                problem = "unexpected end of line"
            }
            let text = buffer.withBytes { p in
                // The line as written, without a CRLF line break's carriage return.
                let textEnd = lineEnd > lineStart && p[lineEnd - 1] == 0x0D ? lineEnd - 1 : lineEnd
                let slice = UnsafeBufferPointer(rebasing: p[lineStart..<textEnd])
                return TextDecoding.decode(slice, encoding: encoding, recordIsUTF8: TextDecoding.isValidUTF8(slice))
            }
            let finding = Finding(.rowMalformed, .error, message: "malformed JSON Lines line: \(problem)", input: inputName, line: lineNumber)
            return .reject(RawReject(provenance: provenance, text: text, finding: finding))
        }
    }

    private func parseLine(_ start: Int, _ end: Int) -> JSONParser.Outcome {
        buffer.withBytes { whole in
            parser.parse(UnsafeBufferPointer(rebasing: whole[0..<end]), from: start, final: true)
        }
    }
}
