import Foundation

extension String {
    /// The text in Unicode normalization form C (canonical composition), in time linear in its
    /// length. Foundation's normalization moves the rest of the string at every character it
    /// changes, which is quadratic: a 1.6 MB cell of `é` took 50 s to validate, a 150 MB one did
    /// not finish (an audit). Long text is normalized a run of 1,024 grapheme clusters at a time:
    /// composition and the reordering of combining marks stay within a cluster.
    var composedLinearly: String { normalizedInRuns { $0.precomposedStringWithCanonicalMapping } }

    /// The text in normalization form D (canonical decomposition), in linear time as
    /// ``composedLinearly``.
    var decomposedLinearly: String { normalizedInRuns { $0.decomposedStringWithCanonicalMapping } }

    private func normalizedInRuns(_ normalize: (String) -> String) -> String {
        guard utf8.count > 4096 else { return normalize(self) }
        var out = ""
        out.reserveCapacity(utf8.count)
        var start = startIndex
        var i = startIndex
        var clusters = 0
        while i < endIndex {
            i = index(after: i)
            clusters += 1
            if clusters == 1024 || i == endIndex {
                out += normalize(String(self[start..<i]))
                start = i
                clusters = 0
            }
        }
        return out
    }
}
