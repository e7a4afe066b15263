import Foundation
import Testing
@testable import VinyardKit

@Suite struct WriterTests {
    @Test func csvQuotingAndFormulaGuard() throws {
        let sink = MemorySink()
        let w = CSVWriter(sink: sink, columns: ["a", "b", "c"], guardFormulas: true)
        try w.writeRow([CSVCell("x,y"), CSVCell("say \"hi\""), CSVCell("two\nlines")])
        try w.writeRow([CSVCell("=SUM(A1)"), CSVCell("-5", isText: false), nil])
        try w.finish()
        #expect(sink.text == "a,b,c\n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\n'=SUM(A1),-5,\n")
        #expect(sink.closed)
    }

    @Test func csvFromRawFieldsByName() throws {
        let sink = MemorySink()
        let w = CSVWriter(sink: sink, columns: ["a", "b"])
        try w.write(fields: [RawField("b", .number("2")), RawField("a", .string("x")), RawField("z", .null)])
        try w.write(fields: [RawField("a", .array([.bool(true), .null]))])
        try w.finish()
        #expect(sink.text == "a,b\nx,2\n\"[true,null]\",\n")
        #expect(w.droppedFields == 1)
    }

    @Test func jsonEscapingAndTypes() throws {
        let sink = MemorySink()
        let w = JSONWriter(sink: sink)
        try w.write(fields: [RawField("s", .string("q\"b\\c\n\u{1}é")), RawField("n", .number("1.50")), RawField("o", .object([RawField("k", .null)]))])
        try w.write(values: [.text("x"), .integer(3), .real(2.5), .bool(false), nil, .real(.nan)], columns: ["t", "i", "r", "b", "n", "nan"])
        try w.finish()
        let expected = "[\n{\"s\":\"q\\\"b\\\\c\\n\\u0001é\",\"n\":1.50,\"o\":{\"k\":null}},\n{\"t\":\"x\",\"i\":3,\"r\":2.5,\"b\":false,\"n\":null,\"nan\":null}\n]\n"
        #expect(sink.text == expected)
        #expect(try JSONSerialization.jsonObject(with: Data(sink.bytes)) is [Any])
    }

    @Test func emptyJSONArray() throws {
        let sink = MemorySink()
        try JSONWriter(sink: sink).finish()
        #expect(sink.text == "[\n]\n")
    }

    @Test func jsonLinesRoundTrip() throws {
        let sink = MemorySink()
        let w = JSONLinesWriter(sink: sink)
        let records: [[RawField]] = [[RawField("a", .string("x\ty"))], [RawField("b", .array([.number("1"), .string("é")]))]]
        for r in records { try w.write(fields: r) }
        try w.finish()
        let back = try readAll(try JSONLinesReader(source: MemorySource(sink.bytes)))
        #expect(back.compactMap(\.record).map(\.fields) == records)
    }

    @Test func csvRoundTrip() throws {
        let sink = MemorySink()
        let w = CSVWriter(sink: sink, columns: ["a", "b"])
        let rows = [["p,q", "\"r\""], ["line\r\nbreak", " pad "], ["", "é€"]]
        for r in rows { try w.writeRow(r) }
        try w.finish()
        let back = try readAll(try CSVReader(source: MemorySource(sink.bytes)))
        #expect(back.compactMap(\.record).map(\.strings) == rows)
    }

    @Test func gzipSinkRoundTrip() throws {
        let text = Array(String(repeating: "hello,world\n", count: 50_000).utf8)
        let compressed = try gzip(text)
        #expect(compressed.count < text.count / 10)
        let source = try GzipByteSource(source: MemorySource(compressed, chunk: 1000))
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try buf.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        #expect(out == text)
    }

    @Test func cantCreateOutput() {
        #expect { _ = try openOutput(path: "/nonexistent-dir/x.csv") } throws: { ($0 as? VinyardError)?.code == .cantCreate }
    }
}
