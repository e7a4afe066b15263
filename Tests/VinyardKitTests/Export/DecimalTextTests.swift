import Testing
import VinyardKit

/// `FieldValue.decimalText`: the shortest round-tripping digits, in positional notation.
@Suite struct DecimalTextTests {
    @Test(arguments: [
        (0.00001, "0.00001"), (-0.00002, "-0.00002"), (5e-05, "0.00005"), (1.5e-07, "0.00000015"),
        (1e16, "10000000000000000"), (1.2345e20, "123450000000000000000"), (-1e15, "-1000000000000000"),
        (40.6515, "40.6515"), (0.1, "0.1"), (1000000, "1000000"), (0, "0"), (5001.5, "5001.5"),
        (1.7976931348623157e308, "17976931348623157" + String(repeating: "0", count: 292)),
    ])
    func positional(_ value: Double, _ expected: String) {
        #expect(FieldValue.decimalText(value) == expected)
        #expect(Double(FieldValue.decimalText(value)) == value)
    }
}
