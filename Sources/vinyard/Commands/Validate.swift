import ArgumentParser
import Foundation
import VinyardKit

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check fleet files without touching a database: VINs, coordinates, fields, duplicates.",
        discussion: """
            Reads every input, detects its source (or takes --source), maps records onto the canonical \
            schema and validates them. Counts exactly what `vinyard import` would do on an empty \
            database: read = inserted + updated + unchanged + duplicates + rejected.

            The text report lists findings per code with the first lines where each occurs and \
            probable VINs for single-typo check-digit failures. --rejects FILE writes every rejected \
            record with its original fields plus _input, _line and _findings (CSV; JSON Lines when \
            FILE ends in .jsonl, a JSON array when .json), ready to send back. --findings FILE \
            writes every finding, errors and warnings, one row each (input, line, element, severity, \
            code, field, vin, suggestion, message), and a row with code `duplicate` for each record \
            whose key an earlier one had, naming where: the report itself lists only the first \
            places of each code.

            Exit status: 0 when no record is rejected, 1 when some are, 64 usage, 65 malformed \
            input, 66 missing input, 74 when the rejects or findings file or the report cannot be written, \
            130 or 143 interrupted (SIGINT, SIGTERM).

            Examples:
              vinyard validate Samples/fleet.csv
              vinyard validate leasing-export.csv --rejects rejects.csv
              vinyard validate leasing-export.csv --findings findings.csv
              vinyard validate Samples/*.json Samples/fleet.jsonl --report json
              gunzip -c fleet.csv.gz | vinyard validate - --source fleet
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var pipeline: PipelineOptionGroup

    @Option(help: "Write rejected records to this file (CSV; JSON Lines when it ends in .jsonl, a JSON array when .json, tab-separated when .tsv; - is standard output, and the report then goes to standard error).")
    var rejects: String?

    @Option(help: "Write every finding and duplicate, one row each, to this file (CSV; JSON Lines when it ends in .jsonl, a JSON array when .json, tab-separated when .tsv; - is standard output, and the report then goes to standard error).")
    var findings: String?

    @Option(help: "Report format: text or json.")
    var report: ReportFormat = .text

    func validate() throws {
        if input.inputs.isEmpty { throw ValidationError("Give at least one input file ('-' for standard input).") }
    }

    func run() throws {
        var rejected = 0
        // Standard output taken by the rejects or the findings: the report goes to standard error.
        let json = JSONReportDestination(report: report, rejects: findings == "-" ? findings : rejects)
        removeStagedOutputsOnSignal(command: "validate", json: json)
        try reportingErrors(json: json) {
            try checkOutputsAreNotRead([("--rejects", rejects), ("--findings", findings)], reads: input.inputs.map { ("input", $0) })
            let catalog = try pipeline.catalog()
            let options = try pipeline.pipelineOptions(read: try input.readOptions(), catalog: catalog)
            let writer = try rejects.map { try RejectsWriter(path: $0) }
            let sink = ValidationSink(rejects: writer)
            let run = Pipeline(options: options, catalog: catalog)
            run.findingsWriter = try findings.map { try FindingsWriter(path: $0) }
            var result = try run.run(inputs: input.inputs, into: sink, progress: pipeline.progressLine(writingTo: [rejects, findings]))
            try sink.finish()
            try run.findingsWriter?.finish()
            result.rejectsPath = rejects
            result.findingsPath = findings
            try printReport(result, format: report, title: "validate")
            rejected = result.rejected
        }
        if rejected > 0 { throw ExitCode(1) }
    }
}
