import ArgumentParser
import VinyardKit

/// The options `export` and `emissions` share: database, filters, sorts, limit, output.
struct QueryOptions: ParsableArguments {
    @Option(help: "The Vinyard SQLite database.")
    var db: String

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "A filter 'FIELD OP VALUE' (repeatable, ANDed); OP is = != < <= > >= ~ (contains, any case) or in (a,b,c); = != in on text fields normalize the value like input (fuel=Petrol, make=bmw) and ignore case.",
            valueName: "condition"))
    var conditions: [String] = []

    @Option(help: ArgumentHelp("Sort by FIELD, or FIELD:desc (repeatable; the key breaks ties).", valueName: "field[:desc]"))
    var sort: [String] = []

    // `.unconditional`: `--limit -1` is told that the limit must be 0 or more (ArgumentParser took
    // `-1` for an option and said the value was missing).
    @Option(parsing: .unconditional, help: "Write at most N rows.")
    var limit: Int?

    @Option(name: .shortAndLong, help: "Output file ('-' or absent: standard output; gzip when it ends in .gz).")
    var output: String?

    @Flag(name: .shortAndLong, help: "No progress line (it is drawn only on a terminal, and not when the rows go to it).")
    var quiet = false

    /// The progress line for rows written to `output`.
    func progressLine() -> ProgressLine { ProgressLine(enabled: !quiet, output: output ?? "-") }

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
    }

    /// The parsed query for `table`.
    func query(table: String, columns: String?) throws -> ExportQuery {
        ExportQuery(
            table: table, conditions: try conditions.map(Condition.parse), sort: try sort.map(SortKey.parse),
            columns: try columns.map { text in
                let list = ExportQuery.columnList(text)
                if list.isEmpty { throw VinyardError(.usage, "--columns '\(text)': no column names") }
                return list
            }, limit: limit)
    }
}
