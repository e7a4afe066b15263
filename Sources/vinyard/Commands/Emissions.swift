import ArgumentParser
import Foundation
import VinyardKit

/// `vinyard emissions`: per-vehicle estimated carbon from odometer kilometres.
struct Emissions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Estimate per-vehicle carbon emissions from odometer kilometres.",
        discussion: """
            Each vehicle's estimate is 1 unit per km for the first 5,000 km and 1.5 units per km \
            beyond (5,000 km → 5000; 5,001 km → 5001.5). --tiers replaces the bands: \
            THRESHOLD:RATE pairs with ascending thresholds in km and * for the rest, e.g. \
            --tiers 5000:1,*:1.5 (the default) or --tiers 1000:0.5,20000:1,*:2. Arithmetic is \
            exact decimal.

            Columns: vin, make, model, odometer_km, emissions. Vehicles keyed without a VIN \
            (e.g. autoscout listings) have an empty vin; the text report shows their key in \
            brackets instead, and --columns key,make,model,odometer_km,emissions (any vehicle \
            column, plus emissions) writes the key in files. --where and --sort work as in \
            export (aliases allowed; sorting by emissions is sorting by odometer). Vehicles \
            without a usable odometer reading (missing, negative or not a number) are not \
            estimated: they are counted and listed (first 20 keys) at the end of the text \
            report, or on standard error for csv/json/jsonl/geojson.

            Format: --format, else the -o extension (.csv .json .jsonl .geojson, .txt for text), else \
            text on standard output (an aligned table ending with the fleet total) and csv for \
            other files.

            Examples:
              vinyard emissions --db fleet.db
              vinyard emissions --db fleet.db --where make=Toyota --sort emissions:desc --limit 10
              vinyard emissions --db fleet.db --tiers 10000:1,*:2 -o emissions.csv
              vinyard emissions --db fleet.db --where 'status in active,maintenance' --format json
            """)

    @OptionGroup var query: QueryOptions

    @Option(help: "Output format: text, csv, tsv, json, jsonl or geojson (points of the vehicles with coordinates; default: text on standard output).")
    var format: String?

    @Option(help: "Emission bands as THRESHOLD:RATE,…,*:RATE (default 5000:1,*:1.5).")
    var tiers: String?

    @Option(help: "Columns to write, comma-separated: vehicle fields and emissions; repeatable, the lists are joined.")
    var columns: [String] = []

    func run() throws {
        removeStagedOutputsOnSignal(command: "emissions")
        try reportingErrors {
            let output = query.output ?? "-"
            try checkOutputsAreNotRead([("-o", output)], reads: databaseFiles(query.db))
            let reportFormat: EmissionsFormat
            if let format {
                guard let f = EmissionsFormat(rawValue: OutputFormat.resolvingTSV(format).name) else {
                    throw VinyardError(.usage, "--format must be text, csv, tsv, json, jsonl or geojson, not '\(format)'")
                }
                reportFormat = f
            } else if output == "-" {
                reportFormat = .text
            } else if output.lowercased().hasSuffix(".txt") || output.lowercased().hasSuffix(".txt.gz") {
                reportFormat = .text
            } else {
                reportFormat = ExportFormat(fileName: output).flatMap { EmissionsFormat(rawValue: $0.rawValue) } ?? .csv
            }
            let bands = try tiers.map(EmissionTiers.parse) ?? .standard
            let parsed = try query.query(table: "vehicles", columns: columns.isEmpty ? nil : columns.joined(separator: ","))
            let store = try VinyardStore(path: query.db, readOnly: true)
            var calculator = EmissionsCalculator(store: store, tiers: bands)
            calculator.delimiter = OutputFormat.csvDelimiter(format: format, fileName: output)
            calculator.progress = query.progressLine()
            let sink = DeferredSink(path: output)
            let summary = try calculator.run(parsed, format: reportFormat, to: sink)
            if reportFormat != .text, !summary.withoutOdometerLines.isEmpty {
                StandardError.write((summary.withoutOdometerLines.joined(separator: "\n") + "\n"))
            }
            if summary.withoutCoordinates > 0 {
                let n = summary.withoutCoordinates
                StandardError.write("geojson: left out \(n) vehicle\(n == 1 ? "" : "s") without both latitude and longitude\n")
            }
        }
    }
}
