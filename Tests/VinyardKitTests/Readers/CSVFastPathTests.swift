import Foundation
import Testing
@testable import VinyardKit

/// The CSV reader's word-at-a-time scan and ASCII fast path give what a byte-by-byte reading does.
@Suite struct CSVFastPathTests {
    /// Field arrays handed back to the reader are filled again with the next records' values; an
    /// array the caller still holds keeps its values (copy on write), whatever the reader does.
    @Test func recycledFieldArraysCarryTheirOwnRecord() throws {
        let rows = (0..<40).map { "V\($0),make\($0),\($0 * 7)" }
        let text = "vin,make,km\n" + rows.joined(separator: "\n") + "\n"
        let reader = try CSVReader(source: MemorySource(Array(text.utf8)))
        func values(_ item: ReadItem?) -> [String] {
            guard case .record(let raw)? = item else { return [] }
            return raw.fields.map { "\($0.name)=\($0.value.scalarText ?? "-")" }
        }
        func expected(_ i: Int) -> [String] { ["vin=V\(i)", "make=make\(i)", "km=\(i * 7)"] }
        var kept: [(Int, RawRecord)] = []
        var handBack: [[RawField]] = []
        for i in 0..<40 {
            let item = try reader.next()
            #expect(values(item) == expected(i), "record \(i)")
            guard case .record(let raw)? = item else { continue }
            if i % 3 == 0 { kept.append((i, raw)) }  // still held while its array is handed back
            handBack.append(raw.fields)
            if i % 5 == 4 {
                reader.recycle(&handBack)
                handBack.removeAll()
            }
        }
        #expect(try reader.next() == nil)
        // Arrays named after another header are not taken: a record never carries foreign names.
        let other = try CSVReader(source: MemorySource(Array("a,b,c\n1,2,3\n".utf8)))
        var foreign = handBack.isEmpty ? [kept[0].1.fields] : handBack
        other.recycle(&foreign)
        guard case .record(let first)? = try other.next() else {
            Issue.record("no record")
            return
        }
        #expect(first.fields.map(\.name) == ["a", "b", "c"])
        for (i, raw) in kept {
            #expect(values(.record(raw)) == expected(i), "kept record \(i) changed after its array was recycled")
        }
    }

    @Test func byteScanAgreesWithNaiveSearch() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x2C, 0x0A, 0x0D, 0x22, 0x41, 0x61, 0x80, 0xFF, 0x00, 0x2B, 0x2D, 0x09, 0x0D, 0x0E, 0x7F, 0x23]
        for _ in 0..<2_000 {
            let n = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<n).map { _ in
                Int.random(in: 0..<4, using: &rng) == 0 ? alphabet.randomElement(using: &rng) ?? 0 : UInt8(ascii: "x")
            }
            let start = Int.random(in: 0...n, using: &rng)
            let end = Int.random(in: start...n, using: &rng)
            bytes.withUnsafeBufferPointer { p in
                let got = ByteScan.first(in: p, from: start, to: end, 0x2C, 0x0A, 0x0D)
                let want = (start..<end).first { [0x2C, 0x0A, 0x0D].contains(p[$0]) } ?? end
                #expect(got == want, "\(bytes) \(start)..<\(end)")
                let slice = UnsafeBufferPointer(rebasing: p[start..<end])
                #expect(ByteScan.isASCII(slice) == slice.allSatisfy { $0 < 0x80 })
                for pattern: UInt8 in [0x2C, 0x22, 0x09, 0x2D] {
                    guard let base = p.baseAddress else { continue }
                    let found = ByteScan.firstBreakOrHigh(base, from: start, to: end, ByteScan.broadcast(pattern))
                    let expected = (start..<end).first { p[$0] == pattern || p[$0] < 0x0E || p[$0] >= 0x80 } ?? end
                    #expect(found == expected, "\(bytes) \(start)..<\(end) pattern \(pattern)")
                }
            }
        }
    }

    static func records(_ text: String, chunk: Int = 1 << 20) throws -> [[String]] {
        let reader = try CSVReader(source: MemorySource(text, chunk: chunk))
        return try readAll(reader).map { item in
            switch item {
            case .record(let r): r.fields.map { "\($0.name)=\($0.value.scalarText ?? "nil")" }
            case .reject(let r): ["reject"] + r.fields.map { "\($0.name)=\($0.value.scalarText ?? "nil")" }
            }
        }
    }

    /// The same rows with an ASCII value swapped for a non-ASCII one give the same fields apart from
    /// that value, whatever the read size (records split across reads).
    @Test(arguments: [1, 3, 7, 64, 1 << 20])
    func asciiAndNonASCIIRowsMatch(chunk: Int) throws {
        let header = "vin,make,notes,odometer\n"
        let rows = [
            "WVWZZZ1JZXW000001,Skoda,\"serviced, tyres \"\"new\"\"\",12345\n",
            "WVWZZZ1JZXW000002,Volkswagen Nutzfahrzeuge GmbH,\"multi\nline\",7\r\n",
            ",,,\n", "\"\",\"quoted\",x\"y,1\r", "WVWZZZ1JZXW000003,BMW,a long note of more than fifteen bytes,9\n",
        ]
        let ascii = try Self.records(header + rows.joined(), chunk: chunk)
        let accented = try Self.records(
            header + rows.joined().replacingOccurrences(of: "Skoda", with: "Škoda").replacingOccurrences(of: "BMW", with: "BMẄ"),
            chunk: chunk)
        #expect(ascii.count == rows.count - 1, "the row of delimiters alone is a blank line")
        #expect(ascii.count == accented.count)
        for (a, b) in zip(ascii, accented) {
            #expect(a.map { $0.replacingOccurrences(of: "Skoda", with: "Škoda").replacingOccurrences(of: "BMW", with: "BMẄ") } == b)
        }
        #expect(ascii[0] == ["vin=WVWZZZ1JZXW000001", "make=Skoda", "notes=serviced, tyres \"new\"", "odometer=12345"])
        #expect(ascii[1] == ["vin=WVWZZZ1JZXW000002", "make=Volkswagen Nutzfahrzeuge GmbH", "notes=multi\nline", "odometer=7"])
        #expect(ascii[2] == ["vin=", "make=quoted", "notes=x\"y", "odometer=1"])
    }

    @Test func windows1252RowsStillFlagged() throws {
        let bytes = Array("a,b\n".utf8) + [0x8A, 0x6B, 0x6F, 0x64, 0x61, 0x2C, 0x31, 0x0A] + Array("x,y\n".utf8)
        let items = try readAll(try CSVReader(source: MemorySource(bytes, chunk: 5)))
        guard items.count == 2, case .record(let r) = items[0], case .record(let s) = items[1] else {
            Issue.record("expected two records, got \(items)")
            return
        }
        #expect(r.decodedAsWindows1252)
        #expect(r.fields.map { $0.value.scalarText } == ["Škoda", "1"])
        #expect(!s.decodedAsWindows1252)
        #expect(s.fields.map { $0.value.scalarText } == ["x", "y"])
    }
}

/// The one-pass fast path gives exactly what the general path gives, on random dirty CSV.
@Suite struct CSVFastPathDifferentialTests {
    /// Everything a reader yields (or the error it stops with), read with or without the fast path.
    static func outcome(_ bytes: [UInt8], chunk: Int, encoding: TextEncoding, delimiter: UInt8?, fast: Bool) -> String {
        var out: [String] = []
        do {
            let reader = try CSVReader(source: MemorySource(bytes, chunk: chunk), delimiter: delimiter, encoding: encoding)
            if !fast { reader.fastPathEnabled = false }
            out.append("header \(reader.header) delimiter \(reader.delimiter)")
            while let item = try reader.next() {
                guard case .record(var record) = item else {
                    out.append("\(item)")
                    continue
                }
                // The typing hints may differ between the paths, but never claim what is not so:
                // ASCII only when every value is, and a value starting with `'` always noted.
                let values = record.fields.compactMap(\.value.scalarText)
                if record.isASCII, values.contains(where: { $0.utf8.contains { $0 >= 0x80 } }) { out.append("not ASCII") }
                if !record.mayHaveFormulaGuard, values.contains(where: { ValueParser.trimmed($0).hasPrefix("'") }) {
                    out.append("apostrophe missed")
                }
                (record.isASCII, record.mayHaveFormulaGuard) = (false, false)
                out.append("\(ReadItem.record(record))")
            }
        } catch {
            out.append("error \(error)")
        }
        return out.joined(separator: "\n")
    }

    static let pieces: [[UInt8]] = [
        Array("a".utf8), Array("BMW".utf8), Array("1HGCM82633A004352".utf8), Array("Škoda".utf8), Array("x\"y".utf8),
        Array("a field of more than sixteen bytes".utf8), Array("é".utf8), [0xFF], [0x8A, 0x6B], [0xC3], Array(" ".utf8),
        Array("12345678".utf8), Array("ünïcödé 𝄞 text".utf8), [0x00], Array("\t".utf8), Array(";".utf8), Array("|".utf8),
        Array("'-5".utf8), Array(" '=x".utf8), Array("\u{A0}'+1".utf8),
    ]

    static func randomField(_ rng: inout some RandomNumberGenerator) -> [UInt8] {
        var content: [UInt8] = []
        for _ in 0..<Int.random(in: 0...3, using: &rng) { content += pieces.randomElement(using: &rng) ?? [] }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1:
            var quoted: [UInt8] = [0x22]
            for b in content { quoted += b == 0x22 ? [0x22, 0x22] : [b] }
            if Int.random(in: 0..<4, using: &rng) == 0 { quoted += Array("say \"\"hi\"\", ok".utf8) }
            if Int.random(in: 0..<6, using: &rng) == 0 { quoted += Array((["\n", "\r\n", ",", "\r"].randomElement(using: &rng) ?? "\n").utf8) }
            quoted.append(0x22)
            if Int.random(in: 0..<10, using: &rng) == 0 { quoted += Array("tail".utf8) }
            return quoted
        default:
            return content.filter { $0 != 0x0A && $0 != 0x0D && $0 != UInt8(ascii: ",") }
        }
    }

    static func randomCSV(_ rng: inout some RandomNumberGenerator, delimiter: UInt8) -> [UInt8] {
        let columns = Int.random(in: 1...6, using: &rng)
        var bytes: [UInt8] = Int.random(in: 0..<8, using: &rng) == 0 ? [0xEF, 0xBB, 0xBF] : []
        bytes += Array((0..<columns).map { "c\($0)" }.joined(separator: String(UnicodeScalar(delimiter))).utf8)
        let breaks: [[UInt8]] = [[0x0A], [0x0A], [0x0A], [0x0D, 0x0A], [0x0D]]
        bytes += breaks.randomElement(using: &rng) ?? [0x0A]
        for _ in 0..<Int.random(in: 0...30, using: &rng) {
            var count = columns
            switch Int.random(in: 0..<20, using: &rng) {
            case 0: count = 0  // blank line
            case 1: count = columns + 1
            case 2: count = max(1, columns - 1)
            default: break
            }
            for f in 0..<count {
                if f > 0 { bytes.append(delimiter) }
                bytes += randomField(&rng)
            }
            if Int.random(in: 0..<40, using: &rng) == 0 { bytes += pieces.randomElement(using: &rng) ?? [] }
            bytes += breaks.randomElement(using: &rng) ?? [0x0A]
        }
        if Int.random(in: 0..<4, using: &rng) == 0, let last = bytes.last, last == 0x0A { bytes.removeLast() }
        return bytes
    }

    @Test(arguments: TextEncoding.allCases)
    func fastPathMatchesGeneralPath(encoding: TextEncoding) throws {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<600 {
            let delimiter = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")][round % 4]
            let bytes = Self.randomCSV(&rng, delimiter: delimiter)
            let forced: UInt8? = round % 3 == 0 ? delimiter : nil
            for chunk in [1, 7, 64, 1 << 20] {
                let fast = Self.outcome(bytes, chunk: chunk, encoding: encoding, delimiter: forced, fast: true)
                let general = Self.outcome(bytes, chunk: chunk, encoding: encoding, delimiter: forced, fast: false)
                #expect(fast == general, "input: \(bytes) chunk \(chunk)")
                if fast != general { return }
            }
        }
    }

    /// The fast path really is taken for plain rows (and the test above compares two paths).
    @Test func fastPathTakesPlainRows() throws {
        let reader = try CSVReader(source: MemorySource("a,b\n1,\"x\"\"y\"\nŠ,2\n"))
        #expect(reader.fastPathEnabled)
        #expect(reader.nextFast()?.fields.map(\.value) == [.string("1"), .string("x\"y")])
        #expect(reader.nextFast()?.fields.map(\.value) == [.string("Š"), .string("2")])
        #expect(reader.nextFast() == nil)
    }
}
