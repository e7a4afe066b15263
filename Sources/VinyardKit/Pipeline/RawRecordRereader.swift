/// Reads inputs of a run again for the raw records at given lines, asked for in ascending line
/// order per input (one pass over each input at most; it is read only up to the last line asked
/// for). A store replaces a row within a run after its record has gone by; this gets the record
/// back for the `duplicates` table, so the replaced record is kept as it was read, as a dropped
/// or merged one is.
///
/// Standard input cannot be read again: its records are never found. Several records can start
/// on one line (a JSON array written on one line): those whose values name the key are taken in
/// order, the first for the first entry asked for, and so on (a key replaced twice on one line).
public final class RawRecordRereader {
    private let options: ReadOptions
    private var input: String?
    private var reader: InputReader?
    /// The records that start on `line` of `input`, and the first record after them.
    private var line = 0
    private var atLine: [RawRecord] = []
    /// How many times each key was asked for at `line`.
    private var asked: [String: Int] = [:]
    private var next: RawRecord?
    private var exhausted = false
    /// Records kept for one line at most: a whole minified array is on one line.
    static let lineLimit = 4096
    /// The JSON array element that `record(element:line:)` last found (-1: none since the input was opened).
    private var lastElement = -1

    public init(options: ReadOptions) {
        self.options = options
    }

    /// The raw record at `line` of `input` that is JSON array element `element`, when the
    /// element is known; else the one whose values name `key` (the only record there, or the next
    /// one with a value that is the key, or its id part, once spaces, dashes and case are set
    /// aside). Nil when there is none or the input cannot be read again. Asked in order of line
    /// and element, it reads the input once.
    public func record(input name: String, line wanted: Int, element: Int? = nil, key: String) throws -> RawRecord? {
        guard name != "-" else { return nil }
        if name != input || wanted < line || (element.map { $0 <= lastElement } ?? false) {
            // A new input (or an earlier line of this one: start over).
            reader = nil
            input = name
            line = 0
            atLine = []
            next = nil
            exhausted = false
            lastElement = -1
            // Only a regular file (or a link to one) can be read again: a named pipe's second open
            // waited forever for a writer that had gone (standard input and pipes store the row
            // as it was stored instead). Once per input; `stat` follows links.
            // Nor one that changed since the run read it: its lines hold other records now.
            guard FileSnapshot.of(path: name) != nil, InputSnapshots.unchanged(name),
                let opened = try? openInput(path: name, options: options)
            else {
                exhausted = true
                return nil
            }
            reader = opened
        }
        // By element: the records of a minified array share one line (a location's key is in no
        // single value, and past `lineLimit` records a line's were not all kept).
        if let element { return self.record(element: element, line: wanted) }
        try advance(to: wanted)
        guard line == wanted, !atLine.isEmpty else { return nil }
        if atLine.count == 1 { return atLine[0] }
        let n = asked[key, default: 0]
        asked[key] = n + 1
        let matches = atLine.lazy.filter { Self.mentions($0.fields, key: key) }
        return matches.dropFirst(n).first
    }

    /// The record that is element `element`, reading on from the last one; nil when the input
    /// has no such element at `line`.
    private func record(element: Int, line wanted: Int) -> RawRecord? {
        if let pending = next, let index = pending.provenance.index, index >= element {
            guard index == element else { return nil }
            next = nil
            lastElement = element
            return pending.provenance.line == wanted ? pending : nil
        }
        next = nil
        while let record = nextRecord() {
            guard let index = record.provenance.index, index >= element else { continue }
            if index > element {
                next = record
                return nil
            }
            lastElement = element
            return record.provenance.line == wanted ? record : nil
        }
        return nil
    }

    /// The input's next record; nil at its end, or when it changed or cannot be read (what was
    /// found stays).
    private func nextRecord() -> RawRecord? {
        guard let reader, !exhausted else { return nil }
        while true {
            guard let item = try? reader.next() else {
                exhausted = true
                return nil
            }
            if case .record(let record) = item { return record }
        }
    }

    private func advance(to wanted: Int) throws {
        guard line < wanted else { return }
        atLine = []
        asked = [:]
        line = wanted
        if let pending = next {
            guard pending.provenance.line <= wanted else { return }
            next = nil
            if pending.provenance.line == wanted { atLine.append(pending) }
        }
        while let record = nextRecord() {
            if record.provenance.line < wanted { continue }
            if record.provenance.line > wanted {
                next = record
                return
            }
            if atLine.count < Self.lineLimit { atLine.append(record) }
        }
    }

    /// True when a scalar value of the fields (top level) is the key or the part of it after the
    /// source name (`autoscout:271004312`), compared without spaces, dashes, dots and case.
    static func mentions(_ fields: [RawField], key: String) -> Bool {
        func folded(_ s: String) -> String {
            String(String.UnicodeScalarView(s.unicodeScalars.filter { !" -._\t".unicodeScalars.contains($0) })).uppercased()
        }
        let whole = folded(key)
        let id = key.firstIndex(of: ":").map { folded(String(key[key.index(after: $0)...])) }
        for field in fields {
            guard let text = field.value.scalarText else { continue }
            let value = folded(text)
            if value == whole || value == id { return true }
        }
        return false
    }
}
