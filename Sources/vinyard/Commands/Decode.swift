import ArgumentParser
import Foundation
import VinyardKit

/// `vinyard decode VIN... [--format text|json]`: validates and decodes VINs offline.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate and decode VINs offline (check digit, typo repair, manufacturer, model year).",
        discussion: """
            Each VIN is normalized (trimmed, upper-cased, spaces and dashes removed), validated \
            (length, characters, check digit, model-year code, placeholders, known manufacturer code) \
            and decoded without any network access: region and country (ISO 3780), manufacturer \
            and make (NHTSA vPIC WMI table), candidate model years from position 10 and the best one \
            (the position-7 rule for cars and light trucks built for North America: North American \
            VINs with a known maker code, and Japanese and Korean ones with a right check digit and a known maker code; never \
            later than next year), plant \
            code and serial number.

            A wrong check digit is an error for North American and Chinese VINs and a warning \
            elsewhere. When one common typo (O/0, I/1, Q/0, S/5, B/8, Z/2) explains it, \
            the probable intended VIN is suggested.

            Examples:
              vinyard decode 1HGCM82633A004352
              vinyard decode 1HGCM82633A004352 KNAFU4A2XD5739551 --format json
              vinyard decode 1M8GDM9AXKP042788          # check digit X
              vinyard decode 1HGCM8Z633A004352          # Z typed for 2: suggests 1HGCM82633A004352
              tail -n +2 fleet.csv | cut -d, -f1 | vinyard decode - --format json

            Exit status: 0 when the VINs were decoded, even if some are invalid; 64 when no VIN is \
            given; 65 when a line of standard input is longer than 1,024 bytes; 74 when the output \
            cannot be written.
            """
    )

    @Argument(help: "VINs to decode; `-` reads VINs from standard input, one per line.")
    var vins: [String] = []

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func run() throws {
        try reportingErrors {
            // VINs are decoded and written one at a time, arguments in order and `-` as standard
            // input's lines: memory stays flat for a list of millions (every VIN, its analysis and
            // the whole output were held first: 211 MB for 200,000 VINs).
            var arguments = vins.makeIterator()
            var readingStandardInput = false
            // A byte-order mark (a list saved by a Windows editor) is not part of a VIN.
            let ignored = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}"))
            var firstLine = true
            var lines = StandardInputLines(limit: 1024, holding: "one VIN (17 characters)")
            func nextVIN() throws -> String? {
                while true {
                    if readingStandardInput {
                        if let line = try lines.next() {
                            let trimmed = line.trimmingCharacters(in: ignored)
                            // A column cut from a CSV starts with its header (`cut -d, -f1 fleet.csv`).
                            defer { if !trimmed.isEmpty { firstLine = false } }
                            if firstLine, VINEngine.isColumnName(trimmed) { continue }
                            if !trimmed.isEmpty { return trimmed }
                            continue
                        }
                        readingStandardInput = false
                    }
                    guard let vin = arguments.next() else { return nil }
                    if vin == "-" { readingStandardInput = true } else { return vin }
                }
            }
            guard var vin = try nextVIN() else {
                throw VinyardError(.usage, "no VIN given; pass VINs as arguments or `-` to read them from standard input")
            }
            let year = VINDecoder.currentCalendarYear
            let sink = try FileByteSink(path: "-")
            func write(_ text: String) throws {
                var text = text
                try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
            }
            if format == .json { try write("[") }
            var first = true
            while true {
                let analysis = VINEngine.analyze(vin, currentYear: year)
                switch format {
                case .json: try write((first ? "" : ",\n ") + DecodeOutput.object(analysis))
                case .text: try write((first ? "" : "\n") + DecodeOutput.text(analysis))
                }
                first = false
                guard let next = try nextVIN() else { break }
                vin = next
            }
            if format == .json { try write("]\n") }
            try sink.close()
        }
    }
}

/// Renders decode results as text or as the JSON array of DESIGN.md.
enum DecodeOutput {
    static func text(_ a: VINAnalysis) -> String {
        var lines = ["\(a.normalized.isEmpty ? "(empty)" : visible(a.normalized)): \(a.valid ? "valid" : "INVALID")"]
        for f in a.findings {
            lines.append("  \(f.severity.rawValue) \(f.code): \(visible(f.message))")
        }
        func row(_ label: String, _ value: String?) {
            if let value { lines.append("  \(label.padding(toLength: 13, withPad: " ", startingAt: 0))\(value)") }
        }
        row("check digit", a.expectedCheckDigit.map { "expected \($0)" })
        row("suggestion", a.suggestion)
        row("region", a.region)
        row("country", a.country)
        row("manufacturer", a.make.map { make in a.manufacturer.map { "\(make) (\($0))" } ?? make })
        if !a.modelYears.isEmpty {
            row("model year", "\(a.modelYear.map(String.init) ?? "?") (candidates \(a.modelYears.map(String.init).joined(separator: ", ")))")
        }
        row("plant", a.plant)
        row("serial", a.serial)
        return lines.joined(separator: "\n") + "\n"
    }

    static func object(_ a: VINAnalysis) -> String {
        let findings = a.findings.map {
            "{\"code\":\(string($0.code.rawValue)),\"severity\":\(string($0.severity.rawValue)),\"message\":\(string($0.message))}"
        }
        let fields: [(String, String)] = [
            ("vin", string(a.normalized)),
            ("valid", a.valid ? "true" : "false"),
            ("findings", "[" + findings.joined(separator: ",") + "]"),
            ("expected_check_digit", optional(a.expectedCheckDigit.map { String($0) })),
            ("suggestion", optional(a.suggestion)),
            ("region", optional(a.region)),
            ("country", optional(a.country)),
            ("manufacturer", optional(a.make ?? a.manufacturer)),
            ("model_years", "[" + a.modelYears.map(String.init).joined(separator: ",") + "]"),
            ("model_year", a.modelYear.map(String.init) ?? "null"),
            ("plant", optional(a.plant)),
            ("serial", optional(a.serial)),
        ]
        return "{" + fields.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Control characters of the input written as `\u{1B}`: a VIN holding an escape sequence
    /// (`1FTFW1\e]0;x\a`) reached the terminal as one.
    static func visible(_ s: String) -> String {
        s.shownInMessage
    }

    static func optional(_ s: String?) -> String { s.map(string) ?? "null" }

    /// A JSON string literal with the escapes RFC 8259 requires.
    static func string(_ s: String) -> String { JSONEscaping.quoted(s) }
}
