/// The outcome of checking a latitude/longitude pair: the values (set when the pair is usable)
/// and the findings.
public struct CoordinateCheck: Sendable, Hashable {
    public var latitude: Double?
    public var longitude: Double?
    public var findings: [Finding]
}

/// Checks coordinate pairs (DESIGN.md "Validation"): both absent is fine; errors
/// `coord.latitude`, `coord.longitude`, `coord.incomplete`, `coord.swapped` (instead of
/// `coord.latitude` when swapping the values makes the pair valid); warning `coord.null_island`.
public enum CoordinateValidator {
    /// Checks a pair written as text (nil or blank = absent). Numbers may use a decimal comma
    /// (`52,3547498`) as ``ValueParser/parseNumber(_:decimal:)`` allows.
    public static func check(
        latitude: String?, longitude: String?, decimal: DecimalSeparator = .auto,
        latitudeField: String = "latitude", longitudeField: String = "longitude"
    ) -> CoordinateCheck {
        func parse(_ text: String?) -> CoordinateInput? {
            guard let text = text.map(ValueParser.trimmed), !text.isEmpty else { return nil }
            return CoordinateInput(text: text, value: number(text, decimal: decimal))
        }
        return check(
            latitude: parse(latitude), longitude: parse(longitude), latitudeField: latitudeField,
            longitudeField: longitudeField)
    }

    /// A coordinate written as text, nil when it is not a number. Degrees never group thousands,
    /// so a lone comma or dot (`48,137`, `48.137`: ambiguous for other numbers under `.auto`,
    /// thousands under `--decimal comma|point`) is the decimal separator here: 48.137.
    @inline(never)  // Inlined into the mapper's loop, it pushed other calls there out of line.
    public static func number(_ text: String, decimal: DecimalSeparator = .auto) -> Double? {
        // Most coordinates have more than three decimals: one exact parse, whichever separator.
        if let exact = text.withUTF8Bytes({ ValueParser.exactDecimal($0, decimal: .auto) }) { return exact }
        // Contiguous UTF-8 read in place (a walk of `utf8` by index costs more per byte).
        let (dots, commas) = text.withUTF8Bytes { bytes in
            var dots = 0, commas = 0
            for b in bytes {
                if b == UInt8(ascii: ".") { dots += 1 } else if b == UInt8(ascii: ",") { commas += 1 }
            }
            return (dots, commas)
        }
        let separator: DecimalSeparator = dots + commas == 1 ? (commas == 1 ? .comma : .point) : decimal
        if case .success(let v) = ValueParser.parseNumber(text, decimal: separator), !underflowed(v, text) { return v }
        return nil
    }

    /// Why a coordinate's text gave no number: none at all, or one too small to keep (`1e-400`).
    private static func notANumber(_ text: String) -> String {
        if let d = Double(text), underflowed(d, text) { return "is too small to keep (it would be 0)" }
        return "is not a number"
    }

    /// A nonzero number written below a double's range (`1e-400`), parsed as 0: it was stored as
    /// 0 with no finding (found by audit); it is no coordinate.
    static func underflowed(_ value: Double, _ text: String) -> Bool { ValueParser.underflowed(value, text) }

    /// One coordinate as written (`text`) and as parsed (`value`, nil when it is not a number).
    public struct CoordinateInput: Sendable, Hashable {
        public var text: String
        public var value: Double?
        public init(text: String, value: Double?) {
            self.text = text
            self.value = value
        }
    }

    /// Checks a pair already parsed (nil = absent).
    public static func check(
        latitude: CoordinateInput?, longitude: CoordinateInput?, latitudeField: String = "latitude",
        longitudeField: String = "longitude"
    ) -> CoordinateCheck {
        var findings: [Finding] = []
        if let latitude, latitude.value == nil {
            findings.append(
                Finding(
                    .coordLatitude, .error, field: latitudeField,
                    message: "latitude '\(latitude.text)' \(notANumber(latitude.text)); write decimal degrees such as 52.3547498"))
        }
        if let longitude, longitude.value == nil {
            findings.append(
                Finding(
                    .coordLongitude, .error, field: longitudeField,
                    message: "longitude '\(longitude.text)' \(notANumber(longitude.text)); write decimal degrees such as 4.8339215"))
        }
        let lat = latitude?.value
        let lon = longitude?.value
        switch (latitude, longitude) {
        case (nil, nil):
            return CoordinateCheck(latitude: nil, longitude: nil, findings: [])
        case (nil, .some(let l)):
            findings.insert(
                Finding(
                    .coordIncomplete, .error, field: latitudeField,
                    message: "longitude '\(l.text)' has no latitude; give both coordinates or neither"), at: 0)
            return CoordinateCheck(
                latitude: nil, longitude: nil,
                findings: findings + rangeFindings(nil, lon, latitudeField, longitudeField))
        case (.some(let l), nil):
            findings.insert(
                Finding(
                    .coordIncomplete, .error, field: longitudeField,
                    message: "latitude '\(l.text)' has no longitude; give both coordinates or neither"), at: 0)
            return CoordinateCheck(
                latitude: nil, longitude: nil,
                findings: findings + rangeFindings(lat, nil, latitudeField, longitudeField))
        case (.some, .some):
            break
        }
        guard let lat, let lon else {
            // One is not a number; still report the other when it is out of range.
            return CoordinateCheck(
                latitude: nil, longitude: nil, findings: findings + rangeFindings(lat, lon, latitudeField, longitudeField))
        }
        return check(latitude: lat, longitude: lon, latitudeField: latitudeField, longitudeField: longitudeField)
    }

    /// Checks a pair of numbers that are both present.
    public static func check(
        latitude lat: Double, longitude lon: Double, latitudeField: String = "latitude",
        longitudeField: String = "longitude"
    ) -> CoordinateCheck {
        let latOK = lat.isFinite && abs(lat) <= 90
        let lonOK = lon.isFinite && abs(lon) <= 180
        if !latOK, lat.isFinite, abs(lat) <= 180, abs(lon) <= 90 {
            let suggestion = "\(FieldValue.format(lon)),\(FieldValue.format(lat))"
            return CoordinateCheck(
                latitude: nil, longitude: nil,
                findings: [
                    Finding(
                        .coordSwapped, .error, field: latitudeField,
                        message:
                            "latitude \(FieldValue.format(lat)) is outside -90..90 but longitude \(FieldValue.format(lon)) would fit: the two look swapped; write latitude \(FieldValue.format(lon)), longitude \(FieldValue.format(lat))",
                        suggestion: suggestion)
                ])
        }
        var findings = rangeFindings(latOK ? nil : lat, lonOK ? nil : lon, latitudeField, longitudeField)
        if findings.isEmpty, lat == 0, lon == 0 {
            findings.append(
                Finding(
                    .coordNullIsland, .warning, field: latitudeField,
                    message: "coordinates 0,0 (\"null island\") are almost always a missing position; check the source"))
        }
        return !findings.contains(where: { $0.severity == .error })
            ? CoordinateCheck(latitude: lat, longitude: lon, findings: findings)
            : CoordinateCheck(latitude: nil, longitude: nil, findings: findings)
    }

    /// Range errors for values known to be out of range (or checked here when given).
    private static func rangeFindings(
        _ lat: Double?, _ lon: Double?, _ latField: String, _ lonField: String
    ) -> [Finding] {
        var out: [Finding] = []
        if let lat, !(lat.isFinite && abs(lat) <= 90) {
            out.append(
                Finding(
                    .coordLatitude, .error, field: latField,
                    message: "latitude \(FieldValue.format(lat)) is outside -90..90; write decimal degrees"))
        }
        if let lon, !(lon.isFinite && abs(lon) <= 180) {
            out.append(
                Finding(
                    .coordLongitude, .error, field: lonField,
                    message: "longitude \(FieldValue.format(lon)) is outside -180..180; write decimal degrees"))
        }
        return out
    }
}
