import Foundation
import Testing
@testable import VinyardKit

@Suite struct CSVReaderTests {
    func read(_ text: String, delimiter: UInt8? = nil, chunk: Int = 1 << 20) throws -> (CSVReader, [ReadItem]) {
        let reader = try CSVReader(source: MemorySource(text, chunk: chunk), delimiter: delimiter)
        return (reader, try readAll(reader))
    }

    /// A line of spaces or tabs alone, or a DOS end-of-file mark (Ctrl-Z) at the end, is a blank
    /// line, on both paths and for one-column files too; it was a `row.ragged` reject.
    @Test(arguments: [1, 4, 1 << 20])
    func whitespaceLinesAndCtrlZAreBlank(chunk: Int) throws {
        for header in ["VIN,Make\n", "VIN\n"] {
            let one = header == "VIN\n"
            let row = one ? "1FTFW1E57KFA14352\n" : "1FTFW1E57KFA14352,Ford\n"
            let (_, items) = try read(header + row + "   \t \n" + row + "\u{1A}", chunk: chunk)
            #expect(items.count == 2, "\(header): \(items)")
            #expect(items.allSatisfy { $0.record != nil })
            #expect(items.last?.record?.provenance.line == 4)
        }
    }

    /// `skipLines` passes that many non-blank lines above the header (blank ones among them too),
    /// across any chunking and line ends, keeps their text, and rows keep their file line numbers.
    @Test(arguments: [1, 2, 5, 1 << 20])
    func skipsLinesAboveTheHeader(chunk: Int) throws {
        let text = "Fleet report\r\n\r\n  Depot: Nord, 2026  \rVIN;Make\n1FTFW1E57KFA14352;Ford\n"
        let buffer = InputBuffer(source: MemorySource(text, chunk: chunk), chunkSize: 4, maxRecordBytes: 1 << 20)
        let reader = try CSVReader(buffer: buffer, delimiter: nil, encoding: .auto, skipLines: 2)
        #expect(reader.preamble == ["Fleet report", "Depot: Nord, 2026"])
        #expect(reader.header == ["VIN", "Make"])
        #expect(reader.delimiter == UInt8(ascii: ";"))
        let items = try readAll(reader)
        #expect(items.first?.record?.strings == ["1FTFW1E57KFA14352", "Ford"])
        #expect(items.first?.record?.provenance.line == 5)
        // More lines asked than the input has: all of them, and no header.
        let short = try CSVReader(buffer: InputBuffer(source: MemorySource("a\nb\n", chunk: chunk), chunkSize: 4, maxRecordBytes: 1 << 20),
                                  delimiter: nil, encoding: .auto, skipLines: 3)
        #expect(short.preamble == ["a", "b"])
        #expect(short.header == [])
    }

    @Test(arguments: [1, 3, 7, 1 << 20])
    func quotesEscapesAndNewlines(chunk: Int) throws {
        let (reader, items) = try read("a,b,c\r\n\"x,1\",\"he said \"\"hi\"\"\",\"two\r\nlines\"\r\n4,5,6", chunk: chunk)
        #expect(reader.header == ["a", "b", "c"])
        #expect(items.count == 2)
        #expect(items[0].record?.strings == ["x,1", "he said \"hi\"", "two\r\nlines"])
        #expect(items[1].record?.strings == ["4", "5", "6"])
        #expect(items[0].record?.provenance.line == 2)
        #expect(items[1].record?.provenance.line == 4)
    }

    /// A row of hundreds of thousands of delimiters (a broken or hostile file) is one ragged
    /// reject kept whole as its text, not split into a field per delimiter (about 100 bytes of
    /// memory per byte read: 2 GB for a 20 MB row); reading goes on. A header wider than any
    /// table is refused.
    @Test(arguments: [7, 1 << 20])
    func rowOfVeryManyFieldsIsOneRejectKeptAsText(chunk: Int) throws {
        let wide = "1FTFW1E57KFA14352,Ford" + String(repeating: ",x", count: 200_000)
        let (_, items) = try read("vin,make\n" + wide + "\n1HGCV1F52MA000123,Honda\n", chunk: chunk)
        #expect(items.count == 2)
        let reject = try #require(items.first?.reject)
        #expect(reject.fields.isEmpty)
        #expect(reject.text == wide)
        #expect(reject.finding.message.contains("more than \(2 + CSVReader.maxExtraFields)"))
        #expect(items.last?.record?.strings == ["1HGCV1F52MA000123", "Honda"])
        // A ragged row within the bound keeps its fields.
        let (_, few) = try read("vin,make\na,b,c\n", chunk: chunk)
        #expect(few.first?.reject?.fields.count == 3)
        #expect {
            _ = try read("vin" + String(repeating: ",c", count: CSVReader.maxHeaderColumns) + "\n1,2\n", chunk: chunk)
        } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("more than \(CSVReader.maxHeaderColumns) columns") }
    }

    @Test func lineEndingsLFAndLoneCR() throws {
        let (_, lf) = try read("a,b\n1,2\n3,4\n")
        #expect(lf.compactMap(\.record).map(\.strings) == [["1", "2"], ["3", "4"]])
        let (_, cr) = try read("a,b\r1,2\r3,4")
        #expect(cr.compactMap(\.record).map(\.strings) == [["1", "2"], ["3", "4"]])
        #expect(cr.compactMap(\.record).map(\.provenance.line) == [2, 3])
    }

    /// Excel's `sep=;` first line names the delimiter; it is no header, and lines count from it.
    @Test(arguments: ["sep=;\n", "\u{FEFF}sep=;\r\n", "SEP=;\r"])
    func excelSeparatorLine(_ first: String) throws {
        let (reader, items) = try read(first + "vin;make;price\n1HGCM82633A004352;Honda;12,5\n")
        #expect(reader.delimiter == UInt8(ascii: ";"))
        #expect(reader.header == ["vin", "make", "price"])
        #expect(items.compactMap(\.record).map(\.strings) == [["1HGCM82633A004352", "Honda", "12,5"]])
        #expect(items.first?.record?.provenance.line == 3)
        // A forced delimiter still wins; the line is skipped either way.
        let (forced, _) = try read(first + "vin|make\nX|Y\n", delimiter: UInt8(ascii: "|"))
        #expect(forced.header == ["vin", "make"])
        // Not the directive: a header that starts with the letters.
        let (plain, _) = try read("sep=x,y\n1,2\n")
        #expect(plain.header == ["sep=x", "y"])
    }

    @Test func bomIsStripped() throws {
        let reader = try CSVReader(source: MemorySource([0xEF, 0xBB, 0xBF] + Array("vin,make\nX,Y\n".utf8)))
        #expect(reader.header == ["vin", "make"])
    }

    @Test(arguments: [(",", UInt8(ascii: ",")), (";", UInt8(ascii: ";")), ("\t", UInt8(0x09)), ("|", UInt8(ascii: "|"))])
    func detectsDelimiter(sep: String, expected: UInt8) throws {
        let (reader, items) = try read(["vin", "make", "\"a\(sep)b\""].joined(separator: sep) + "\n1\(sep)2\(sep)3\n")
        #expect(reader.delimiter == expected)
        #expect(reader.header == ["vin", "make", "a\(sep)b"])
        #expect(items.first?.record?.strings == ["1", "2", "3"])
    }

    @Test func ambiguousDelimiterIsAUsageError() throws {
        #expect {
            _ = try read("a,b;c\n1,2;3\n")
        } throws: { ($0 as? VinyardError)?.code == .usage && "\($0)".contains("--delimiter") }
    }

    /// A German Excel header with commas in column names, over rows whose decimal commas happen
    /// to match them: both delimiters are consistent, and the one that splits the header into
    /// more columns wins (it was a usage error).
    @Test func consistentDelimitersResolvedByTheMostColumns() throws {
        let (reader, items) = try read("VIN;Make;Odometer, km;Price, EUR\n1FTFW1E57KFA14352;Ford;12,5;1.000,50\n")
        #expect(reader.delimiter == UInt8(ascii: ";"))
        #expect(reader.header == ["VIN", "Make", "Odometer, km", "Price, EUR"])
        #expect(items.first?.record?.strings == ["1FTFW1E57KFA14352", "Ford", "12,5", "1.000,50"])
    }

    @Test func ambiguityResolvedByConsistentRows() throws {
        let (reader, _) = try read("name;odometer (km, approx);make\nA;1;B\nC;2;D\n")
        #expect(reader.delimiter == UInt8(ascii: ";"))
    }

    @Test func forcedDelimiter() throws {
        let (reader, items) = try read("a,b;c\n1,2;3\n", delimiter: UInt8(ascii: ";"))
        #expect(reader.header == ["a,b", "c"])
        #expect(items.first?.record?.strings == ["1,2", "3"])
    }

    @Test func raggedRowsAreRejectsPairedWithHeader() throws {
        let (_, items) = try read("a,b\n1,2,3\n4\n5,6\n")
        #expect(items.count == 3)
        let long = try #require(items[0].reject)
        #expect(long.finding.code == .rowRagged)
        #expect(long.finding.severity == .error)
        #expect(long.fields.map(\.name) == ["a", "b", "_extra_1"])
        #expect(long.text == "1,2,3")
        #expect(long.provenance.line == 2)
        #expect(long.finding.message.contains("expected 2") && long.finding.message.contains("found 3"))
        let short = try #require(items[1].reject)
        #expect(short.fields.map(\.name) == ["a"])
        #expect(items[2].record?.strings == ["5", "6"])
    }

    @Test func blankLinesSkippedAndLinesCounted() throws {
        let (_, items) = try read("a\n\n1\n\n\n2\n")
        #expect(items.compactMap(\.record).map(\.strings) == [["1"], ["2"]])
        #expect(items.compactMap(\.record).map(\.provenance.line) == [3, 6])
    }

    /// A quote never closed: the row is cut at its first line end, a `row.malformed` reject naming
    /// the line, and reading goes on with the next line. In the header it is a malformed file.
    @Test func unterminatedQuoteIsAMalformedRowNamingTheLine() throws {
        let (_, items) = try read("a,b\n1,2\n3,\"oops\n4,5\n")
        #expect(items.count == 3)
        #expect(items[0].record?.strings == ["1", "2"])
        let reject = try #require(items[1].reject)
        #expect(reject.finding.code == .rowMalformed && reject.provenance.line == 3 && reject.finding.message.contains("line 3"))
        #expect(items[2].record?.strings == ["4", "5"] && items[2].record?.provenance.line == 4)
        #expect {
            _ = try read("a,\"b\n1,2\n")
        } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("mem:1") }
    }

    /// A quote not closed within the open-quote limit (half the record limit, here 512 KiB of
    /// 1 MiB; 32 MiB by default) is taken as never closed, without reading further for it: the
    /// rest of the file was held in memory waiting for it, and past the record limit the whole
    /// file was refused (found by audit). A quoted field spanning lines within the limit is read.
    @Test(arguments: [4096, 1 << 20])
    func aQuoteOpenPastTheLimitIsAMalformedRow(chunk: Int) throws {
        let filler = String(repeating: "x", count: 100)
        let rows = (0..<20_000).map { "\($0),\(filler)\n" }.joined()  // ~2.2 MB, past the record limit
        let text = "a,b\n1,\"oops\n" + rows + "9,\"ok\nstill\"\n"
        let reader = try CSVReader(source: MemorySource(text, chunk: chunk), maxRecordBytes: 1 << 20)
        let items = try readAll(reader)
        let reject = try #require(items.first?.reject)
        #expect(reject.provenance.line == 2 && reject.finding.message.contains("not closed within 0 MiB") == false)
        #expect(reject.finding.message.contains("is not closed within"), "\(reject.finding.message)")
        #expect(items.count == 1 + 20_000 + 1)
        #expect(items[1].record?.strings == ["0", filler] && items[1].record?.provenance.line == 3)
        #expect(items.last?.record?.strings == ["9", "ok\nstill"])
        // Past the limit with the closing quote already buffered: cut at the same size (review:
        // only a field still open at the buffer's end was cut, so the limit moved with the buffer).
        let closing = "a,b\n1,\"open\n" + rows + "end\"\n"
        let whole = try readAll(try CSVReader(source: MemorySource(closing, chunk: 8 << 20), maxRecordBytes: 8 << 20))
        #expect(whole.count == 1 && whole.first?.record != nil, "under the 4 MiB limit the 2 MB field is read whole")
        let small = try readAll(try CSVReader(source: MemorySource(closing, chunk: 8 << 20), maxRecordBytes: 1 << 20))
        #expect(small.first?.reject?.finding.message.contains("is not closed within 512 KiB") == true, "\(small.first as Any)")
        // Within the limit, the field is read whole.
        let short = try readAll(try CSVReader(source: MemorySource("a,b\n1,\"two\nlines\"\n", chunk: chunk), maxRecordBytes: 1 << 20))
        #expect(short.count == 1 && short[0].record?.strings == ["1", "two\nlines"])
    }

    @Test func windows1252RowIsFlagged() throws {
        let bytes = Array("name,city\n".utf8) + [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0x2C, 0x80] + Array("\nJos\u{e9},x\n".utf8)
        let items = try readAll(try CSVReader(source: MemorySource(bytes)))
        #expect(items[0].record?.strings == ["Müller", "€"])
        #expect(items[0].record?.decodedAsWindows1252 == true)
        #expect(items[1].record?.strings == ["José", "x"])
        #expect(items[1].record?.decodedAsWindows1252 == false)
    }

    @Test func forcedUTF8ReplacesAndFlags() throws {
        let bytes = Array("n\n".utf8) + [0x41, 0xFF] + [0x0A]
        let items = try readAll(try CSVReader(source: MemorySource(bytes), encoding: .utf8))
        #expect(items[0].record?.strings == ["A\u{FFFD}"])
        #expect(items[0].record?.decodedAsWindows1252 == true)
    }

    @Test func emptyInputHasNoRecords() throws {
        let (reader, items) = try read("")
        #expect(reader.header.isEmpty && items.isEmpty)
    }

    @Test func nulInHeaderIsMalformed() throws {
        #expect(throws: VinyardError.self) { _ = try CSVReader(source: MemorySource([0x41, 0x00, 0x2C, 0x42, 0x0A])) }
    }

    @Test func wideAndLongFields() throws {
        let columns = (0..<10_000).map { "c\($0)" }
        let big = String(repeating: "x", count: 3_000_000)
        let text = columns.joined(separator: ",") + "\n" + columns.indices.map { $0 == 5 ? "\"\(big)\"" : "\($0)" }.joined(separator: ",") + "\n"
        let (reader, items) = try read(text, chunk: 65536)
        #expect(reader.header.count == 10_000)
        let r = try #require(items.first?.record)
        #expect(r.fields.count == 10_000)
        #expect(r.fields[5].value == .string(big))
    }

    @Test func textAfterClosingQuoteKept() throws {
        let (_, items) = try read("a,b\n\"x\"y,2\n")
        #expect(items.first?.record?.strings == ["xy", "2"])
    }
}
