import CSV
import Foundation

/// Rows and fields parsed by yaslab/CSV.swift.
func csvSwiftCount(_ text: String) throws -> (rows: Int, fields: Int) {
    let reader = try CSVReader(string: text, hasHeaderRow: true)
    var rows = 0, fields = 0
    while let row = reader.next() {
        rows += 1
        fields += row.count
    }
    return (rows, fields)
}
