import ArgumentParser
import Foundation
import VinyardKit

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write deterministic, realistic fleet data for benchmarks and tests.",
        discussion: """
            Rows have 13 columns (vin, make, model, model_year, color, fuel_type, transmission, \
            odometer_km, license_plate, status, latitude, longitude, first_registration). VINs carry \
            correct check digits across many WMIs; makes, models and model years agree with the VIN; \
            fuel types come in mixed spellings (Petrol, Benzin, gasoline, EV, ...).

            With --dirty RATE, that fraction of rows carries exactly one defect drawn from the \
            finding codes (wrong check digit, I/O/Q, short VIN, placeholder, latitude out of range, \
            swapped or incomplete coordinates, unknown status, non-numeric odometer, duplicate, \
            conflicting duplicate). --truth FILE writes the counts a validation must report.

            Examples:
              vinyard generate --rows 1000000 -o fleet.csv
              vinyard generate --rows 50000 --dirty 0.05 --seed 7 -o dirty.csv --truth dirty.truth.json
              vinyard generate --rows 100000 --format jsonl -o fleet.jsonl.gz
            """
    )

    // `.unconditional`: a negative value is the option's, and is told what is wrong with it.
    @Option(parsing: .unconditional, help: "Number of rows to write.") var rows: Int
    @Option(parsing: .unconditional, help: "Seed: the same seed gives the same data.") var seed: UInt64 = 1
    @Option(parsing: .unconditional, help: "Fraction of rows (0...1) that carry exactly one defect.") var dirty: Double = 0
    @Option(help: "Output format: csv, tsv, jsonl or json (default: from -o's extension; csv on standard output).") var format: String?
    @Option(name: .shortAndLong, help: "Output file (`.gz` compresses); standard output by default.")
    var output = "-"
    @Option(help: "Write the expected validation counts as JSON to this file.") var truth: String?

    func validate() throws {
        if rows < 0 { throw ValidationError("--rows must be 0 or more.") }
        if !(0...1).contains(dirty) { throw ValidationError("--dirty must be between 0 and 1.") }
        if let format, OutputFormat(rawValue: OutputFormat.resolvingTSV(format).name) == nil {
            throw ValidationError("--format must be csv, tsv, jsonl or json.")
        }
        // `-o fleet.geojson` wrote CSV under that name without a word. Another name (`fleet.dat`,
        // a script's `fleet.csv.part`) still gets CSV.
        if format == nil, OutputFormat(fileName: output) == nil {
            var name = output.lowercased()
            if name.hasSuffix(".gz") { name.removeLast(3) }
            let other = [".geojson", ".xml", ".xlsx", ".xls", ".ods", ".parquet", ".avro", ".db", ".sqlite", ".yaml", ".yml"]
            if let ext = other.first(where: { name.hasSuffix($0) }) {
                throw ValidationError(
                    "generate cannot write \(ext) ('\(output)'); name it .csv, .tsv, .json or .jsonl (.gz compresses), or pass --format")
            }
        }
    }

    func run() throws {
        try reportingErrors {
            let format = format.flatMap { OutputFormat(rawValue: OutputFormat.resolvingTSV($0).name) } ?? OutputFormat(fileName: output) ?? .csv
            // `.tsv` (or --format tsv): tab-separated, as convert and export write it (it was commas).
            let delimiter = OutputFormat.csvDelimiter(format: self.format, fileName: output)
            try checkOutputsAreNotRead([("-o", output), ("--truth", truth)], reads: [])
            // The truth file first: a path that cannot be written fails before any row is made.
            let truthSink = try truth.map { try openOutput(path: $0) }
            let sink = try openOutput(path: output)
            let columns = FleetGenerator.columns
            let numeric: Set<Int> = [3, 7, 10, 11]
            let generator = FleetGenerator(rows: rows, seed: seed, dirtyRate: dirty) { vin in
                VINEngine.checkDigit(for: vin) ?? "0"
            }
            let result: FleetGenerator.Truth
            switch format {
            case .csv:
                let writer = CSVWriter(sink: sink, columns: columns, delimiter: delimiter)
                result = try generator.generate { try writer.writeRow($0) }
                try writer.finish()
            case .json, .jsonl:
                let writer: any RecordWriter =
                    format == .json ? JSONWriter(sink: sink) : JSONLinesWriter(sink: sink)
                result = try generator.generate { row in
                    var fields: [RawField] = []
                    fields.reserveCapacity(columns.count)
                    for (i, value) in row.enumerated() {
                        guard let value else { fields.append(RawField(columns[i], .null)); continue }
                        let isNumber = numeric.contains(i) && Double(value) != nil
                        fields.append(RawField(columns[i], isNumber ? .number(value) : .string(value)))
                    }
                    try writer.write(fields: fields)
                }
                try writer.finish()
            }
            if let truthSink {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let json = try encoder.encode(result)
                try json.withUnsafeBytes { try truthSink.write($0) }
                try truthSink.close()
            }
        }
    }
}
