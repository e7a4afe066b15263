import ArgumentParser
import Foundation
import VinyardKit

@main
struct Vinyard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vinyard",
        abstract: "Validate, normalize, deduplicate, load and export fleet vehicle data.",
        discussion: """
            Typical jobs:
              vinyard validate leasing-export.csv --rejects rejects.csv
              vinyard import old-a.csv old-b.json --db fleet.db
              vinyard export --db fleet.db --where make=BMW --sort year:desc -o bmw.csv
              vinyard emissions --db fleet.db
              vinyard decode 1HGCM82633A004352

            Exit status: 0 success; 1 validate found errors (or import --strict rejected \
            records); 64 usage; 65 malformed input; 66 missing input; 74 cannot \
            create or write an output, I/O or database error; 130 or 143 import interrupted (SIGINT, SIGTERM; rolled back).

            Shell completion: vinyard --generate-completion-script bash|zsh|fish
            """,
        version: VinyardVersion.string,
        subcommands: [
            Convert.self,
            Decode.self,
            Emissions.self,
            Export.self,
            Generate.self,
            Import.self,
            Validate.self,
            Stats.self,
        ]
    )

    /// `vinyard` without a command: the help on standard error and exit 64, a usage error (it
    /// printed the help and exited 0, which a script took for success). `--help` still exits 0.
    func run() throws {
        StandardError.write((Self.helpMessage() + "\n"))
        throw ExitCode(64)
    }
}
