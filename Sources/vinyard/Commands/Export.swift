import ArgumentParser
import Foundation
import VinyardKit

/// `vinyard export`: a filtered, sorted table as CSV, JSON, JSON Lines or GeoJSON.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a table as CSV, JSON, JSON Lines or GeoJSON, filtered and sorted.",
        discussion: """
            Tables: vehicles (default), locations and other schema tables, and rejects, findings, \
            duplicates, import_runs. Rows are sorted by key (_key for schema tables, id for the \
            others) unless --sort says otherwise (missing values last, ascending or descending); \
            the key always breaks ties.

            --where 'FIELD OP VALUE' is one argument, spaces optional, repeatable (conditions are \
            ANDed). OP: = != < <= > >= , ~ (case-insensitive contains; % and _ are literal), \
            in (comma-separated values; a quoted value keeps its commas: \
            address in 'Berlin, Mitte',Paris). Field names may be schema aliases (year → \
            model_year, car_type → body_class). Numeric fields compare as numbers (a value that \
            is not a number is an error), boolean fields take true/false. On a text field of \
            vehicles or locations, = != and in normalize the value the way an imported one is \
            (fuel_type=Petrol finds gasoline, make=vw finds Volkswagen, a VIN loses its dashes) \
            and ignore case; < <= > >= compare text as stored, a date field's value read as a \
            date (2019, 2019-03, 03/2019; anything else is an error), a date-time as the instant \
            it stands for; on list fields (vin_model_years, options) = and in match an element, \
            != no element; other tables compare exactly as typed. 'FIELD=' matches empty or missing values, 'FIELD!=' non-empty ones; != keeps \
            rows where the field is missing. A value may be quoted: make='Land Rover'. Values \
            are always passed to SQLite as parameters, never as SQL.

            --columns a,b,c picks and orders columns (aliases allowed; the header uses the \
            column names). Bookkeeping columns (_key, _source, _input, _line, _run_id, …) are \
            left out by default but can be named in --columns, --where and --sort (key = _key).

            Format: --format, else the -o extension (.csv .json .jsonl .ndjson .geojson, after \
            any .gz), else csv. CSV text cells starting with = + - @ tab or CR get a leading ' so \
            spreadsheets do not run them as formulas (numbers are never changed); --raw-cells \
            turns this off. JSON values are typed: numbers, true/false for boolean fields, null. \
            GeoJSON writes a FeatureCollection of Points ([longitude, latitude]) with the other \
            columns as properties; rows without both coordinates are skipped and counted on \
            standard error.

            Examples:
              vinyard export --db fleet.db -o vehicles.csv
              vinyard export --db fleet.db --where make=BMW --where 'year>=2015' --sort odometer_km:desc
              vinyard export --db fleet.db --where 'status in active,maintenance' --columns vin,make,model,status -o active.json
              vinyard export --db fleet.db --where 'model~golf' --limit 100 -o golfs.jsonl.gz
              vinyard export --db fleet.db --table locations --format geojson -o locations.geojson
              vinyard export --db fleet.db --table rejects --where 'input~leasing' -o rejects.csv
            """)

    @OptionGroup var query: QueryOptions

    @Option(help: "The table to export.")
    var table = "vehicles"

    @Option(help: "Output format: csv, tsv, json, jsonl or geojson (default: from -o's extension, else csv).")
    var format: String?

    @Option(help: "Columns to write, comma-separated; repeatable, the lists are joined (default: all schema fields).")
    var columns: [String] = []

    @Flag(help: "Write CSV text cells as they are, without the spreadsheet formula guard.")
    var rawCells = false

    func run() throws {
        removeStagedOutputsOnSignal(command: "export")
        try reportingErrors {
            let output = query.output ?? "-"
            try checkOutputsAreNotRead([("-o", output)], reads: databaseFiles(query.db))
            let exportFormat: ExportFormat
            if let format {
                guard let f = ExportFormat(rawValue: OutputFormat.resolvingTSV(format).name) else {
                    throw VinyardError(.usage, "--format must be csv, tsv, json, jsonl or geojson, not '\(format)'")
                }
                exportFormat = f
            } else {
                exportFormat = ExportFormat(fileName: output) ?? .csv
            }
            let parsed = try query.query(table: table, columns: columns.isEmpty ? nil : columns.joined(separator: ","))
            let store = try VinyardStore(path: query.db, readOnly: true)
            var exporter = Exporter(store: store, guardFormulas: !rawCells)
            exporter.delimiter = OutputFormat.csvDelimiter(format: format, fileName: output)
            exporter.progress = query.progressLine()
            let sink = DeferredSink(path: output)
            let summary = try exporter.export(parsed, format: exportFormat, to: sink)
            if exportFormat == .geojson, summary.skippedWithoutCoordinates > 0 {
                let n = summary.skippedWithoutCoordinates
                StandardError.write("geojson: skipped \(n) row\(n == 1 ? "" : "s") without both latitude and longitude\n")
            }
        }
    }
}
