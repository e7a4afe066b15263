import Foundation

/// Makes deterministic, realistic fleet data for benchmarks and tests: VINs with correct check
/// digits across many WMIs, makes and models consistent with the WMI, model years consistent with
/// position 10 (and position 7 for North America), plates, odometers, coordinates and fuel types
/// in mixed spellings. With a dirty rate, that fraction of rows (rounded to a whole number of
/// rows) carries exactly one defect drawn from the finding codes, and ``FleetGenerator/Truth``
/// counts what a validation must report.
public struct FleetGenerator: Sendable {
    /// What the generator injects into a dirty row.
    public enum Defect: String, CaseIterable, Sendable, Codable {
        case checkDigit = "vin.check_digit"
        case characters = "vin.characters"
        case shortVIN = "vin.length"
        case placeholder = "vin.placeholder"
        case latitude = "coord.latitude"
        case swapped = "coord.swapped"
        case incomplete = "coord.incomplete"
        case duplicate = "duplicate"
        case conflictingDuplicate = "key.conflict"
        case status = "field.enum"
        case odometer = "field.type"
    }

    /// The counts a validation of the generated rows must report.
    public struct Truth: Sendable, Codable, Equatable {
        public var rows = 0
        public var read = 0
        public var rejected = 0
        public var duplicates = 0
        public var loaded = 0
        /// The report's names for the same run into an empty database: `inserted` (= `loaded`),
        /// `updated` and `unchanged` (0), so a truth file compares with a report key by key.
        public var inserted = 0
        public var updated = 0
        public var unchanged = 0
        /// Defects injected, by kind.
        public var defects: [String: Int] = [:]
        /// Error and warning findings expected, by finding code.
        public var findings: [String: Int] = [:]

        public init() {}

        enum CodingKeys: String, CodingKey {
            case rows, read, rejected, duplicates, loaded, inserted, updated, unchanged, defects, findings
        }

        /// A truth file written before `inserted`, `updated` and `unchanged` reads with them taken
        /// from `loaded` and 0.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            rows = try c.decode(Int.self, forKey: .rows)
            read = try c.decode(Int.self, forKey: .read)
            rejected = try c.decode(Int.self, forKey: .rejected)
            duplicates = try c.decode(Int.self, forKey: .duplicates)
            loaded = try c.decode(Int.self, forKey: .loaded)
            inserted = try c.decodeIfPresent(Int.self, forKey: .inserted) ?? loaded
            updated = try c.decodeIfPresent(Int.self, forKey: .updated) ?? 0
            unchanged = try c.decodeIfPresent(Int.self, forKey: .unchanged) ?? 0
            defects = try c.decode([String: Int].self, forKey: .defects)
            findings = try c.decode([String: Int].self, forKey: .findings)
        }
    }

    public static let columns = [
        "vin", "make", "model", "model_year", "color", "fuel_type", "transmission", "odometer_km",
        "license_plate", "status", "latitude", "longitude", "first_registration",
    ]

    struct Maker {
        let wmi: String
        let make: String
        let models: [String]
        /// Positions 4 on of a model's VINs, where the code's makes are told apart by them
        /// (`1C4` + `RJ` is a Jeep Grand Cherokee; random characters made a Ram or a Chrysler).
        var vds: [String: String] = [:]
        /// North American and Chinese VINs: the check digit is mandatory and position 7 selects the
        /// 30-year cycle.
        var northAmerican: Bool { "12345".contains(wmi.first!) }
    }

    static let makers: [Maker] = [
        Maker(wmi: "1HG", make: "Honda", models: ["Accord", "Civic", "Insight"]),
        Maker(wmi: "2HK", make: "Honda", models: ["CR-V", "Odyssey"]),
        Maker(wmi: "1FT", make: "Ford", models: ["F-150", "F-250", "Ranger"]),
        Maker(wmi: "1FA", make: "Ford", models: ["Mustang", "Fusion", "Focus"]),
        Maker(wmi: "1G1", make: "Chevrolet", models: ["Malibu", "Impala", "Camaro", "Bolt"]),
        Maker(
            wmi: "1C4", make: "Jeep", models: ["Grand Cherokee", "Wrangler", "Compass"],
            vds: ["Grand Cherokee": "RJ", "Wrangler": "HJ", "Compass": "NJ"]),
        Maker(wmi: "5YJ", make: "Tesla", models: ["Model 3", "Model Y", "Model S"]),
        Maker(wmi: "4T1", make: "Toyota", models: ["Camry", "Avalon"]),
        Maker(wmi: "JTD", make: "Toyota", models: ["Prius", "Yaris", "Corolla"]),
        Maker(wmi: "JM1", make: "Mazda", models: ["Mazda3", "Mazda6", "MX-5"]),
        Maker(wmi: "JN1", make: "Nissan", models: ["Leaf", "Altima", "Sentra"]),
        Maker(wmi: "KNA", make: "Kia", models: ["Sportage", "Rio", "Ceed", "Niro"]),
        Maker(wmi: "KMH", make: "Hyundai", models: ["Elantra", "i30", "Tucson", "Kona"]),
        Maker(wmi: "WBA", make: "BMW", models: ["320d", "520i", "X3", "i4"]),
        Maker(wmi: "WVW", make: "Volkswagen", models: ["Golf", "Passat", "Polo", "ID.3"]),
        Maker(wmi: "WDD", make: "Mercedes-Benz", models: ["C 200", "E 220", "A 180"]),
        Maker(wmi: "WAU", make: "Audi", models: ["A3", "A4", "Q5", "e-tron"]),
        Maker(wmi: "VF1", make: "Renault", models: ["Clio", "Megane", "Zoe"]),
        Maker(wmi: "VF3", make: "Peugeot", models: ["208", "308", "3008"]),
        Maker(wmi: "ZFA", make: "Fiat", models: ["500", "Panda", "Tipo"]),
        Maker(wmi: "YV1", make: "Volvo", models: ["V60", "XC60", "XC90"]),
        Maker(wmi: "TMB", make: "Skoda", models: ["Octavia", "Superb", "Fabia"]),
        Maker(wmi: "SAL", make: "Land Rover", models: ["Defender", "Discovery", "Range Rover Evoque"]),
    ]

    /// Models built only in some years (the generated years are the 15 up to ``currentYear``): a
    /// model year outside them is not drawn (a 2012 Model Y was).
    static let modelYears: [String: ClosedRange<Int>] = [
        "Model 3": 2017...2100, "Model Y": 2020...2100, "Model S": 2012...2100, "ID.3": 2020...2100,
        "e-tron": 2019...2100, "i4": 2022...2100, "Bolt": 2017...2023, "Zoe": 2013...2024, "Kona": 2018...2100,
        "Niro": 2017...2100, "Tipo": 2016...2100, "Impala": 1958...2020, "Fusion": 2006...2020,
        "Focus": 2000...2018, "Avalon": 1995...2022, "Insight": 2019...2022, "Leaf": 2011...2100,
    ]
    /// Battery-electric models (their fuel is electric) and hybrid ones (hybrid).
    static let electricModels: Set<String> = ["Model 3", "Model Y", "Model S", "ID.3", "e-tron", "i4", "Bolt", "Zoe", "Leaf"]
    static let hybridModels: Set<String> = ["Prius", "Insight"]
    static let electricSpellings = ["electric", "EV", "Electric", "BEV"]
    static let hybridSpellings = ["hybrid", "Hybrid", "HEV"]

    static let colors = ["white", "black", "silver", "grey", "blue", "red", "green", "beige"]
    /// Mixed spellings a normalizer must fold: gasoline/petrol/benzin, diesel, hybrid (the fuels of
    /// a combustion model; the battery-electric ones get ``electricSpellings``).
    static let fuels = ["gasoline", "Petrol", "Benzin", "diesel", "Diesel", "gasoline", "Petrol", "hybrid", "Hybrid"]
    static let transmissions = ["automatic", "manual", "Automatic", "Manual"]
    static let statuses = ["active", "active", "active", "maintenance", "inactive", "retired"]
    /// Position-10 year codes, 1980 first (30-year cycle; I, O, Q, U, Z and 0 are never used).
    static let yearCodes = Array("ABCDEFGHJKLMNPRSTVWXY123456789")
    static let vinAlphabet = Array("ABCDEFGHJKLMNPRSTUVWXYZ0123456789")
    /// A plate style per city: letters (`A`), digits (`9`) and anything else as it is.
    static let cities: [(latitude: Double, longitude: Double, plate: String)] = [
        (52.3547498, 4.8339215, "AA-999-AA"),  // Amsterdam
        (19.0823998, 72.8111468, "MH 09 AA 9999"),  // Mumbai
        (55.6713442, 12.523785, "AA 99 999"),  // Copenhagen
        (40.4380638, -3.7495758, "9999 AAA"),  // Madrid
        (48.8566, 2.3522, "AA-999-AA"),  // Paris
        (51.5072, -0.1276, "AA99 AAA"),  // London
        (40.7128, -74.0060, "AAA-9999"),  // New York
        (34.0522, -118.2437, "9AAA999"),  // Los Angeles
        (35.6762, 139.6503, "999-99-99"),  // Tokyo (the kana left out: ASCII plates)
    ]

    public var rows: Int
    public var seed: UInt64
    public var dirtyRate: Double
    /// Computes position 9 of a 17-character VIN whose other positions are set.
    public var checkDigit: @Sendable (String) -> Character
    public var currentYear: Int

    public init(
        rows: Int, seed: UInt64 = 1, dirtyRate: Double = 0, currentYear: Int = 2026,
        checkDigit: @escaping @Sendable (String) -> Character
    ) {
        self.rows = rows
        self.seed = seed
        self.dirtyRate = dirtyRate
        self.currentYear = currentYear
        self.checkDigit = checkDigit
    }

    /// A row's values in ``columns`` order (nil = empty cell).
    public typealias Row = [String?]

    /// Calls `emit` for every row, in order, and returns the expected validation counts.
    /// - Complexity: O(*n*) time; O(1) memory apart from a bounded pool of recent clean rows used
    ///   as duplicates.
    public func generate(_ emit: (Row) throws -> Void) rethrows -> Truth {
        var rng = SplitMix64(seed: seed)
        var truth = Truth()
        var pool: [Row] = []  // recent clean rows, for duplicates
        pool.reserveCapacity(64)
        let defects = Defect.allCases
        // Exactly round(rows × rate) dirty rows, spread uniformly: row i is dirty with probability
        // (dirty rows left) / (rows left), so every selection of that size is equally likely.
        var dirtyLeft = dirtyRate > 0 ? min(rows, Int((Double(rows) * dirtyRate).rounded())) : 0
        for i in 0..<rows {
            var row = cleanRow(index: i, rng: &rng)
            let dirty = dirtyLeft > 0 && rng.next(below: rows - i) < dirtyLeft
            if dirty {
                dirtyLeft -= 1
                var defect = defects[rng.next(below: defects.count)]
                if (defect == .duplicate || defect == .conflictingDuplicate) && pool.isEmpty { defect = .latitude }
                if defect == .checkDigit, !isNorthAmerican(row[0]!) { defect = .characters }
                truth.defects[defect.rawValue, default: 0] += 1
                switch defect {
                case .duplicate:
                    row = takeFromPool(&pool, &rng)
                    truth.duplicates += 1
                case .conflictingDuplicate:
                    row = takeFromPool(&pool, &rng)
                    row[7] = String(Int(row[7]!)! + 1 + rng.next(below: 5000))
                    truth.duplicates += 1
                    truth.findings["key.conflict", default: 0] += 1
                default:
                    apply(defect, to: &row, rng: &rng)
                    truth.rejected += 1
                    truth.findings[defect.rawValue, default: 0] += 1
                }
            } else {
                if pool.count < 64 { pool.append(row) } else { pool[rng.next(below: 64)] = row }
            }
            try emit(row)
        }
        truth.rows = rows
        truth.read = rows
        truth.loaded = rows - truth.rejected - truth.duplicates
        truth.inserted = truth.loaded
        return truth
    }

    /// A clean row to copy as a duplicate, taken out of the pool: each clean row is copied at most
    /// once, so a key appears at most twice and the truth counts stay exact (a third copy equal to
    /// the first would conflict with the second, a `key.conflict` the truth did not count).
    private func takeFromPool(_ pool: inout [Row], _ rng: inout SplitMix64) -> Row {
        let i = rng.next(below: pool.count)
        pool.swapAt(i, pool.count - 1)
        return pool.removeLast()
    }

    private func isNorthAmerican(_ vin: String) -> Bool { "12345".contains(vin.first!) }

    private func cleanRow(index: Int, rng: inout SplitMix64) -> Row {
        let maker = Self.makers[rng.next(below: Self.makers.count)]
        let model = maker.models[rng.next(below: maker.models.count)]
        // One of the 15 model years up to this one in which the model was built.
        let built = Self.modelYears[model] ?? 0...Int.max
        let first = max(currentYear - 14, built.lowerBound), last = min(currentYear, built.upperBound)
        let year = first <= last ? first + rng.next(below: last - first + 1) : currentYear - 14 + rng.next(below: 15)
        let code = Self.yearCodes[(year - 1980) % 30]
        // Position 7: a letter selects 2010-2039 in North America, a digit 1980-2009.
        let letters = Array("ABCDEFGHJKLMNPRSTUVWXYZ")
        // The serial encodes the row index, so clean VINs never collide.
        let serial = String(index % 1_000_000).leftPadded(to: 6)
        // Positions 4-6, 7 (the rule above), 8; the check digit (9) is computed below. (Position
        // 7 was the fourth random character and the rule's character went to position 8, so
        // `decode` put a 2016 Mustang in 1986.) Drawn again, a few times at most, while the VIN
        // decodes to another make of the code (`1C4` is Jeep, Chrysler, Dodge or Ram by its
        // positions 4-8 and 10-17; `JTD` Toyota or Lexus): 99% of generated Jeeps decoded as
        // something else.
        let wantedMake = Schema.fold(maker.make)
        var vin = ""
        for attempt in 0..<24 {
            let plant = Self.vinAlphabet[rng.next(below: 23)]
            var vds = maker.vds[model] ?? ""
            while vds.count < 4 { vds.append(Self.vinAlphabet[rng.next(below: Self.vinAlphabet.count)]) }
            let p7: Character =
                year >= 2010 ? letters[rng.next(below: letters.count)] : Character(String(rng.next(below: 10)))
            vin = maker.wmi + vds.prefix(3) + String(p7) + vds.suffix(1) + "0" + String(code) + String(plant) + serial
            if index >= 1_000_000 {  // keep VINs unique past a million rows: vary the plant code
                let wrap = index / 1_000_000
                vin = String(vin.prefix(10)) + String(Self.vinAlphabet[(wrap + 7) % Self.vinAlphabet.count]) + serial
            }
            var chars = Array(vin)
            chars[8] = checkDigit(vin)
            vin = String(chars)
            // Nor a European Mercedes-Benz layout (digits at 4-6 and 10), which carries no model year.
            if attempt == 23
                || (VINEngine.analyze(vin, currentYear: currentYear).make.map(Schema.fold) == wantedMake
                    && !VINDecoder.positionTenIsNoYear(Array(vin.utf8)))
            {
                break
            }
        }
        // Kilometres that fit the car's age: up to 30,000 a year, at least a few hundred.
        let age = max(0, currentYear - year)
        let odometer = 100 + rng.next(below: 30_000 * age + 15_000)
        let city = Self.cities[rng.next(below: Self.cities.count)]
        // Micro-degrees, formatted by hand: String(format:) costs more than the rest of the row.
        let lat = Int((city.latitude * 1e6).rounded()) + 10 * rng.next(below: 20_000) - 100_000
        let lon = Int((city.longitude * 1e6).rounded()) + 10 * rng.next(below: 20_000) - 100_000
        // Registered in the model year or the next; in the current year no later than June (the
        // data is as of mid-year, whatever the day it is generated: the output stays the same).
        let regYear = min(year + rng.next(below: 2), currentYear)
        let month = 1 + rng.next(below: regYear == currentYear ? 6 : 12)
        let fuel =
            Self.electricModels.contains(model)
            ? Self.electricSpellings[rng.next(below: Self.electricSpellings.count)]
            : Self.hybridModels.contains(model)
                ? Self.hybridSpellings[rng.next(below: Self.hybridSpellings.count)]
                : Self.fuels[rng.next(below: Self.fuels.count)]
        return [
            vin, maker.make, model, String(year), Self.colors[rng.next(below: Self.colors.count)],
            fuel, Self.transmissions[rng.next(below: 4)], String(odometer),
            Self.plate(city.plate, rng: &rng), Self.statuses[rng.next(below: Self.statuses.count)],
            Self.fixed6(lat), Self.fixed6(lon),
            String(regYear) + "-" + String(month).leftPadded(to: 2),
        ]
    }

    /// `value / 1e6` with six decimals: 52354750 → `52.354750`.
    static func fixed6(_ value: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let v = abs(value)
        return sign + String(v / 1_000_000) + "." + String(v % 1_000_000).leftPadded(to: 6)
    }

    /// A plate in `style` (``cities``): `A` a letter, `9` a digit, the rest as it is.
    static func plate(_ style: String, rng: inout SplitMix64) -> String {
        let letters = Array("BCDFGHJKLMNPRSTVWXZ")
        var s = ""
        for c in style {
            switch c {
            case "A": s.append(letters[rng.next(below: letters.count)])
            case "9": s.append(Character(String(rng.next(below: 10))))
            default: s.append(c)
            }
        }
        return s
    }

    private func apply(_ defect: Defect, to row: inout Row, rng: inout SplitMix64) {
        var vin = Array(row[0]!)
        switch defect {
        case .checkDigit:
            let right = vin[8]
            let digits = Array("0123456789X").filter { $0 != right }
            vin[8] = digits[rng.next(below: digits.count)]
            row[0] = String(vin)
        case .characters:
            vin[3 + rng.next(below: 5)] = ["I", "O", "Q"][rng.next(below: 3)]
            row[0] = String(vin)
        case .shortVIN:
            row[0] = String(vin.prefix(11 + rng.next(below: 5)))
        case .placeholder:
            // The shapes fleet files hold; each is one vin.placeholder finding and nothing else.
            row[0] = ["11111111111111111", "UNKNOWN", "12345678901234567", "00000000000000000", "AAAAAAAAAAAAAAAAA"][
                rng.next(below: 5)]
        case .latitude:
            // Beyond ±180, so swapping with the longitude cannot make the pair valid either.
            row[10] = String(format: "%.4f", 190 + Double(rng.next(below: 8000)) / 100)
        case .swapped:
            // A longitude beyond ±90 in the latitude column, the latitude in the longitude column.
            row[10] = String(format: "%.6f", 100 + Double(rng.next(below: 7900)) / 100)
            row[11] = String(format: "%.6f", Double(rng.next(below: 8000)) / 100)
        case .incomplete:
            row[11] = nil
        case .status:
            row[9] = "scrapped-ish"
        case .odometer:
            row[7] = "about " + row[7]!
        case .duplicate, .conflictingDuplicate:
            break
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
