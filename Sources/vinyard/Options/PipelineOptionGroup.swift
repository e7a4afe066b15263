import ArgumentParser
import Foundation
import VinyardKit

/// How records are mapped and validated, shared by `validate`, `import` and `convert`.
struct PipelineOptionGroup: ParsableArguments {
    @Option(help: "Force the source mapping: fleet, random-vehicle, autoscout, fleet-record, locations, or the name of a --mapping (default: detected from the header or keys).")
    var source: String?

    @Option(help: "Load a canonical table schema from this JSON file (repeatable; replaces the bundled schema of the same name).")
    var schema: [String] = []

    @Option(help: "Load a source mapping from this JSON file (repeatable; see Schemas/README.md).")
    var mapping: [String] = []

    @Flag(help: "Reject AutoScout vehicles that are not accident-free (default: load them with a vehicle.accident warning).")
    var rejectAccidents = false

    @Option(help: "Decimal separator of text numbers: auto, point or comma. Under auto, '1,234' and '18.990' (thousands, or three decimals?) are ambiguous and rejected; coordinates always read their one separator as the decimal one.")
    var decimal: String = "auto"

    @Option(name: .customLong("date-format"), help: "How the input writes dates, e.g. MM/dd/yyyy or dd/MM/yyyy (tokens yyyy, MM/M, dd/d; default: ISO yyyy-MM-dd, dd.MM.yyyy, MM/yyyy; ISO dates are always read).")
    var dateFormat: String?

    @Flag(name: .shortAndLong, help: "No progress line on standard error.")
    var quiet = false

    /// The bundled catalog plus the user's schemas and mappings.
    func catalog() throws -> SchemaCatalog {
        var catalog = try SchemaCatalog.bundled()
        for path in schema { _ = try catalog.loadSchema(file: path) }
        for path in mapping { _ = try catalog.loadMapping(file: path) }
        return catalog
    }

    func pipelineOptions(read: ReadOptions, catalog: SchemaCatalog) throws -> PipelineOptions {
        var options = PipelineOptions()
        options.read = read
        if let source {
            guard source != "raw" else {
                throw VinyardError(.usage, "--source raw is for `vinyard convert` (a plain format converter)")
            }
            _ = try catalog.mapping(named: source)
            options.source = source
        }
        let separator: DecimalSeparator
        switch decimal.lowercased() {
        case "auto": separator = .auto
        case "point", ".": separator = .point
        case "comma", ",": separator = .comma
        default: throw VinyardError(.usage, "--decimal must be auto, point or comma, not '\(decimal)'")
        }
        options.mapper = MapperOptions(rejectAccidents: rejectAccidents, decimalSeparator: separator)
        options.mapper.invalidBytesReplaced = read.encoding == .utf8
        if let dateFormat {
            guard let pattern = DatePattern(dateFormat) else {
                throw VinyardError(
                    .usage, "--date-format '\(dateFormat)' needs yyyy (or yy) and MM (or M), e.g. MM/dd/yyyy, dd.MM.yyyy or dd.MM.yy")
            }
            options.mapper.datePattern = pattern
        }
        return options
    }

    /// The progress line, off as well when one of `outputs` is standard output on the terminal
    /// it would be drawn on (`--rejects -`: it broke into the rows).
    func progressLine(writingTo outputs: [String?] = []) -> ProgressLine {
        ProgressLine(enabled: !quiet, output: outputs.contains("-") ? "-" : "")
    }
}

/// `--report text|json`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Prints each input's warnings (shadowed columns) on standard error, `warning: FILE: …`.
func warnAboutInputs(_ report: RunReport) {
    for input in report.inputs {
        for message in input.warnings { warn("\(input.name): \(message)") }
    }
}

/// Prints a run report on standard output, and the inputs' warnings on standard error. With
/// `--rejects -` the rejects file is standard output, so the report goes to standard error.
/// - Throws: `.io` when standard output cannot be written.
func printReport(_ report: RunReport, format: ReportFormat, title: String) throws {
    warnAboutInputs(report)
    let toStandardError = report.rejectsPath == "-" || report.findingsPath == "-"
    let write: (String) throws -> Void = { text in
        if toStandardError {
            StandardError.write(text)
        } else {
            try FileByteSink.writeStandardOutput(text)
        }
    }
    switch format {
    case .json:
        try write(report.json() + "\n")
    case .text:
        let terminal = toStandardError ? FileHandle.standardError : FileHandle.standardOutput
        let color = terminal.isTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        var text = title + "\n"
        for input in report.inputs {
            text += "  \(input.name): \(input.source.isEmpty ? "no records" : input.source) (\(input.format)), "
                + "\(input.read) read, \(input.rejected) rejected\n"
        }
        text += "\n" + report.text(color: color)
        try write(text)
    }
}
