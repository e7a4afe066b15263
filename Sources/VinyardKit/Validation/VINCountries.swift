/// ISO 3780 country ranges of the first two VIN characters, in VIN character order
/// (A-Z without I, O, Q, then 1-9, 0). Public facts of the ISO 3780 / SAE J1044 assignments.
enum VINCountries {
    /// The order of second characters used by ISO 3780 ranges.
    static let order: [UInt8] = Array("ABCDEFGHJKLMNPRSTUVWXYZ1234567890".utf8)

    /// `first character: [(from, to, country)]`, where from/to are second characters.
    static let ranges: [UInt8: [(UInt8, UInt8, String)]] = {
        let table: [(String, String, String, String)] = [
            ("A", "A", "H", "South Africa"), ("A", "J", "K", "Ivory Coast"), ("A", "L", "M", "Lesotho"),
            ("A", "N", "P", "Botswana"), ("A", "R", "S", "Namibia"), ("A", "T", "U", "Madagascar"),
            ("A", "V", "W", "Mauritius"), ("A", "X", "Y", "Tunisia"), ("A", "Z", "1", "Cyprus"),
            ("A", "2", "3", "Zimbabwe"), ("A", "4", "5", "Mozambique"),
            ("B", "A", "B", "Angola"), ("B", "F", "G", "Kenya"), ("B", "L", "L", "Nigeria"),
            ("B", "R", "R", "Algeria"), ("B", "3", "4", "Libya"),
            ("C", "A", "B", "Egypt"), ("C", "F", "G", "Morocco"), ("C", "L", "M", "Zambia"),
            ("D", "A", "E", "Egypt"),
            ("H", "A", "0", "China"),
            ("J", "A", "0", "Japan"),
            ("K", "F", "H", "Israel"), ("K", "L", "R", "South Korea"), ("K", "S", "T", "Jordan"),
            ("L", "A", "0", "China"),
            ("M", "A", "E", "India"), ("M", "F", "K", "Indonesia"), ("M", "L", "R", "Thailand"),
            ("M", "S", "S", "Myanmar"), ("M", "U", "U", "Mongolia"), ("M", "X", "X", "Kazakhstan"),
            ("M", "1", "6", "India"),
            ("N", "A", "E", "Iran"), ("N", "F", "G", "Pakistan"), ("N", "J", "J", "Iraq"), ("N", "L", "R", "Turkey"),
            ("N", "S", "T", "Uzbekistan"), ("N", "U", "U", "Azerbaijan"), ("N", "Y", "Y", "Armenia"),
            ("N", "1", "5", "Iran"),
            ("P", "A", "C", "Philippines"), ("P", "F", "G", "Singapore"), ("P", "L", "R", "Malaysia"),
            ("P", "S", "T", "Bangladesh"),
            ("R", "A", "B", "United Arab Emirates"), ("R", "F", "K", "Taiwan"), ("R", "L", "N", "Vietnam"),
            ("R", "P", "P", "Laos"), ("R", "S", "T", "Saudi Arabia"), ("R", "U", "W", "Russia"),
            ("R", "1", "1", "Hong Kong"),
            ("S", "A", "M", "United Kingdom"), ("S", "N", "T", "Germany"), ("S", "U", "Z", "Poland"),
            ("S", "1", "2", "Latvia"), ("S", "3", "3", "South Ossetia"),
            ("T", "A", "H", "Switzerland"), ("T", "J", "P", "Czech Republic"), ("T", "R", "V", "Hungary"),
            ("T", "W", "2", "Portugal"), ("T", "3", "5", "Serbia and Montenegro"), ("T", "6", "6", "Andorra"),
            ("U", "A", "C", "Spain"), ("U", "H", "M", "Denmark"), ("U", "N", "R", "Ireland"),
            ("U", "U", "W", "Romania"), ("U", "1", "2", "North Macedonia"), ("U", "5", "7", "Slovakia"),
            ("U", "8", "0", "Bosnia and Herzegovina"),
            ("V", "A", "E", "Austria"), ("V", "F", "R", "France"), ("V", "S", "W", "Spain"),
            ("V", "X", "2", "Serbia"), ("V", "3", "5", "Croatia"), ("V", "6", "8", "Estonia"),
            ("W", "A", "0", "Germany"),
            ("X", "A", "C", "Bulgaria"), ("X", "D", "E", "Russia"), ("X", "F", "H", "Greece"),
            ("X", "J", "K", "Russia"), ("X", "L", "R", "Netherlands"), ("X", "S", "W", "Russia"),
            ("X", "X", "Y", "Luxembourg"), ("X", "Z", "0", "Russia"),
            ("Y", "A", "E", "Belgium"), ("Y", "F", "K", "Finland"), ("Y", "N", "N", "Malta"),
            ("Y", "S", "W", "Sweden"), ("Y", "X", "2", "Norway"), ("Y", "3", "5", "Belarus"),
            ("Y", "6", "8", "Ukraine"),
            ("Z", "A", "U", "Italy"), ("Z", "X", "Z", "Slovenia"), ("Z", "1", "1", "San Marino"),
            ("Z", "3", "5", "Lithuania"), ("Z", "6", "0", "Russia"),
            ("1", "A", "0", "United States"), ("4", "A", "0", "United States"), ("5", "A", "0", "United States"),
            // 7A-7E are New Zealand's (ISO 3780); SAE gives 7F-70 to the United States (7FA Honda, 7SA Tesla).
            ("7", "A", "E", "New Zealand"), ("7", "F", "0", "United States"),
            ("2", "A", "5", "Canada"),
            ("3", "A", "X", "Mexico"), ("3", "5", "5", "Dominican Republic"), ("3", "6", "6", "Honduras"),
            ("3", "7", "7", "Panama"), ("3", "8", "9", "Puerto Rico"),
            ("6", "A", "X", "Australia"), ("6", "Y", "1", "New Zealand"),
            ("8", "A", "E", "Argentina"), ("8", "F", "G", "Chile"), ("8", "L", "N", "Ecuador"),
            ("8", "S", "T", "Peru"), ("8", "X", "Z", "Venezuela"), ("8", "2", "2", "Bolivia"),
            ("9", "A", "E", "Brazil"), ("9", "F", "G", "Colombia"), ("9", "S", "V", "Uruguay"),
            ("9", "3", "9", "Brazil"),
        ]
        var result: [UInt8: [(UInt8, UInt8, String)]] = [:]
        for (first, from, to, country) in table {
            result[first.utf8.first!, default: []].append((from.utf8.first!, to.utf8.first!, country))
        }
        return result
    }()

    /// The country for the first two characters of a VIN, or nil when unassigned.
    static func country(_ first: UInt8, _ second: UInt8) -> String? {
        guard let list = ranges[first], let index = order.firstIndex(of: second) else { return nil }
        for (from, to, country) in list {
            guard let lo = order.firstIndex(of: from), let hi = order.firstIndex(of: to) else { continue }
            if index >= lo && index <= hi { return country }
        }
        return nil
    }

    /// ``country(_:_:)`` precomputed for every pair of 0-9/A-Z characters, by ``WMITable/code`` (36 × 36).
    static let table: [String?] = {
        let chars = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        var t = [String?](repeating: nil, count: 36 * 36)
        for (i, a) in chars.enumerated() {
            for (j, b) in chars.enumerated() { t[i * 36 + j] = country(a, b) }
        }
        return t
    }()

    /// The country for the first two characters of a VIN from the precomputed table.
    @inline(__always)
    static func fastCountry(_ first: UInt8, _ second: UInt8) -> String? {
        let x = WMITable.code[Int(first)], y = WMITable.code[Int(second)]
        guard x < 36, y < 36 else { return nil }
        return table[Int(x) * 36 + Int(y)]
    }

    /// ISO 3166 alpha-2 codes used by the WMI table, for the country names above.
    static let isoNames: [String: String] = [
        "US": "United States", "CA": "Canada", "MX": "Mexico", "JP": "Japan", "KR": "South Korea",
        "CN": "China", "DE": "Germany", "GB": "United Kingdom", "FR": "France", "IT": "Italy", "ES": "Spain",
        "SE": "Sweden", "NL": "Netherlands", "BE": "Belgium", "AT": "Austria", "CZ": "Czech Republic",
        "HU": "Hungary", "SK": "Slovakia", "PL": "Poland", "RO": "Romania", "PT": "Portugal", "FI": "Finland",
        "TR": "Turkey", "IN": "India", "TH": "Thailand", "BR": "Brazil", "AR": "Argentina", "ZA": "South Africa",
        "AU": "Australia", "TW": "Taiwan", "VN": "Vietnam", "RU": "Russia", "UZ": "Uzbekistan", "CH": "Switzerland",
    ]
}
