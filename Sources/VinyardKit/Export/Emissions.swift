import Foundation

/// Output formats of the emissions report.
public enum EmissionsFormat: String, Sendable, Hashable, CaseIterable {
    /// An aligned table ending with the fleet total and the vehicles left out.
    case text
    case csv, json, jsonl
    /// A FeatureCollection of points, one per vehicle with coordinates (the others are left out).
    case geojson
}

/// What an emissions run computed.
public struct EmissionsSummary: Sendable, Hashable {
    /// Vehicles with an emission estimate (rows written).
    public var vehicles: Int
    /// The sum of the rows' emissions (exact decimal).
    public var total: Decimal
    /// Vehicles matching the filters without a usable odometer reading (missing, negative or not
    /// a number): not estimated, not written as rows.
    public var withoutOdometer: Int
    /// The keys (VIN, or `source:id` for vehicles without one) of the first of those, by key.
    public var withoutOdometerKeys: [String]
    /// GeoJSON: vehicles with an estimate but without both coordinates, left out of the collection.
    public var withoutCoordinates = 0

    /// How many keys of vehicles without odometer are listed at most.
    public static let listedKeys = 20

    /// The lines the command prints about vehicles without odometer (empty when there are none).
    public var withoutOdometerLines: [String] {
        guard withoutOdometer > 0 else { return [] }
        var lines = ["\(withoutOdometer) vehicle\(withoutOdometer == 1 ? "" : "s") without a usable odometer_km reading (not estimated):"]
        lines += withoutOdometerKeys.map { "  " + $0 }
        if withoutOdometer > withoutOdometerKeys.count {
            lines.append("  … and \(withoutOdometer - withoutOdometerKeys.count) more")
        }
        return lines
    }
}

/// Per-vehicle estimated carbon from `odometer_km` (see ``EmissionTiers``), over the vehicles a
/// query selects. Default columns: `vin, make, model, odometer_km, emissions`. `--columns` may
/// name any vehicle column (`key` for `_key`, useful for vehicles keyed without a VIN) plus
/// `emissions`; `--sort emissions` sorts by odometer (the same order, since rates are never
/// negative). Vehicles without a usable odometer are counted and listed, not silently dropped.
public struct EmissionsCalculator {
    public let store: VinyardStore
    public var tiers: EmissionTiers
    /// CSV only: the cell delimiter (a tab for a `.tsv` output).
    public var delimiter = UInt8(ascii: ",")
    /// A progress line for vehicles written.
    public var progress: ProgressLine?

    /// The contract's columns.
    public static let defaultColumns = ["vin", "make", "model", "odometer_km", "emissions"]

    public init(store: VinyardStore, tiers: EmissionTiers = .standard) {
        self.store = store
        self.tiers = tiers
        store.tuneForReading()
    }

    /// Writes the report for the vehicles `query` selects (its `table` must be a vehicles table
    /// with `odometer_km`), then closes the sink.
    /// - Throws: `.usage` for unknown fields, a filter on `emissions`, or a table without
    ///   `odometer_km`; `.store`/`.io` on failures.
    @discardableResult
    public func run(_ query: ExportQuery, format: EmissionsFormat, to sink: any ByteSink) throws -> EmissionsSummary {
        if let limit = query.limit, limit < 0 { throw VinyardError(.usage, "--limit must be 0 or more") }
        let table = try ExportTable(store: store, table: query.table)
        guard let odometer = try? table.column(named: "odometer_km", option: "emissions"), odometer.kind.isNumeric else {
            throw VinyardError(.usage, "table \(table.name) has no numeric odometer_km column to estimate emissions from")
        }
        if let c = query.conditions.first(where: { Schema.fold($0.field) == "emissions" }) {
            throw VinyardError(
                .usage, "--where \(c.field): emissions can be sorted on but not filtered; filter on odometer_km instead")
        }
        // Output columns: nil is the computed emissions column.
        var output: [ExportTable.Column?] = []
        for name in query.columns ?? Self.defaultColumns {
            if Schema.fold(name) == "emissions" {
                guard !output.contains(where: { $0 == nil }) else {
                    throw VinyardError(.usage, "--columns: emissions appears twice")
                }
                output.append(nil)
            } else {
                let column = try table.column(named: name, option: "--columns")
                guard !output.contains(column) else { throw VinyardError(.usage, "--columns: '\(name)' names \(column.name) twice") }
                output.append(column)
            }
        }
        let sort = query.sort.map { key in
            Schema.fold(key.field) == "emissions" ? SortKey(field: odometer.name, descending: key.descending) : key
        }
        let o = quoteIdentifier(odometer.name)
        let usable = "typeof(\(o)) IN ('integer','real') AND \(o) >= 0"
        let shown = output.compactMap { $0 }
        var select = shown + [odometer, try table.column(named: table.keyColumn, option: "key")]
        var extraTerms = [usable]
        var located = ""  // GeoJSON: the rows with both coordinates
        if format == .geojson {
            // Points need both coordinates: vehicles without them are left out of the collection.
            guard let (lat, lon) = table.coordinateColumns else {
                throw VinyardError(.usage, "--format geojson needs latitude and longitude columns; table \(table.name) has none")
            }
            select += [lat, lon]
            located = "\(ExportTable.isNumberTerm(lat)) AND \(ExportTable.isNumberTerm(lon))"
            extraTerms.append(located)
        }
        let compiled = try table.compile(
            select: select, conditions: query.conditions, extraTerms: extraTerms, sort: sort, limit: query.limit)

        var summary = try missing(table: table, conditions: query.conditions, usable: usable)
        if !located.isEmpty {
            summary.withoutCoordinates = try count(table: table, conditions: query.conditions, terms: [usable, "NOT (\(located))"])
        }
        // The text table shows a vehicle without a VIN as `[key]` in the vin column: as wide as
        // the longest such key, so the other columns stay aligned.
        var keyWidth = 0
        if format == .text, let vin = output.first(where: { $0?.name == "vin" }) ?? nil {
            keyWidth = try longestKey(table: table, query: query, sort: sort, extraTerms: extraTerms, vin: vin) + 2
        }
        // A key column (`--columns key,…`) is shown whole, as wide as its longest key.
        var keyColumnWidth = 0
        if format == .text, output.contains(where: { $0?.name == table.keyColumn }) {
            keyColumnWidth = try longestKey(table: table, query: query, sort: sort, extraTerms: extraTerms, vin: nil)
        }
        let statement = try store.prepareQuery(compiled.sql, arguments: compiled.arguments)
        var writer = EmissionsWriter(
            sink: sink, format: format, columns: output, tiers: tiers, bracketedKeyWidth: keyWidth,
            keyColumn: (table.keyColumn, keyColumnWidth), delimiter: delimiter)
        let odometerIndex = shown.count
        let keyIndex = odometerIndex + 1
        var total = Decimal(0)
        // Whole-km readings are summed in fixed point (`fixedTotal`), the rest in `Decimal`.
        let fixed = tiers.fixedPoint()
        var fixedTotal: Int64 = 0
        var rows = 0
        progress?.begin("emissions", totalBytes: nil)
        defer { progress?.finish() }
        do {
            writer.begin()
            var cells: [EmissionsWriter.Cell] = []
            while try statement.step() {
                let km = statement.double(odometerIndex)
                let text: String
                if let fixed, let e = fixed.emissions(km: km), case let (sum, overflow) = fixedTotal.addingReportingOverflow(e), !overflow {
                    fixedTotal = sum
                    text = fixed.text(e)
                } else {
                    let emissions = tiers.emissions(km: km)
                    total += emissions
                    text = "\(emissions)"
                }
                cells.removeAll(keepingCapacity: true)
                var i = 0
                for column in output {
                    guard let column else {
                        cells.append(.number(text))
                        continue
                    }
                    cells.append(EmissionsWriter.Cell(statement.value(i), kind: column.kind))
                    i += 1
                }
                let point = format == .geojson ? (statement.double(keyIndex + 2), statement.double(keyIndex + 1)) : nil
                try writer.write(cells, key: statement.text(keyIndex) ?? "", point: point)
                rows += 1
                if rows & 0x3FFF == 0 { progress?.update(records: rows) }
            }
            summary.vehicles = rows
            summary.total = total + (fixed?.decimal(fixedTotal) ?? 0)
            try writer.finish(summary)
        } catch let error as StoreError {
            try? sink.close()
            throw VinyardError(.store, "reading \(table.name) from \(store.path) failed", cause: error)
        }
        return summary
    }

    /// The length of the longest key of a row `conditions` and `extraTerms` select (whose `vin` is
    /// null, when `vin` is given); 0 when there is none.
    /// The longest key of the rows shown (with `vin`: of those without a VIN). With `--limit`,
    /// of the first rows in the output's order only: the column was as wide as a key far down the
    /// table that no printed row had.
    private func longestKey(table: ExportTable, query: ExportQuery, sort: [SortKey], extraTerms: [String], vin: ExportTable.Column?)
        throws -> Int
    {
        let key = quoteIdentifier(table.keyColumn)
        let sql: String
        let arguments: [FieldValue?]
        if query.limit != nil {
            var select = [try table.column(named: table.keyColumn, option: "key")]
            if let vin { select.append(vin) }
            let rows = try table.compile(
                select: select, conditions: query.conditions, extraTerms: extraTerms, sort: sort, limit: query.limit)
            sql = "SELECT max(length(\(key))) FROM (\(rows.sql))" + (vin.map { " WHERE \(quoteIdentifier($0.name)) IS NULL" } ?? "")
            arguments = rows.arguments
        } else {
            let (terms, whereArguments) = try table.whereTerms(query.conditions)
            let whereSQL = (terms + extraTerms + (vin.map { ["\(quoteIdentifier($0.name)) IS NULL"] } ?? []))
                .joined(separator: " AND ")
            sql = "SELECT max(length(\(key))) FROM \(quoteIdentifier(table.name)) WHERE \(whereSQL)"
            arguments = whereArguments
        }
        do {
            let statement = try store.prepareQuery(sql, arguments: arguments)
            guard try statement.step(), !statement.isNull(0) else { return 0 }
            return Int(statement.int64(0))
        } catch let error as StoreError {
            throw VinyardError(.store, "reading \(table.name) from \(store.path) failed", cause: error)
        }
    }

    /// How many rows `conditions` and `terms` select.
    private func count(table: ExportTable, conditions: [Condition], terms extra: [String]) throws -> Int {
        let (terms, arguments) = try table.whereTerms(conditions)
        do {
            let count = try store.prepareQuery(
                "SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE \((terms + extra).joined(separator: " AND "))",
                arguments: arguments)
            return try count.step() ? Int(count.int64(0)) : 0
        } catch let error as StoreError {
            throw VinyardError(.store, "reading \(table.name) from \(store.path) failed", cause: error)
        }
    }

    private func missing(table: ExportTable, conditions: [Condition], usable: String) throws -> EmissionsSummary {
        var summary = EmissionsSummary(vehicles: 0, total: 0, withoutOdometer: 0, withoutOdometerKeys: [])
        summary.withoutOdometer = try count(table: table, conditions: conditions, terms: ["NOT (\(usable))"])
        guard summary.withoutOdometer > 0 else { return summary }
        let (terms, arguments) = try table.whereTerms(conditions)
        let whereSQL = (terms + ["NOT (\(usable))"]).joined(separator: " AND ")
        let key = quoteIdentifier(table.keyColumn)
        do {
            let list = try store.prepareQuery(
                "SELECT \(key) FROM \(quoteIdentifier(table.name)) WHERE \(whereSQL) ORDER BY \(key) LIMIT \(EmissionsSummary.listedKeys)",
                arguments: arguments)
            while try list.step() { summary.withoutOdometerKeys.append(list.text(0) ?? "") }
        } catch let error as StoreError {
            throw VinyardError(.store, "reading \(table.name) from \(store.path) failed", cause: error)
        }
        return summary
    }
}

/// Writes emission rows as a text table, CSV, JSON or JSON Lines.
struct EmissionsWriter {
    enum Cell {
        /// `json`: an array column's JSON text, written into JSON as it is.
        case null, text(String), number(String), bool(Bool), json(String)

        init(_ value: FieldValue?, kind: ExportTable.Kind) {
            switch value {
            case nil: self = .null
            case .text(let s)? where kind == .array && s.hasPrefix("[") && s.hasSuffix("]"): self = .json(s)
            case .text(let s)?: self = .text(s)
            case .integer(let i)? where kind == .boolean: self = .bool(i != 0)
            case .integer(let i)?: self = .number(String(i))
            case .real(let d)?: self = d.isFinite ? .number(FieldValue.decimalText(d)) : .null
            case .bool(let b)?: self = .bool(b)
            }
        }

        var text: String {
            switch self {
            case .null: ""
            case .text(let s), .number(let s), .json(let s): s
            case .bool(let b): b ? "true" : "false"
            }
        }
    }

    private var out: OutputBuffer
    private let format: EmissionsFormat
    private let names: [String]
    private let numeric: [Bool]
    private let widths: [Int]
    /// Columns never shortened with `…` in the text table: identifiers.
    private let wholeColumns: Set<String>
    private let tiers: EmissionTiers
    private let delimiter: UInt8
    private var rows = 0

    /// `bracketedKeyWidth`: the widest `[key]` the text table shows in the vin column;
    /// `keyColumn`: the table's key column and its widest value, shown whole when it is a column.
    init(
        sink: any ByteSink, format: EmissionsFormat, columns: [ExportTable.Column?], tiers: EmissionTiers,
        bracketedKeyWidth: Int = 0, keyColumn: (name: String, width: Int) = ("_key", 0),
        delimiter: UInt8 = UInt8(ascii: ",")
    ) {
        self.delimiter = delimiter
        out = OutputBuffer(sink: sink)
        self.format = format
        self.tiers = tiers
        names = columns.map { $0?.name ?? "emissions" }
        numeric = columns.map { $0?.kind.isNumeric ?? true }
        widths = zip(names, numeric).map { name, numeric in
            if name == keyColumn.name { return max(name.count, keyColumn.width) }
            return max(name.count, name == "vin" ? max(17, bracketedKeyWidth) : numeric ? 12 : 16)
        }
        wholeColumns = Set(["vin", keyColumn.name])
    }

    mutating func begin() {
        switch format {
        case .text:
            out.append("Estimated emissions (tiers \(tiers): units per km by odometer band)\n\n")
            appendTextLine(names)
        case .csv:
            out.append(names.joined(separator: String(UnicodeScalar(delimiter))) + "\n")
        case .json:
            out.append("[" as StaticString)
        case .jsonl:
            break
        case .geojson:
            out.append("{\"type\":\"FeatureCollection\",\"features\":[" as StaticString)
        }
    }

    /// Writes one vehicle's row; `point` (longitude, latitude) for GeoJSON.
    mutating func write(_ cells: [Cell], key: String, point: (Double, Double)? = nil) throws {
        switch format {
        case .text:
            var texts = cells.map(\.text)
            // A vehicle keyed without a VIN shows its key in brackets in the vin column.
            if let v = names.firstIndex(of: "vin"), case .null = cells[v] { texts[v] = "[\(key)]" }
            appendTextLine(texts)
        case .csv:
            for (i, cell) in cells.enumerated() {
                if i > 0 { out.append(delimiter) }
                var text = cell.text
                let isText: Bool
                if case .text = cell { isText = true } else { isText = false }
                text.withUTF8 {
                    out.appendCSVCell(bytes: UnsafeRawBufferPointer($0), delimiter: delimiter, guardFormula: isText)
                }
            }
            out.append(0x0A)
        case .json, .jsonl, .geojson:
            if format != .jsonl { out.append(rows == 0 ? "\n" as StaticString : ",\n") }
            if format == .geojson, let (lon, lat) = point { out.appendGeoJSONFeatureStart(longitude: lon, latitude: lat) }
            out.append(UInt8(ascii: "{"))
            for (i, cell) in cells.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.appendJSONString(names[i])
                out.append(UInt8(ascii: ":"))
                switch cell {
                case .null: out.append("null" as StaticString)
                case .text(let s): out.appendJSONString(s)
                case .number(let s), .json(let s): out.append(s)
                case .bool(let b): out.append(b ? "true" as StaticString : "false")
                }
            }
            out.append(UInt8(ascii: "}"))
            if format == .geojson { out.append(UInt8(ascii: "}")) }
            if format == .jsonl { out.append(0x0A) }
        }
        rows += 1
        try out.flushIfNeeded()
    }

    mutating func finish(_ summary: EmissionsSummary) throws {
        switch format {
        case .text:
            out.append("\nVehicles: \(summary.vehicles)\nFleet total: \(summary.total) units\n")
            if summary.withoutOdometer > 0 {
                out.append("\n" + summary.withoutOdometerLines.joined(separator: "\n") + "\n")
            }
        case .csv, .jsonl: break
        case .json: out.append(rows > 0 ? "\n]\n" as StaticString : "]\n")
        case .geojson: out.append(rows > 0 ? "\n]}\n" as StaticString : "]}\n")
        }
        try out.flush()
        try out.sink.close()
    }

    private mutating func appendTextLine(_ cells: [String]) {
        var line = ""
        line.reserveCapacity(160)
        for (i, cell) in cells.enumerated() {
            // One line per vehicle: a line break or tab inside a cell shows as a space.
            var text = cell.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
                ? String(cell.map { $0 == "\n" || $0 == "\r\n" || $0 == "\r" || $0 == "\t" ? " " : $0 }) : cell
            // Characters on screen: the byte count for ASCII (most cells), else the characters.
            var count = text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
            let width = widths[i]
            if !numeric[i], !wholeColumns.contains(names[i]), count > width {
                text = String(text.prefix(width - 1)) + "…"
                count = width
            }
            let pad = max(0, width - count)
            if i > 0 { line += "  " }
            if numeric[i] {
                line.append(contentsOf: repeatElement(" " as Character, count: pad))
                line += text
            } else {
                line += text
                line.append(contentsOf: repeatElement(" " as Character, count: pad))
            }
        }
        while line.utf8.last == 0x20 { line.removeLast() }
        line += "\n"
        out.append(line)
    }
}
