import Testing
@testable import VinyardKit

/// Real VINs with their known make and model year, as public VIN-decoder test suites assert them:
/// h3/python-libvin `tests/__init__.py`, davidpeckham/vin `tests/cars/*.yaml` and `test_*.py`,
/// autodiag2/database `scripts/VIN/vindecoder/tests/decoder_test.py`. (VINs with their make and year are
/// facts; the selection is ours.)
@Suite struct VINCorpusTests {
    static let corpus: [(vin: String, make: String, year: Int)] = [
        ("137ZA903X1E412677", "Hummer", 2001),
        ("1D7RB1CT1BS488952", "Dodge", 2011),
        ("19XFB4F24DE547421", "Honda", 2013),
        ("1GYFC56299R410242", "Cadillac", 2009),
        ("2A4GM684X6R632476", "Chrysler", 2006),
        ("2D4RN6DX5AR939562", "Dodge", 2010),
        ("2G61W5S83E9422251", "Cadillac", 2014),
        ("2T2BGMCA0GC004299", "Lexus", 2016),
        ("3CZRU5H35GM739695", "Honda", 2016),
        ("3GCEC13078G157479", "Chevrolet", 2008),
        ("5J6TF1H33CL339137", "Honda", 2012),
        ("JA4AD2A3XEZ426420", "Mitsubishi", 2014),
        ("JTHBW1GG7D2369737", "Lexus", 2013),
        ("SCBEC9ZA1EC225243", "Bentley", 2014),
        ("W04GW5EV0B1603732", "Buick", 2011),
        ("WDDNG7BB4AA522219", "Mercedes-Benz", 2010),
        ("3MZBM1K72GM303265", "Mazda", 2016),
        ("4S3BNAH62G3049699", "Subaru", 2016),
        ("5GNRNGEE9A8215904", "Hummer", 2010),
        ("JN8BS1MW7EM920252", "Infiniti", 2014),
        ("1FMCU14T3JU402061", "Ford", 1988),
        ("1N6SD16S3NC346350", "Nissan", 1992),
        ("WAULFAFR6DA001366", "Audi", 2013),
        ("4T1BB3EK5AU118081", "Toyota", 2010),
        ("5XYZUDLB3DG001966", "Hyundai", 2013),
        ("JTKKU4B40C1028652", "Toyota", 2012),
        ("JH4KA3171KC014556", "Acura", 1989),
        ("KM8JN72D07U585496", "Hyundai", 2007),
        ("JH4KA465XJC001719", "Acura", 1988),
        ("JH4KA4552JC049099", "Acura", 1988),
        ("1J4BA3H14AL172837", "Jeep", 2010),
        ("2D8GP44L05R217097", "Dodge", 2005),
        ("WP0CB29804U662557", "Porsche", 2004),
        ("JH4DC4347RS007557", "Acura", 1994),
        ("1FMCU14T5JU402336", "Ford", 1988),
        ("JH4KA7536MC014019", "Acura", 1991),
        ("2T1BR30E36C599972", "Toyota", 2006),
        ("JTHFE2C23A2509749", "Lexus", 2010),
        ("2T1BR30E46C591864", "Toyota", 2006),
        ("1JCMR7846JT184561", "Jeep", 1988),
        ("1GCHK29U11E239270", "Chevrolet", 2001),
        ("1G8ZH528XYZ262643", "Saturn", 2000),
        ("5N3ZA0NE8AN903142", "Infiniti", 2010),
        ("WAULFAFR8DA002471", "Audi", 2013),
        ("KNDC3DAB6R5000001", "Kia", 2024),
        ("KNDETCRA2R7000001", "Kia", 2024),
        ("KNDEU2F72R7000001", "Kia", 2024),
        ("KNDNC5K39R5000001", "Kia", 2024),
        ("1FMEE4CR8PL000001", "Ford", 2023),
        ("1FMDE4EP6PU000001", "Ford", 2023),
    ]

    @Test(arguments: corpus.map { "\($0.vin) \($0.make) \($0.year)" })
    func decodesMakeAndYear(row: String) {
        let parts = row.split(separator: " ", maxSplits: 1)
        let vin = String(parts[0])
        guard let entry = Self.corpus.first(where: { $0.vin == vin }) else { return }
        let a = VINEngine.analyze(vin, currentYear: 2025)
        #expect(a.make == entry.make, "\(vin): \(a.make ?? "nil")")
        #expect(a.modelYear == entry.year, "\(vin): \(a.modelYear.map(String.init) ?? "nil")")
    }
}
