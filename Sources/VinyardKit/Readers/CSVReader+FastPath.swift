/// The CSV reader's fast path: one pass over a record that builds its field strings as it finds
/// them, into the previous record's field array. It takes the common rows and hands everything
/// else to the general path (`scan` + `decodeFields`), which reads the same record again from
/// the same position, so that what a row yields never depends on which path read it.
extension CSVReader {
    private static let quote = UInt8(ascii: "\""), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D

    /// Whether the fast scan can split rows on `delimiter` (an ASCII byte other than a quote or a
    /// line break).
    static func fastScanHandles(delimiter: UInt8) -> Bool {
        delimiter < 0x80 && delimiter != quote && delimiter != lf && delimiter != cr
    }

    /// The next record when the fast path can read it, else nil with nothing consumed.
    ///
    /// It reads a row that lies wholly in the buffer with its line break, is not blank, has as many
    /// fields as the header, has no line break inside quotes and no text after a closing quote,
    /// and whose non-ASCII fields are valid UTF-8 (or are read as Windows-1252 when that encoding
    /// is forced), and in which no value starts with `=` (an Excel text formula `="0123"`, which
    /// the general path unwraps). Such a row is never flagged.
    @inline(__always)
    func nextFast() -> RawRecord? {
        guard fastPathEnabled, !pendingCR else { return nil }
        let buffer = self.buffer
        let start = buffer.start
        let end = buffer.end
        guard start < end else { return nil }
        let p = UnsafePointer(buffer.bytes)
        let first = p[start]
        if first == Self.lf || first == Self.cr { return nil }  // a blank line
        // A recycled array, or the last record's (moved out so that it is uniquely referenced
        // once the caller let go of it).
        let recycled = !spareFields.isEmpty
        var fields = recycled ? spareFields.removeLast() : lastFields
        lastFields = []
        if fields.count != template.count { fields = template }
        let delimiter = self.delimiter
        let encoding = self.encoding
        var marks = RecordMarks()
        let next = fields.withUnsafeMutableBufferPointer { out in
            Self.readRecord(p, from: start, to: end, into: out, delimiter: delimiter, encoding: encoding, marks: &marks)
        }
        // A row of delimiters and empty fields alone (`,,,`, as spreadsheets leave below the data)
        // is a blank line: the general path skips it.
        // So is the header again (files joined with `cat`): the general path skips it too.
        guard next >= 0,
            (first != delimiter && first != Self.quote) || !Self.allEmpty(fields),
            !repeatsHeaderStart(fields), fields.count != 1 || !Self.isBlankText(fields)
        else {
            if recycled { spareFields.append(fields) } else { lastFields = fields }
            return nil
        }
        let startLine = line
        line = startLine + 1
        buffer.start = next
        // Kept for the next record only when no recycled arrays come back (a second reference
        // would make the caller's handed-back array shared).
        if !recycled { lastFields = fields }
        return RawRecord(
            fields: fields, provenance: Provenance(input: inputName, line: startLine), mayHaveFormulaGuard: marks.apostrophe,
            isASCII: !marks.high)
    }

    /// Whether a value starting with this byte may start with a formula guard once typing has
    /// trimmed it: a `'`, or white space or a no-break space (0xC2 0xA0) before one (` '=x`).
    @inline(__always)
    static func mayStartGuard(_ b: UInt8) -> Bool {
        b == 0x27 || ValueParser.isSpace(b) || b == 0xC2
    }

    /// What the fast scan noticed about a record's values, for typing: a value that starts with
    /// `'` (maybe a formula guard, also after white space), a non-ASCII byte.
    struct RecordMarks {
        var apostrophe = false
        var high = false
    }

    /// Reads the record at `start` into `out` (one value per field, names kept); returns the index
    /// after its line break, or -1 when the general path must read it.
    @inline(__always)
    private static func readRecord(
        _ p: UnsafePointer<UInt8>, from start: Int, to n: Int, into out: UnsafeMutableBufferPointer<RawField>,
        delimiter d: UInt8, encoding: TextEncoding, marks: inout RecordMarks
    ) -> Int {
        let columns = out.count
        let pd = ByteScan.broadcast(d), pq = ByteScan.broadcast(quote)
        var i = start
        var f = 0
        // Noted in locals, and in `marks` once the record is read.
        var apostrophe = false, anyHigh = false
        while true {
            guard f < columns, i < n else { return -1 }
            let value: String
            if p[i] == 0x3D { return -1 }  // `=`: maybe an Excel text formula
            if Self.mayStartGuard(p[i]) { apostrophe = true }
            if p[i] == quote {
                let a = i &+ 1
                guard a < n, p[a] != 0x3D else { return -1 }
                if Self.mayStartGuard(p[a]) { apostrophe = true }
                var j = a
                var escaped = false
                var high = false
                while true {
                    j = ByteScan.firstBreakOrHigh(p, from: j, to: n, pq)
                    guard j &+ 1 < n else { return -1 }
                    let c = p[j]
                    if c == quote {
                        if p[j &+ 1] != quote { break }
                        escaped = true
                        j &+= 2
                    } else if c >= 0x80 {
                        high = true
                        j &+= 1
                    } else if c == lf || c == cr {
                        return -1  // a line break inside quotes
                    } else {
                        j &+= 1  // another control byte (a tab)
                    }
                }
                let after = p[j &+ 1]
                guard after == d || after == lf || after == cr,
                    let s = makeString(p, a, j, escaped: escaped, high: high, encoding: encoding)
                else { return -1 }
                anyHigh = anyHigh || high
                value = s
                i = j &+ 1
            } else {
                var j = i
                var high = false
                while true {
                    j = ByteScan.firstBreakOrHigh(p, from: j, to: n, pd)
                    guard j < n else { return -1 }
                    let c = p[j]
                    if c == d || c == lf || c == cr { break }
                    if c >= 0x80 { high = true }
                    j &+= 1  // a non-ASCII byte, or another control byte (a tab)
                }
                guard let s = makeString(p, i, j, escaped: false, high: high, encoding: encoding) else { return -1 }
                anyHigh = anyHigh || high
                value = s
                i = j
            }
            out[f].value = .string(value)
            f &+= 1
            let c = p[i]
            i &+= 1
            if c == d { continue }
            guard f == columns else { return -1 }
            if c == cr {
                guard i < n else { return -1 }
                if p[i] == lf { i &+= 1 }
            }
            marks = RecordMarks(apostrophe: apostrophe, high: anyHigh)
            return i
        }
    }

    /// The text of `p[a..<b]` (with `""` pairs made single when `escaped`) as the general path
    /// decodes it, or nil when only the general path can (invalid UTF-8, which makes the record
    /// Windows-1252 or flagged).
    @inline(__always)
    private static func makeString(
        _ p: UnsafePointer<UInt8>, _ a: Int, _ b: Int, escaped: Bool, high: Bool, encoding: TextEncoding
    ) -> String? {
        if high {
            let bytes = UnsafeBufferPointer(start: p + a, count: b - a)
            if encoding == .windows1252 {
                return escaped ? nil : TextDecoding.windows1252(bytes)
            }
            // A field's bytes lie between ASCII bytes, so the record is valid UTF-8 exactly when
            // each of its fields is.
            guard TextDecoding.isValidUTF8(bytes) else { return nil }
        }
        return escaped ? TextDecoding.unescapingQuotes(p, a, b) : TextDecoding.copying(p + a, count: b &- a)
    }
}
