import Testing
@testable import VinyardKit

/// The report's examples of a finding code name each place once (found by review: a record with
/// two findings of one code, a key.conflict on two fields, was listed twice).
@Suite struct RunReportExamplesTests {
    @Test func placesAreListedOnce() {
        var report = RunReport()
        for (line, field) in [(3, "make"), (3, "model"), (7, "make"), (3, "color")] {
            report.count(Finding(.keyConflict, .warning, field: field, message: "differs", input: "a.csv", line: line))
        }
        #expect(report.findings[.keyConflict] == 4)
        #expect(report.examples[.keyConflict] == ["a.csv:3", "a.csv:7"])
        #expect(report.examplesBySeverity[.warning]?[.keyConflict] == ["a.csv:3", "a.csv:7"])
    }
}
