import Foundation

/// Byte-level cell writers for exports: values go from SQLite's column buffers straight into the
/// output, without a `String` per cell.
extension OutputBuffer {
    @inline(__always) mutating func append(bytes: UnsafeRawBufferPointer) {
        bytes.withMemoryRebound(to: UInt8.self) { self.bytes.append(contentsOf: $0) }
    }

    /// Appends a decimal integer.
    mutating func append(integer value: Int64) {
        if value >= 0, value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes, enough for 20 digits and a sign
        withUnsafeMutableBytes(of: &digits) { raw in
            var magnitude = value.magnitude
            var i = raw.count
            repeat {
                i -= 1
                raw[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                i -= 1
                raw[i] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[i...]))
        }
    }

    /// Opens a GeoJSON point feature, up to its properties object (which the caller writes and
    /// then closes the feature with `}`).
    mutating func appendGeoJSONFeatureStart(longitude: Double, latitude: Double) {
        append("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[" as StaticString)
        append(real: longitude)
        append(UInt8(ascii: ","))
        append(real: latitude)
        append("]},\"properties\":" as StaticString)
    }

    /// Appends a double as ``FieldValue/decimalText(_:)`` writes it (whole numbers without `.0`,
    /// never an exponent); `csv`: as ``FieldValue/csvDecimalText(_:)`` (`111.855` as `111.8550`,
    /// which reads back unambiguously).
    mutating func append(real d: Double, csv: Bool = false) {
        if d == d.rounded(.towardZero), abs(d) < 1e15 {
            append(integer: Int64(d))
        } else {
            append(csv ? FieldValue.csvDecimalText(d) : FieldValue.decimalText(d))
        }
    }

    /// Appends one CSV cell from UTF-8 bytes: quoted when it holds the delimiter, a quote, CR or
    /// LF (or starts or ends with a space), quotes doubled, NUL bytes left out; with `guardFormula`, a cell starting
    /// with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` (inside the quotes when quoted).
    mutating func appendCSVCell(bytes cell: UnsafeRawBufferPointer, delimiter: UInt8, guardFormula: Bool) {
        guard let first = cell.first else { return }
        // A NUL (a JSON `\u0000`, stored so) is left out, which no CSV reader takes; before the
        // formula guard looks at the start (`\u0000=HYPERLINK(…)` went out unguarded).
        if let base = cell.baseAddress, memchr(base, 0, cell.count) != nil {
            let kept = cell.filter { $0 != 0 }
            kept.withUnsafeBytes { appendCSVCell(bytes: $0, delimiter: delimiter, guardFormula: guardFormula) }
            return
        }
        let guarded = guardFormula && CSVWriter.needsGuard(count: cell.count) { cell[$0] }
        var needsQuotes = first == 0x20 || cell[cell.count - 1] == 0x20
        if !needsQuotes {
            for b in cell where b == delimiter || b == UInt8(ascii: "\"") || b == 0x0A || b == 0x0D {
                needsQuotes = true
                break
            }
        }
        if !needsQuotes {
            if guarded { bytes.append(UInt8(ascii: "'")) }
            append(bytes: cell)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        if guarded { bytes.append(UInt8(ascii: "'")) }
        var runStart = 0
        for i in 0..<cell.count where cell[i] == UInt8(ascii: "\"") {
            append(bytes: UnsafeRawBufferPointer(rebasing: cell[runStart...i]))
            bytes.append(UInt8(ascii: "\""))
            runStart = i + 1
        }
        append(bytes: UnsafeRawBufferPointer(rebasing: cell[runStart...]))
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 bytes as a JSON string literal (see ``appendJSONString(_:)``).
    mutating func appendJSONString(bytes u: UnsafeRawBufferPointer) {
        JSONEscaping.appendQuoted(u.assumingMemoryBound(to: UInt8.self), to: &bytes)
    }
}
