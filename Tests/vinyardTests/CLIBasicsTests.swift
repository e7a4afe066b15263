import Foundation
import Testing

@Suite struct CLIBasicsTests {
    @Test func versionPrints() throws {
        let r = try runVinyard(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    @Test func unknownSubcommandIsUsageError() throws {
        let r = try runVinyard(["no-such-command"])
        #expect(r.status == 64)
    }
}
