/// Where a record came from: the input's name (a path, or `-` for standard input), the 1-based line
/// where the record starts (CSV, JSON Lines, and JSON elements), and for JSON arrays the 0-based
/// element index.
public struct Provenance: Sendable, Hashable {
    public var input: String
    public var line: Int
    public var index: Int?
    public init(input: String, line: Int, index: Int? = nil) {
        self.input = input
        self.line = line
        self.index = index
    }
    /// `fleet.csv:12`, or `fleet.json:40 (element 7)`.
    public var description: String {
        index.map { "\(input):\(line) (element \($0))" } ?? "\(input):\(line)"
    }
}

/// A value as the input holds it, before any schema types it. CSV gives only `.string`; JSON keeps
/// numbers as their source text so nothing (leading zeros, precision) is lost. Not `indirect`:
/// arrays already box their elements, and boxing every scalar would cost an allocation per field.
public enum RawValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A JSON number, as written in the input.
    case number(String)
    case string(String)
    case array([RawValue])
    case object([RawField])

    /// The value as text for a scalar (`nil` for null, arrays and objects).
    public var scalarText: String? {
        switch self {
        case .null, .array, .object: nil
        case .bool(let b): b ? "true" : "false"
        case .number(let s), .string(let s): s
        }
    }
}

/// One named field of a raw record, in input order.
public struct RawField: Sendable, Hashable {
    public var name: String
    public var value: RawValue
    public init(_ name: String, _ value: RawValue) {
        self.name = name
        self.value = value
    }
}

extension RawField {
    /// The fields with every name unique, for writing them as one JSON object: a name met again
    /// (a CSV header `VIN,Make,VIN`, the empty names of an Excel export's trailing columns, a JSON
    /// object with a key twice) gets its 1-based position, `VIN_3` (and `_` more while that is
    /// taken). JSON readers keep one value of a repeated key, so the other was lost from raw
    /// records, rejects files and `--source raw` output. The same array when the names are unique.
    public static func withUniqueNames(_ fields: [RawField]) -> [RawField] {
        guard fields.count > 1 else { return fields }
        var repeated = false
        // Pairwise for the usual few fields (a CSV row's names are the header's strings: equal
        // storage compares at once); a set past that.
        if fields.count <= 32 {
            outer: for i in 1..<fields.count {
                for j in 0..<i where fields[j].name == fields[i].name {
                    repeated = true
                    break outer
                }
            }
        } else {
            var seen = Set<String>()
            for f in fields where !seen.insert(f.name).inserted {
                repeated = true
                break
            }
        }
        guard repeated else { return fields }
        var taken = Set(fields.map(\.name))
        var seen = Set<String>()
        var out = fields
        for i in out.indices where !seen.insert(out[i].name).inserted {
            var name = "\(out[i].name)_\(i + 1)"
            while taken.contains(name) { name += "_" }
            taken.insert(name)
            out[i].name = name
        }
        return out
    }
}

/// A record as read: its fields in input order and its provenance.
public struct RawRecord: Sendable, Hashable {
    public var fields: [RawField]
    public var provenance: Provenance
    /// True when the record's bytes were not valid UTF-8 and were decoded as Windows-1252
    /// (the pipeline adds a `row.encoding` warning).
    public var decodedAsWindows1252: Bool
    /// True when a JSON string of the record held a `\u` escape of half a UTF-16 surrogate pair
    /// (`"\ud800"`: no character), read as U+FFFD (the pipeline adds a `row.encoding` warning).
    public var replacedLoneSurrogate: Bool { loneSurrogateField != -1 }
    /// The 0-based index in ``fields`` of the first field whose key or value held such an escape
    /// (-2 when not known); -1 for none. An integer: a string here made every copy of a record
    /// (reader to batch) count references, about 2% more instructions a row.
    public var loneSurrogateField: Int32 = -1

    /// ``loneSurrogateField`` for the member index a ``JSONParser`` reports (nil: none).
    static func loneSurrogateField(member: Int?) -> Int32 {
        guard let member else { return -1 }
        return member < 0 ? -2 : Int32(clamping: member)
    }
    /// True for a CSV row some of whose cells may carry the `'` that CSV exports put before a
    /// cell starting with `= + - @` (a spreadsheet formula guard), which typing takes off. (The
    /// CSV reader's fast path sets it only for a row with a cell that starts with `'`.)
    public var mayHaveFormulaGuard: Bool
    /// True when the reader saw that every value is ASCII (typing then skips its scan for
    /// characters that Unicode normalization may change); false when it does not know.
    public var isASCII: Bool

    public init(
        fields: [RawField], provenance: Provenance, decodedAsWindows1252: Bool = false, mayHaveFormulaGuard: Bool = false,
        isASCII: Bool = false
    ) {
        self.fields = fields
        self.provenance = provenance
        self.decodedAsWindows1252 = decodedAsWindows1252
        self.mayHaveFormulaGuard = mayHaveFormulaGuard
        self.isASCII = isASCII
    }

    /// Equal records hold the same fields, from the same place, decoded the same way; the
    /// readers' hints for typing (``mayHaveFormulaGuard``, ``isASCII``) are not part of a record's
    /// value (the CSV reader's two paths give the same record with different hints).
    public static func == (a: RawRecord, b: RawRecord) -> Bool {
        a.fields == b.fields && a.provenance == b.provenance && a.decodedAsWindows1252 == b.decodedAsWindows1252
            && a.loneSurrogateField == b.loneSurrogateField
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
        hasher.combine(provenance)
        hasher.combine(decodedAsWindows1252)
        hasher.combine(loneSurrogateField)
    }

    /// The first field with this exact name.
    public subscript(name: String) -> RawValue? {
        fields.first(where: { $0.name == name })?.value
    }
}

/// A record the reader could not turn into fields (a ragged CSV row, a malformed JSON Lines line):
/// kept with its original text and the finding that explains why.
public struct RawReject: Sendable, Hashable {
    public var provenance: Provenance
    /// The original text of the row or line (decoded as UTF-8, or Windows-1252 when invalid).
    public var text: String
    /// Whatever fields could be recovered (a ragged CSV row's fields paired with the header where
    /// there is one, `_extra_N` beyond it); empty when none.
    public var fields: [RawField]
    public var finding: Finding

    public init(provenance: Provenance, text: String, fields: [RawField] = [], finding: Finding) {
        self.provenance = provenance
        self.text = text
        self.fields = fields
        self.finding = finding
    }
}

/// What a reader yields: a record, or a reject with its reason.
///
/// Rejects are rare and large (a finding, the row's text), so they are boxed: an item is then only
/// as large as a record, and moving one from reader to caller is a few register moves instead of a
/// copy of some 160 bytes at every level.
public enum ReadItem: Sendable, Hashable {
    case record(RawRecord)
    indirect case reject(RawReject)
}

/// A streaming reader of records. Memory stays bounded whatever the input size.
public protocol RecordReader {
    /// The input's name, as used in provenance.
    var inputName: String { get }
    /// The next record or reject, or nil at the end of input. Throws ``VinyardError`` with
    /// `.malformedInput` when the input cannot be read on (a JSON syntax error in an array file,
    /// a corrupt gzip stream), or `.io` when reading fails.
    mutating func next() throws -> ReadItem?
}
