import Foundation

/// What a `validate`, `import` or `convert` run did: the count invariant
/// `read = inserted + updated + unchanged + duplicates + rejected`, findings per code with the
/// first places each occurred, repair suggestions, and one entry per input.
public struct RunReport: Sendable {
    /// One input of the run.
    public struct Input: Sendable, Codable, Equatable {
        public var name: String
        /// The detected or forced source mapping (`fleet`, `autoscout`, …).
        public var source: String
        public var format: String
        public var read = 0
        public var rejected = 0
        public var bytes: Int64 = 0
        /// A 64-bit content hash of the input's bytes as stored (see ``CountingByteSource``), hex.
        public var contentHash: String?
        /// Problems with the input as a whole, such as a CSV column that another column with the
        /// same name (or mapped to the same field) shadows.
        public var warnings: [String] = []

        public init(name: String, source: String, format: String) {
            self.name = name
            self.source = source
            self.format = format
        }
    }

    /// A repair the VIN engine proposed: the VIN as written and the probable intended one.
    public struct Suggestion: Sendable, Codable, Equatable {
        public var input: String
        public var line: Int
        /// The 0-based element index in a JSON array (nil elsewhere).
        public var element: Int?
        public var vin: String
        public var suggestion: String

        /// `fleet.csv:12`, or `fleet.json:1 (element 7)`.
        public var place: String { Provenance(input: input, line: line, index: element).description }
    }

    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var duplicates = 0
    public var rejected = 0
    /// Findings per code, errors and warnings, on rejected and loaded records alike.
    public var findings: [FindingCode: Int] = [:]
    /// The first few `input:line` places where each code occurred.
    public var examples: [FindingCode: [String]] = [:]
    /// The most severe severity each code occurred with.
    public var severities: [FindingCode: Severity] {
        var result: [FindingCode: Severity] = [:]
        for (severity, codes) in findingsBySeverity {
            for code in codes.keys where result[code].map({ $0 < severity }) ?? true { result[code] = severity }
        }
        return result
    }
    /// Findings per code split by severity (`vin.check_digit` is an error for a North American VIN
    /// and a warning for a European one): each code's counts add up to ``findings``.
    public var findingsBySeverity: [Severity: [FindingCode: Int]] = [:]
    /// The first few places of each code, by severity.
    public var examplesBySeverity: [Severity: [FindingCode: [String]]] = [:]
    /// The first ``maxSuggestions`` repair suggestions.
    public var suggestions: [Suggestion] = []
    /// All repair suggestions of the run (``suggestions`` holds the first ``maxSuggestions``).
    public var suggestionCount = 0
    public var inputs: [Input] = []
    public var elapsedSeconds: Double = 0
    /// Where rejected records were written, if anywhere.
    public var rejectsPath: String?
    /// Where every finding was written (`validate --findings`), if anywhere.
    public var findingsPath: String?
    /// For an import: whether the run was committed (false when `--strict` rolled it back), and
    /// its `import_runs.id` when it was; nil for `validate` and `convert`.
    public var committed: Bool?
    public var runID: Int64?
    /// For an import: rows an earlier run kept under a source's id (`fleet-record:veh-1`) that
    /// the run folded into their vehicle's row under its VIN (the row went to `duplicates`).
    public var folded = 0
    /// True when nothing in the database changed (a re-import of the same data).
    public var nothingChanged: Bool { inserted == 0 && updated == 0 && folded == 0 }

    public static let examplesPerCode = 5
    public static let maxSuggestions = 100

    public init() {}

    /// True when the count invariant holds.
    public var invariantHolds: Bool { read == inserted + updated + unchanged + duplicates + rejected }

    /// Records a finding's code, severity and place; `vin` is the VIN as written, for repair
    /// suggestions.
    public mutating func count(_ finding: Finding, vin: String? = nil) {
        findings[finding.code, default: 0] += 1
        findingsBySeverity[finding.severity, default: [:]][finding.code, default: 0] += 1
        if let place = finding.place {
            // A place once per code (a record with two findings of one code, such as a
            // key.conflict on two fields, was listed twice).
            var places = examples[finding.code, default: []]
            if places.count < Self.examplesPerCode, !places.contains(place) {
                places.append(place)
                examples[finding.code] = places
            }
            var own = examplesBySeverity[finding.severity]?[finding.code] ?? []
            if own.count < Self.examplesPerCode, !own.contains(place) {
                own.append(place)
                examplesBySeverity[finding.severity, default: [:]][finding.code] = own
            }
        }
        if finding.code == .vinCheckDigit || finding.code == .vinCharacters, let s = finding.suggestion {
            suggestionCount += 1
            if suggestions.count < Self.maxSuggestions, let input = finding.input, let line = finding.line {
                suggestions.append(
                    Suggestion(input: input, line: line, element: finding.element, vin: vin ?? "", suggestion: s))
            }
        }
    }
}

extension RunReport {
    /// The machine-readable report (`--report json`): one JSON object.
    public func json() -> String {
        var object: [String: Any] = [
            "read": read, "inserted": inserted, "updated": updated, "unchanged": unchanged,
            "duplicates": duplicates, "rejected": rejected,
            "elapsed_seconds": (elapsedSeconds * 1000).rounded() / 1000,
            "invariant_holds": invariantHolds,
        ]
        object["findings"] = Dictionary(uniqueKeysWithValues: findings.map { ($0.key.rawValue, $0.value) })
        object["finding_examples"] = Dictionary(uniqueKeysWithValues: examples.map { ($0.key.rawValue, $0.value) })
        // The same counts split by severity: {"error": {"vin.check_digit": 2}, "warning": {...}}.
        object["findings_by_severity"] = Dictionary(
            uniqueKeysWithValues: [Severity.error, .warning].map { severity in
                (severity.rawValue, Dictionary(uniqueKeysWithValues: (findingsBySeverity[severity] ?? [:]).map { ($0.key.rawValue, $0.value) }))
            })
        // `suggestions` lists the first 100; the count is of all.
        object["suggestion_count"] = suggestionCount
        object["suggestions"] = suggestions.map { s -> [String: Any] in
            var o: [String: Any] = ["input": s.input, "line": s.line, "vin": s.vin, "suggestion": s.suggestion]
            if let element = s.element { o["element"] = element }
            return o
        }
        object["inputs"] = inputs.map { input -> [String: Any] in
            var o: [String: Any] = [
                "name": input.name, "format": input.format, "read": input.read,
                "rejected": input.rejected, "bytes": input.bytes,
            ]
            // An input with nothing to tell the source by (an empty file) has none: null, not "".
            o["source"] = input.source.isEmpty ? NSNull() : input.source
            o["content_hash"] = input.contentHash ?? NSNull()
            o["warnings"] = input.warnings
            return o
        }
        object["rejects_file"] = rejectsPath ?? NSNull()
        if let findingsPath { object["findings_file"] = findingsPath }
        if let committed {
            object["committed"] = committed
            object["run_id"] = runID.map { NSNumber(value: $0) } ?? NSNull()
            object["folded"] = folded
        }
        guard
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The human summary: the count invariant as a small table, findings per code with example
    /// places, repair suggestions, where rejects went, elapsed time and rows/s.
    public func text(color: Bool = false) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        let rows: [(String, Int)] = [
            ("read", read), ("inserted", inserted), ("updated", updated), ("unchanged", unchanged),
            ("duplicates", duplicates), ("rejected", rejected),
        ]
        let width = rows.map { String($0.1).count }.max() ?? 1
        for (name, value) in rows {
            let number = String(repeating: " ", count: width - String(value).count) + String(value)
            let line = "  " + name.padding(toLength: 11, withPad: " ", startingAt: 0) + number
            out += (name == "rejected" && value > 0 ? paint(line, "31") : line) + "\n"
        }
        out +=
            "  read \(read) = inserted \(inserted) + updated \(updated) + unchanged \(unchanged)"
            + " + duplicates \(duplicates) + rejected \(rejected)"
            + (invariantHolds ? "" : "  (INVARIANT BROKEN)") + "\n"
        if !findings.isEmpty {
            out += "\nfindings:\n"
            let codeWidth = findings.keys.map(\.rawValue.count).max() ?? 0
            // A code found with both severities gets a line for each (error first), so the error
            // count is the number of records it rejected.
            for code in findings.keys.sorted() {
                for severity in [Severity.error, .warning] {
                    guard let count = findingsBySeverity[severity]?[code], count > 0 else { continue }
                    let label = severity == .error ? paint("error  ", "31") : paint("warning", "33")
                    let places = (examplesBySeverity[severity]?[code] ?? []).joined(separator: ", ")
                    out +=
                        "  \(label) \(code.rawValue.padding(toLength: codeWidth, withPad: " ", startingAt: 0))"
                        + "  \(String(count).leftPadded(to: 7, with: " "))  \(places)\n"
                }
            }
        }
        if !suggestions.isEmpty {
            out += "\nprobable VINs (single-typo repairs):\n"
            for s in suggestions.prefix(20) {
                out += "  \(s.place)  \(s.vin.isEmpty ? "" : s.vin + " → ")\(s.suggestion)\n"
            }
            if suggestionCount > 20 {
                // All of them, not the 100 the report keeps; a rejects file has those of rejected rows only.
                let more = suggestionCount - 20
                let listed = "--report json lists the first \(Self.maxSuggestions)"
                out += "  … \(more) more (\(rejectsPath.map { "those of rejected rows are in the rejects file \($0); " } ?? "")\(listed))\n"
            }
        }
        if let rejectsPath { out += "\nrejects written to \(rejectsPath)\n" }
        if let findingsPath { out += "\(rejectsPath == nil ? "\n" : "")every finding and duplicate written to \(findingsPath)\n" }
        let rate = elapsedSeconds > 0 ? Double(read) / elapsedSeconds : 0
        out += String(format: "\n%.2f s, %.0f rows/s\n", elapsedSeconds, rate)
        return out
    }
}
