import Foundation
import Testing
@testable import VinyardKit

@Suite struct JSONParserTests {
    func parse(_ text: String) -> JSONParser.Outcome {
        var parser = JSONParser()
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { parser.parse($0, from: 0, final: true) }
    }

    func value(_ text: String) -> RawValue? {
        if case .value(let v, _) = parse(text) { return v }
        return nil
    }

    @Test func scalarsAndNumbersKeepText() {
        #expect(value("[1.50, -0, 2e10, true, false, null]") == .array([.number("1.50"), .number("-0"), .number("2e10"), .bool(true), .bool(false), .null]))
    }

    /// A value of more values than the bound (a record of millions of tiny values, hostile or
    /// broken) fails like a syntax error, so the reader makes it one reject; at the bound it parses.
    @Test func valueCountIsBounded() {
        var parser = JSONParser()
        parser.maxValues = 10
        let at = Array("[1,2,3,4,5,6,7,8,9]".utf8), over = Array("{\"a\":[1,2,3,4,5,6,7,8,9,10]}".utf8)
        if case .value = at.withUnsafeBufferPointer({ parser.parse($0, from: 0, final: true) }) {} else { Issue.record("10 values refused") }
        guard case .failure(let message, _) = over.withUnsafeBufferPointer({ parser.parse($0, from: 0, final: true) }) else {
            Issue.record("12 values accepted")
            return
        }
        #expect(message.contains("more than 10 values"))
        #expect(JSONParser().maxValues == 1_000_000)
    }

    @Test func escapesAndSurrogates() {
        #expect(value(#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#) == .string("a\"\\/\u{8}\u{c}\n\r\té😀"))
        #expect(value(#""\ud800x""#) == .string("\u{FFFD}x"))
    }

    @Test(arguments: ["[1,]", "{\"a\":1,}", "[01]", "[1.]", "[.5]", "[\"\t\"]", "[\"\\x\"]", "// c\n[]", "[1 2]",
                      "{\"a\" 1}", "[tru]", "[\"\\u12\"]", "{a:1}", "[-]", "[1e]", "'a'", "[", "[\"abc"])
    func rejectsInvalid(_ text: String) {
        if case .failure = parse(text) {} else { Issue.record("accepted \(text)") }
    }

    @Test func needsMoreWhenNotFinal() {
        var parser = JSONParser()
        let bytes = Array("{\"a\": [1, 2".utf8)
        let outcome = bytes.withUnsafeBufferPointer { parser.parse($0, from: 0, final: false) }
        if case .needMore = outcome {} else { Issue.record("expected needMore") }
        let number = Array("12".utf8)
        let o2 = number.withUnsafeBufferPointer { parser.parse($0, from: 0, final: false) }
        if case .needMore = o2 {} else { Issue.record("a number at the end may go on") }
    }

    @Test func deepNestingIsAFailureNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        if case .failure(let message, _) = parse(deep) { #expect(message.contains("nesting")) } else { Issue.record("accepted") }
    }
}

@Suite struct JSONReaderTests {
    func items(_ text: String, chunk: Int = 1 << 20) throws -> (JSONReader, [ReadItem]) {
        let reader = try JSONReader(source: MemorySource(text, chunk: chunk))
        return (reader, try readAll(reader))
    }

    @Test(arguments: [1, 5, 1 << 20])
    func topLevelArrayWithProvenance(chunk: Int) throws {
        let (reader, all) = try items("[\n  {\"a\": 1},\n  {\"a\": \"x\"},\n  7,\n  {}\n]\n", chunk: chunk)
        #expect(reader.wrapperKey == nil)
        #expect(all.count == 4)
        #expect(all[0].record?.fields == [RawField("a", .number("1"))])
        #expect(all[1].record?.provenance == Provenance(input: "mem", line: 3, index: 1))
        #expect(all[2].reject?.finding.code == .rowMalformed)
        #expect(all[2].reject?.text == "7")
        #expect(all[3].record?.fields == [])
    }

    @Test(arguments: ["{\"vehicles\": [{\"id\": 1}, {\"id\": 2}]}", "[{\"vehicles\": [{\"id\": 1}, {\"id\": 2}]}]",
                      " {\"vehicles\":[{\"id\":1},{\"id\":2}], \"count\": 2} "])
    func wrappers(_ text: String) throws {
        let (reader, all) = try items(text, chunk: 3)
        #expect(reader.wrapperKey == "vehicles")
        #expect(all.compactMap(\.record).map { $0["id"] } == [.number("1"), .number("2")])
    }

    /// API envelopes: the record array under a known wrapper key need not come first, and the
    /// other members may be objects or arrays (the whole object was one record).
    @Test(arguments: [1, 7, 1 << 20])
    func wrapperKeyAfterOtherMembers(chunk: Int) throws {
        let texts = [
            "{\"total\": 2, \"vehicles\": [{\"id\": 1}, {\"id\": 2}]}",
            "{\"meta\": {\"page\": 1, \"tags\": [1]}, \"vehicles\": [{\"id\": 1}, {\"id\": 2}], \"links\": [\"x\"]}",
            "[{\"count\": 2, \"Vehicles\": [{\"id\": 1}, {\"id\": 2}]}]",
            "{\"vehicles\": [{\"id\": 1}, {\"id\": 2}], \"page\": {\"next\": null}}",
        ]
        for text in texts {
            let (reader, all) = try items(text, chunk: chunk)
            #expect(reader.wrapperKey?.lowercased() == "vehicles", "\(text)")
            #expect(all.compactMap(\.record).map { $0["id"] } == [.number("1"), .number("2")], "\(text)")
        }
        // Any other key that is not first stays a member of one record.
        let (reader, all) = try items("{\"id\": 3, \"images\": [{\"u\": 1}], \"meta\": {\"a\": 1}}", chunk: chunk)
        #expect(reader.wrapperKey == nil)
        #expect(all.count == 1)
        #expect(all.first?.record?["id"] == .number("3"))
    }

    /// Two record arrays in one input (`{"vehicles": [...], "locations": [...]}`) are refused with
    /// both names and a way to split the file: the second array was read as one record naming no
    /// source, or, in a file too large to look at whole, skipped without a word.
    @Test(arguments: [1, 7, 1 << 20])
    func twoRecordArraysAreRefused(chunk: Int) throws {
        let big = String(repeating: "{\"id\": 1, \"notes\": \"\(String(repeating: "x", count: 100))\"},", count: 20_000)
        let texts = [
            "{\"vehicles\": [{\"id\": 1}], \"locations\": [{\"lat\": 1, \"long\": 2}]}",
            "[{\"vehicles\": [{\"id\": 1}], \"locations\": [{\"lat\": 1, \"long\": 2}]}]",
            "{\"count\": 1, \"vehicles\": [\(big){\"id\": 2}],\n \"locations\": [{\"lat\": 1, \"long\": 2}]}",
        ]
        for text in texts {
            do {
                _ = try items(text, chunk: chunk)
                Issue.record("read without an error: \(text.prefix(60))")
            } catch let error as VinyardError {
                #expect(error.code == .malformedInput)
                #expect("\(error)".contains("\"vehicles\" and \"locations\" are 2 record arrays"), "\(error)")
                #expect("\(error)".contains("jq '.locations'"), "\(error)")
            }
        }
        // An empty known list beside the records, or lists of a vehicle's own, are no second array.
        let (reader, all) = try items("{\"vehicles\": [{\"id\": 1}], \"count\": 1, \"data\": []}", chunk: chunk)
        #expect(reader.wrapperKey == "vehicles")
        #expect(all.compactMap(\.record).map { $0["id"] } == [.number("1")])
        let (vehicle, one) = try items("{\"vin\": \"X\", \"items\": [{\"a\": 1}], \"records\": [{\"b\": 2}]}", chunk: chunk)
        #expect(vehicle.wrapperKey == nil)
        #expect(one.count == 1)
        // Records whose lists stand under generic API keys are records, alone or in an array
        // (found by review: they were refused as two record arrays).
        let record = "{\"id\": 1, \"make\": \"Ford\", \"items\": [{\"sku\": \"x\"}], \"records\": [{\"d\": 1}]}"
        for text in [record, "[\(record), \(record)]", "{\"id\": 1, \"items\": [{\"a\": 1}], \"data\": [{\"b\": 2}]}"] {
            let (plain, records) = try items(text, chunk: chunk)
            #expect(plain.wrapperKey == nil, "\(text)")
            #expect(records.allSatisfy { $0.record?["id"] == .number("1") }, "\(text)")
        }
        // A vehicle whose VIN goes by an alias (FIN, Chassis number) is a vehicle with lists too.
        for vinKey in ["FIN", "Chassis Number"] {
            let vehicleRecord = "{\"\(vinKey)\": \"1FTFW1E57KFA14352\", \"items\": [{\"sku\": \"x\"}]}"
            let (aliased, both) = try items("[\(vehicleRecord), \(vehicleRecord)]", chunk: chunk)
            #expect(aliased.wrapperKey == nil, "\(vinKey)")
            #expect(both.compactMap(\.record).map { $0[vinKey] } == [.string("1FTFW1E57KFA14352"), .string("1FTFW1E57KFA14352")])
        }
        // Vehicles under a source's wrapper key, the first one not an object, beside an empty
        // generic list: the vehicles are the records (the empty list was, and nothing was read).
        let (mixed, two) = try items("{\"vehicles\": [null, {\"id\": 2}], \"data\": []}", chunk: chunk)
        #expect(mixed.wrapperKey == "vehicles")
        #expect(two.count == 2)
        #expect(two.first?.reject?.finding.code == .rowMalformed)
        #expect(two.last?.record?["id"] == .number("2"))
    }

    /// An API's pages saved as one array (`[{"vehicles": [...]}, {"vehicles": [...]}]`): every
    /// page's records, in order, with element indices running on (it was exit 64: the outer
    /// objects were taken as records with no known keys).
    @Test(arguments: [1, 5, 1 << 20])
    func pagedArrayOfWrappers(chunk: Int) throws {
        let text = "[{\"page\": 1, \"vehicles\": [{\"id\": 1}, {\"id\": 2}]},\n {\"vehicles\": []},\n"
            + " {\"vehicles\": [{\"id\": 3}], \"next\": null}]"
        let (reader, all) = try items(text, chunk: chunk)
        #expect(reader.wrapperKey == "vehicles")
        #expect(all.compactMap(\.record).map { $0["id"] } == [.number("1"), .number("2"), .number("3")])
        #expect(all.compactMap(\.record).map(\.provenance.index) == [0, 1, 2])
        #expect(all.last?.record?.provenance.line == 3)
        // A page without the key is a fatal error that names the key and the place.
        #expect {
            _ = try items("[{\"vehicles\": [{\"id\": 1}]},\n {\"total\": 1}]", chunk: chunk)
        } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("mem:2:") && "\($0)".contains("\"vehicles\"") }
        // Not followed by another object: a bare array whose first record has a list.
        let (bare, two) = try items("[{\"vehicles\": [{\"id\": 1}]}, 7]", chunk: chunk)
        #expect(bare.wrapperKey == nil)
        #expect(two.count == 2)
        // Records whose first member is a list of objects under another key stay records.
        let (plain, records) = try items("[{\"options\": [{\"k\": 1}], \"id\": 3}, {\"options\": [{\"k\": 2}], \"id\": 4}]", chunk: chunk)
        #expect(plain.wrapperKey == nil)
        #expect(records.compactMap(\.record).map { $0["id"] } == [.number("3"), .number("4")])
    }

    @Test func objectWithArrayMemberIsOneRecord() throws {
        let (reader, all) = try items("{\"tags\": [1, 2], \"id\": 3}")
        #expect(reader.wrapperKey == nil)
        #expect(all.count == 1)
        #expect(all[0].record?["id"] == .number("3"))
        let (_, single) = try items("[{\"specs\": [{\"k\": 1}], \"id\": 3}, {\"id\": 4}]")
        #expect(single.compactMap(\.record).count == 2)
    }

    /// A vehicle with a VIN and a list of objects under a key that can name an envelope (`items`,
    /// `data`, `records`) is a record, alone, in an array, or one of several (it was read as an
    /// envelope, or as pages, and its list's objects as the records).
    @Test(arguments: [
        "{\"vin\": \"1FTFW1E57KFA14352\", \"items\": [{\"name\": \"mats\"}]}",
        "[{\"vin\": \"1FTFW1E57KFA14352\", \"items\": [{\"name\": \"mats\"}]}]",
        "[{\"vin\": \"1FTFW1E57KFA14352\", \"data\": [{\"name\": \"mats\"}]}, {\"vin\": \"1HGCV1F52MA000123\", \"data\": [{\"name\": \"box\"}]}]",
    ])
    func vehicleWithAListUnderAnEnvelopeKeyIsARecord(text: String) throws {
        let (reader, all) = try items(text)
        #expect(reader.wrapperKey == nil)
        #expect(all.compactMap(\.record).allSatisfy { $0["vin"] != nil })
        #expect(all.count == (text.contains("1HGCV") ? 2 : 1))
    }

    /// A syntax error inside an element is that element's reject (with the error's line and
    /// column); reading goes on with the next element (DESIGN.md "Inputs").
    @Test(arguments: [1, 3, 1 << 20])
    func malformedElementIsARejectAndReadingGoesOn(chunk: Int) throws {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        let text = "[\n {\"a\": 1},\n {\"a\": 2,},\n {\"a\": \"x,}\\\"]\", \"b\": [1, {\"c\": 2}, ,]},\n"
            + " {\"d\": \(deep)},\n {\"a\": 5}\n]"
        let (_, all) = try items(text, chunk: chunk)
        #expect(all.count == 5)
        #expect(all[0].record?["a"] == .number("1"))
        #expect(all[1].reject?.finding.code == .rowMalformed)
        #expect(all[1].reject?.provenance == Provenance(input: "mem", line: 3, index: 1))
        #expect(all[1].reject?.text == "{\"a\": 2,}")
        #expect(all[1].reject?.finding.message.contains("mem:3:") == true)
        #expect(all[2].reject?.text.hasSuffix(", ,]}") == true, "a bracket inside a string does not end the element")
        #expect(all[3].reject?.finding.message.contains("deeper") == true)
        #expect(all[4].record?["a"] == .number("5"))
        #expect(all[4].record?.provenance.line == 6)
    }

    /// The same inside a wrapper (`{"vehicles": [...]}`, `[{"vehicles": [...]}]`): the bad element
    /// is one reject, the others are records (it was fatal, or the whole wrapper one reject).
    @Test(arguments: [1, 1 << 20], ["{\"vehicles\": [\n", "[{\"vehicles\": [\n"])
    func malformedElementInsideAWrapper(chunk: Int, opening: String) throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let closing = opening.hasPrefix("[") ? "]}]" : "]}"
        let text = opening + "{\"id\": 1},\n{\"id\": tru},\n\(deep),\n{\"id\": 4}\n" + closing
        let (reader, all) = try items(text, chunk: chunk)
        #expect(reader.wrapperKey == "vehicles")
        #expect(all.count == 4)
        #expect(all.compactMap(\.record).map { $0["id"] } == [.number("1"), .number("4")])
        #expect(all.compactMap(\.reject).map(\.provenance.line) == [3, 4])
        #expect(all[2].reject?.finding.message.contains("deeper") == true)
        // A single record that does not parse is still fatal, and an object that is one record
        // of an array is still read as a record, not as a wrapper.
        #expect(throws: VinyardError.self) { _ = try items("{\"tags\": [1], \"id\": tru}") }
        let (plain, records) = try items("[{\"specs\": [{\"k\": 1}], \"id\": tru}, {\"id\": 4}]")
        #expect(plain.wrapperKey == nil)
        #expect(records.compactMap(\.record).map { $0["id"] } == [.number("4")])
    }

    @Test func errorsOutsideElementsAreFatalWithLineAndColumn() throws {
        #expect {
            _ = try items("[\n {\"a\": 1}\n {\"a\": 2}\n]")
        } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("mem:3:") }
        // An element whose end cannot be found (the input ends inside it).
        #expect {
            _ = try items("[{\"a\": 1},\n{\"a\": \"open}]")
        } throws: { ($0 as? VinyardError)?.code == .malformedInput && "\($0)".contains("mem:2:") }
        // A later page whose record key holds no array says so (it said only "expected '['").
        #expect {
            _ = try items("[{\"vehicles\": [{\"a\": 1}]},\n{\"vehicles\": null}]")
        } throws: { "\($0)".contains("mem:2:") && "\($0)".contains("\"vehicles\" is not an array (found 'n')") }
    }

    @Test(arguments: ["", "   ", "42", "[1]]", "{\"a\":1}{\"b\":2}", "{\"a\": 1,}"])
    func malformedInputs(_ text: String) throws {
        #expect(throws: VinyardError.self) { _ = try items(text) }
    }
}

@Suite struct JSONLinesReaderTests {
    @Test func badLineIsARejectAndReadingGoesOn() throws {
        let text = "{\"a\":1}\n\n{\"a\":\n[1]\n{\"a\":2}   \r\n{\"a\":3} x\n{\"a\":4}"
        let items = try readAll(try JSONLinesReader(source: MemorySource(text, chunk: 4)))
        #expect(items.compactMap(\.record).map { $0["a"] } == [.number("1"), .number("2"), .number("4")])
        #expect(items.compactMap(\.record).map(\.provenance.line) == [1, 5, 7])
        #expect(items.compactMap(\.reject).map(\.provenance.line) == [3, 4, 6])
        #expect(items.compactMap(\.reject).allSatisfy { $0.finding.code == .rowMalformed })
        #expect(items.compactMap(\.reject).first?.text == "{\"a\":")
    }

    @Test func windows1252Line() throws {
        let bytes = Array("{\"n\":\"M".utf8) + [0xFC] + Array("ller\"}\n".utf8)
        let items = try readAll(try JSONLinesReader(source: MemorySource(bytes)))
        #expect(items.first?.record?["n"] == .string("Müller"))
        #expect(items.first?.record?.decodedAsWindows1252 == true)
    }
}
