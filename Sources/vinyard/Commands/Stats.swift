import ArgumentParser
import Foundation
import VinyardKit

/// `vinyard stats --db PATH [--format text|json]`: what a Vinyard database holds.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show rows per table, source and make, findings per code, and the latest import runs.",
        discussion: """
            Opens the database read-only and prints aligned tables: rows per table, per source and \
            per make (top 25), rejects and duplicates kept, warnings on loaded rows per finding code, \
            and the latest import runs with their counts (read = inserted + updated + unchanged + \
            duplicates + rejected). --format json prints the same as one JSON object.

            Exit status: 0; 65 when the file is not a Vinyard database; 66 when it does not exist.

            Examples:
              vinyard stats --db fleet.db
              vinyard stats --db fleet.db --format json | jq '.runs[0]'
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "The Vinyard SQLite database.")
    var db: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    func run() throws {
        try reportingErrors {
            let store = try VinyardStore(path: db, readOnly: true)
            let stats = try store.stats()
            let output: String
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.keyEncodingStrategy = .convertToSnakeCase
                let data: Data
                do { data = try encoder.encode(stats) } catch {
                    throw VinyardError(.io, "cannot encode the statistics as JSON: \(error)")
                }
                output = String(decoding: data, as: UTF8.self) + "\n"
            case .text:
                output = Self.text(stats)
            }
            try FileByteSink.writeStandardOutput(output)
        }
    }

    static func text(_ stats: StoreStats) -> String {
        var out = "Database: \(stats.path)\n"
        if stats.tables.isEmpty && stats.runCount == 0 {
            return out + "No imports yet.\n"
        }
        out += "\nTables\n" + table(["table", "rows"], stats.tables.map { [$0.name, "\($0.rows)"] })
        for t in stats.tables {
            if !t.bySource.isEmpty {
                out += "\n\(t.name) by source\n" + table(["source", "rows"], t.bySource.map { [$0.value ?? "(none)", "\($0.count)"] })
            }
            if !t.byMake.isEmpty {
                var rows = t.byMake.map { [$0.value ?? "(none)", "\($0.count)"] }
                if t.makeCount > t.byMake.count {
                    let more = t.makeCount - t.byMake.count
                    rows.append(["(\(more) more make\(more == 1 ? "" : "s"))", "\(t.unlistedMakeRows)"])
                }
                out += "\n\(t.name) by make (\(t.makeCount > t.byMake.count ? "top \(StoreStats.topLimit) of \(t.makeCount)" : "all \(t.makeCount)"))\n"
                    + table(["make", "rows"], rows)
            }
        }
        out += "\nFindings on loaded rows: \(stats.findings)\n"
        if !stats.findingsByCode.isEmpty {
            out += table(["code", "count"], stats.findingsByCode.map { [$0.value ?? "(none)", "\($0.count)"] })
        }
        out += "Rejects: \(stats.rejects)\nDuplicates: \(stats.duplicates)\n"
        out += "\nImport runs: \(stats.runCount)"
        out += stats.runCount > stats.runs.count ? " (latest \(stats.runs.count))\n" : "\n"
        if !stats.runs.isEmpty {
            let rows = stats.runs.map { run -> [String] in
                let c = run.counts
                return [
                    "\(run.id)", run.startedAt, run.status, "\(c.read)", "\(c.inserted)", "\(c.updated)", "\(c.unchanged)",
                    "\(c.duplicates)", "\(c.rejected)", run.elapsedSeconds.map { String(format: "%.2f", $0) } ?? "",
                ]
            }
            out += table(
                ["run", "started", "status", "read", "inserted", "updated", "unchanged", "duplicates", "rejected", "seconds"],
                rows)
        }
        return out
    }

    /// An aligned text table, indented by two spaces; columns whose cells are all numbers are
    /// right-aligned.
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        var widths = headers.map(\.count)
        var numeric = Array(repeating: true, count: headers.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.count)
                if !cell.isEmpty, Double(cell) == nil { numeric[i] = false }
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, cell) in cells.enumerated() where i < widths.count {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                parts.append(numeric[i] ? pad + cell : cell + pad)
            }
            var text = "  " + parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }
        return line(headers) + rows.map(line).joined()
    }
}
