extension String {
    /// Calls `body` with the string's UTF-8 bytes: read in place when they are contiguous (no copy,
    /// no retain of storage another thread made), else from a contiguous copy. Walking `utf8` by
    /// index instead costs tens of instructions a byte on the per-row paths (callgrind).
    @inline(__always)
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}

extension Unicode.Scalar {
    /// The scalar as a message shows it: a control character (C0, DEL, C1) as `\u{1B}`, so that
    /// a name read from an input cannot drive the terminal; anything else as it is.
    public var shownInMessage: String {
        value < 0x20 || (0x7F..<0xA0).contains(value) ? "\\u{" + String(value, radix: 16, uppercase: true) + "}" : String(self)
    }
}

extension String {
    /// The text as a message shows it: each control character as ``Unicode/Scalar/shownInMessage``
    /// writes it; the same string when it has none.
    public var shownInMessage: String {
        guard unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }) else { return self }
        return unicodeScalars.map(\.shownInMessage).joined()
    }
}
