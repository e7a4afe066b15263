import Foundation
import SwiftCSV

/// Rows and fields parsed by swiftcsv/SwiftCSV.
func swiftCSVCount(_ text: String) throws -> (rows: Int, fields: Int) {
    let csv = try CSV<Enumerated>(string: text, loadColumns: false)
    return (csv.rows.count, csv.rows.reduce(0) { $0 + $1.count })
}
