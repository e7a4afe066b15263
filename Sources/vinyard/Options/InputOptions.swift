import ArgumentParser
import VinyardKit

/// The input files and how to read them, shared by the commands that read records.
struct InputOptions: ParsableArguments {
    @Argument(help: "Input files (CSV, JSON, JSON Lines, optionally gzip-compressed); '-' reads standard input.")
    var inputs: [String] = []

    @Option(name: .customLong("input-format"), help: "Force the input format: csv, json or jsonl (default: from the file name, then the content).")
    var inputFormat: String?

    @Option(help: "Force the CSV delimiter: one character, or 'tab' (default: detected from the header).")
    var delimiter: String?

    @Option(help: "Force the text encoding: utf-8 or windows-1252 (default: UTF-8, Windows-1252 for rows that are not valid UTF-8).")
    var encoding: String?

    /// One spelling per file, so that re-running an input finds the rows, rejects and duplicates
    /// its earlier runs left (they are matched by input name): `./fleet.csv` and `data//fleet.csv`
    /// are named `fleet.csv` and `data/fleet.csv`. An absolute path stays absolute (it names the
    /// file in messages and tables as the user wrote it), `..` stays, and `-` is standard input
    /// (`./-` a file named `-`).
    mutating func validate() throws {
        inputs = inputs.map(Self.tidy)
        // Standard input can be read once: a second '-' read nothing and passed as an empty input.
        if inputs.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("'-' (standard input) is given more than once; standard input can be read only once")
        }
    }

    static func tidy(_ path: String) -> String {
        guard path != "-", !path.isEmpty else { return path }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        // A file named `-` keeps its `./`: bare, it would be standard input (`./-` read stdin).
        if joined == "-" && !path.hasPrefix("/") { return "./-" }
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// The reader options these flags describe.
    func readOptions() throws -> ReadOptions {
        var options = ReadOptions()
        if let inputFormat {
            guard let f = InputFormat(rawValue: inputFormat.lowercased()) else {
                throw VinyardError(.usage, "--input-format must be csv, json or jsonl, not '\(inputFormat)'")
            }
            options.format = f
        }
        if let delimiter { options.delimiter = try ReadOptions.delimiter(from: delimiter) }
        if let encoding {
            switch encoding.lowercased() {
            case "utf-8", "utf8": options.encoding = .utf8
            case "windows-1252", "cp1252", "latin1", "latin-1", "iso-8859-1": options.encoding = .windows1252
            default: throw VinyardError(.usage, "--encoding must be utf-8 or windows-1252, not '\(encoding)'")
            }
        }
        return options
    }
}
