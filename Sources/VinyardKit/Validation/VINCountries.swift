/// ISO 3780 country ranges of the first two VIN characters, in VIN character order
/// (A-Z without I, O, Q, then 1-9, 0). Public facts of the ISO 3780 / SAE J1044 assignments.
enum VINCountries {
    /// The order of second characters used by ISO 3780 ranges.
    static let order: [UInt8] = Array("ABCDEFGHJKLMNPRSTUVWXYZ1234567890".utf8)

    /// `first character: [(from, to, country)]`, where from/to are second characters.
    static let ranges: [UInt8: [(UInt8, UInt8, String)]] = {
        let table: [(String, String, String, String)] = [
            ("A", "A", "H", "South Africa"), ("A", "J", "N", "Ivory Coast"),
            ("B", "A", "E", "Angola"), ("B", "F", "K", "Kenya"), ("B", "L", "R", "Tanzania"),
            ("C", "A", "E", "Benin"), ("C", "F", "K", "Madagascar"), ("C", "L", "R", "Tunisia"),
            ("D", "A", "E", "Egypt"), ("D", "F", "K", "Morocco"), ("D", "L", "R", "Zambia"),
            ("E", "A", "E", "Ethiopia"), ("E", "F", "K", "Mozambique"),
            ("F", "A", "E", "Ghana"), ("F", "F", "K", "Nigeria"),
            ("J", "A", "0", "Japan"),
            ("K", "A", "E", "Sri Lanka"), ("K", "F", "K", "Israel"), ("K", "L", "R", "South Korea"),
            ("K", "S", "0", "Kazakhstan"),
            ("L", "A", "0", "China"),
            ("M", "A", "E", "India"), ("M", "F", "K", "Indonesia"), ("M", "L", "R", "Thailand"),
            ("M", "S", "0", "Myanmar"),
            ("N", "A", "E", "Iran"), ("N", "F", "K", "Pakistan"), ("N", "L", "R", "Turkey"),
            ("P", "A", "E", "Philippines"), ("P", "F", "K", "Singapore"), ("P", "L", "R", "Malaysia"),
            ("R", "A", "E", "United Arab Emirates"), ("R", "F", "K", "Taiwan"), ("R", "L", "R", "Vietnam"),
            ("R", "S", "0", "Saudi Arabia"),
            ("S", "A", "M", "United Kingdom"), ("S", "N", "T", "Germany"), ("S", "U", "Z", "Poland"),
            ("S", "1", "4", "Latvia"),
            ("T", "A", "H", "Switzerland"), ("T", "J", "P", "Czech Republic"), ("T", "R", "V", "Hungary"),
            ("T", "W", "1", "Portugal"),
            ("U", "H", "M", "Denmark"), ("U", "N", "T", "Ireland"), ("U", "U", "Z", "Romania"),
            ("U", "5", "7", "Slovakia"),
            ("V", "A", "E", "Austria"), ("V", "F", "R", "France"), ("V", "S", "W", "Spain"),
            ("V", "X", "2", "Serbia"), ("V", "3", "5", "Croatia"), ("V", "6", "0", "Estonia"),
            ("W", "A", "0", "Germany"),
            ("X", "A", "E", "Bulgaria"), ("X", "F", "K", "Greece"), ("X", "L", "R", "Netherlands"),
            ("X", "S", "W", "Russia"), ("X", "X", "2", "Luxembourg"), ("X", "3", "0", "Russia"),
            ("Y", "A", "E", "Belgium"), ("Y", "F", "K", "Finland"), ("Y", "L", "R", "Malta"),
            ("Y", "S", "W", "Sweden"), ("Y", "X", "2", "Norway"), ("Y", "3", "5", "Belarus"),
            ("Y", "6", "0", "Ukraine"),
            ("Z", "A", "R", "Italy"), ("Z", "X", "2", "Slovenia"), ("Z", "3", "5", "Lithuania"),
            ("Z", "6", "0", "Russia"),
            ("1", "A", "0", "United States"), ("4", "A", "0", "United States"), ("5", "A", "0", "United States"),
            ("2", "A", "0", "Canada"),
            ("3", "A", "W", "Mexico"), ("3", "X", "7", "Costa Rica"), ("3", "8", "9", "Cayman Islands"),
            ("6", "A", "W", "Australia"),
            ("7", "A", "E", "New Zealand"), ("7", "F", "0", "United States"),
            ("8", "A", "E", "Argentina"), ("8", "F", "K", "Chile"), ("8", "L", "R", "Ecuador"),
            ("8", "S", "W", "Peru"), ("8", "X", "2", "Venezuela"),
            ("9", "A", "E", "Brazil"), ("9", "F", "K", "Colombia"), ("9", "L", "R", "Paraguay"),
            ("9", "S", "W", "Uruguay"), ("9", "X", "2", "Trinidad and Tobago"), ("9", "3", "9", "Brazil"),
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
