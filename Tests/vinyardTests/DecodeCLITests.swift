import Foundation
import Testing

@Suite struct DecodeCLITests {
    @Test func jsonForHonda() throws {
        let r = try runVinyard(["decode", "1HGCM82633A004352", "--format", "json"])
        #expect(r.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        let o = try #require(array.first)
        #expect(Set(o.keys) == [
            "vin", "valid", "findings", "expected_check_digit", "suggestion", "region", "country", "manufacturer",
            "model_years", "model_year", "plant", "serial",
        ])
        #expect(o["vin"] as? String == "1HGCM82633A004352")
        #expect(o["valid"] as? Bool == true)
        #expect(o["manufacturer"] as? String == "Honda")
        #expect(o["country"] as? String == "United States")
        #expect(o["model_year"] as? Int == 2003)
        #expect(o["suggestion"] is NSNull)
        #expect(o["expected_check_digit"] as? String == "3")
    }

    @Test func typoIsReportedWithSuggestionAndExitZero() throws {
        let r = try runVinyard(["decode", "1hgcm8z633a004352", "--format", "json"])
        #expect(r.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        let o = try #require(array.first)
        #expect(o["valid"] as? Bool == false)
        #expect(o["suggestion"] as? String == "1HGCM82633A004352")
        let findings = try #require(o["findings"] as? [[String: Any]])
        #expect(findings.first?["code"] as? String == "vin.check_digit")
        #expect(findings.first?["severity"] as? String == "error")
    }

    @Test func readsStandardInput() throws {
        let input = "1FTFW1E57KFA14352\n\nKNAFU4A2XD5739551\r\n11111111111111111\n"
        let r = try runVinyard(["decode", "-", "--format", "json"], stdin: Data(input.utf8))
        #expect(r.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        #expect(array.count == 3)
        #expect(array[1]["manufacturer"] as? String == "Kia")
        #expect(array[2]["valid"] as? Bool == false)
    }

    /// A VIN list saved by a Windows editor starts with a UTF-8 byte-order mark: it is not part of
    /// the first VIN (which was reported as 18 characters, INVALID).
    @Test func standardInputWithByteOrderMark() throws {
        let input = Data([0xEF, 0xBB, 0xBF]) + Data("1FTFW1E57KFA14352\r\nJM1GJ1W65E1143959\r\n".utf8)
        let r = try runVinyard(["decode", "-", "--format", "json"], stdin: input)
        #expect(r.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array.first?["vin"] as? String == "1FTFW1E57KFA14352")
        #expect(array.first?["valid"] as? Bool == true)
    }

    @Test func textListsFindingsFirst() throws {
        let r = try runVinyard(["decode", "WVWZZZ1JZXW000001", "12345678901234567"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("WVWZZZ1JZXW000001: valid"))
        #expect(r.stdout.contains("warning vin.check_digit"))
        #expect(r.stdout.contains("12345678901234567: INVALID"))
        #expect(r.stdout.contains("error vin.placeholder"))
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count > 4)
        #expect(lines[1].contains("vin.check_digit"))
    }

    @Test func noVINIsUsageError() throws {
        let r = try runVinyard(["decode"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("no VIN"))
        let empty = try runVinyard(["decode", "-"], stdin: Data())
        #expect(empty.status == 64)
    }

    @Test func badFormatIsUsageError() throws {
        let r = try runVinyard(["decode", "1HGCM82633A004352", "--format", "xml"])
        #expect(r.status == 64)
    }

    @Test func helpHasExamples() throws {
        let r = try runVinyard(["decode", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("1M8GDM9AXKP042788"))
    }
}

/// `decode` edge cases found by audit: an empty VIN is 0 characters long (it was called a
/// placeholder), and a list cut from a CSV column starts with its header, which is skipped (the
/// help's own `cut -d, -f1 fleet.csv | vinyard decode -` decoded "VIN" as a European VIN).
@Suite struct DecodeEdgeTests {
    @Test func emptyVINIsALengthFinding() throws {
        let r = try runVinyard(["decode", "--format", "json", ""])
        let decoded = try #require(JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        let codes = (decoded.first?["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["vin.length"], "\(r.stdout)")
    }

    /// Control characters of the input reach the terminal escaped, not as an escape sequence.
    @Test func controlCharactersAreShownEscaped() throws {
        let r = try runVinyard(["decode", "1FTFW1\u{1B}]0;x\u{07}"])
        #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(r.stdout)")
        #expect(r.stdout.hasPrefix("1FTFW1\\u{1B}]0;X\\u{7}: INVALID"), "\(r.stdout)")
    }

    @Test func headerOfAListIsSkipped() throws {
        let r = try runVinyard(["decode", "--format", "json", "-"], stdin: Data("VIN\n1FTFW1E57KFA14352\nvin\n".utf8))
        let decoded = try #require(JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]])
        // Only the first line is a header: a later "vin" is an entry (an invalid one).
        #expect(decoded.compactMap { $0["vin"] as? String } == ["1FTFW1E57KFA14352", "VIN"], "\(r.stdout)")
    }
}
