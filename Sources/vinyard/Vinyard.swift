import ArgumentParser
import VinyardKit

@main
struct Vinyard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vinyard",
        abstract: "Validate, normalize, deduplicate, load and export fleet vehicle data.",
        discussion: """
            Exit status: 0 success; 1 validate found errors (or --strict rejects); 64 usage;
            65 malformed input; 66 missing input; 73 cannot create output; 74 I/O error.
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
}
