import Foundation

/// One table of `Schemas/synonyms.json`: spellings → canonical value, compared after
/// ``Schema/fold(_:)`` (case, spaces and punctuation ignored; `Plug-in Hybrid` = `plugin hybrid`).
public struct SynonymTable: Sendable, Hashable {
    public let name: String
    /// The canonical values, in file order.
    public let canonicalValues: [String]
    private let lookup: [String: String]
    /// Folded words a spelling may end with and still match (the makes' company forms:
    /// `BMW AG`, `Tesla Motors`, `Honda Motor Co., Ltd.`); longest first.
    private let suffixes: [String]

    /// Builds a table. Every canonical value also matches itself. Throws when one spelling maps to
    /// two canonical values.
    /// - Parameter suffixes: words a spelling may end with (after folding), taken off, up to three
    ///   of them, when the whole spelling is unknown: `Mercedes-Benz AG` is `Mercedes-Benz`.
    public init(name: String, entries: [(canonical: String, spellings: [String])], suffixes: [String] = []) throws {
        var lookup: [String: String] = [:]
        for (canonical, spellings) in entries {
            for spelling in [canonical] + spellings {
                let key = Schema.fold(spelling)
                if key.isEmpty { continue }
                if let other = lookup[key], other != canonical {
                    throw VinyardError(
                        .usage,
                        "synonym table \(name): '\(spelling)' maps to both '\(other)' and '\(canonical)'; keep one")
                }
                lookup[key] = canonical
            }
        }
        self.name = name
        self.canonicalValues = entries.map(\.canonical)
        self.lookup = lookup
        self.suffixes = Set(suffixes.map(Schema.fold).filter { !$0.isEmpty }).sorted { ($0.count, $0) > ($1.count, $1) }
    }

    /// The canonical value for a spelling, or nil when the table does not know it.
    public func canonical(_ value: String) -> String? {
        // No spelling is that long: a 50 MB cell was folded and searched for suffixes (33 s, 1 GB).
        guard value.utf8.count <= Self.longestSpelling else { return nil }
        return canonical(folded: Schema.fold(value))
    }

    /// Longer values are no spelling of any table (with company suffixes, a few dozen bytes).
    static let longestSpelling = 256

    /// The canonical value for a spelling written exactly so (no suffix taken off).
    func exact(_ value: String) -> String? { value.utf8.count <= Self.longestSpelling ? lookup[Schema.fold(value)] : nil }

    /// The canonical value for an already folded spelling.
    func canonical(folded: String) -> String? {
        guard folded.utf8.count <= Self.longestSpelling else { return nil }
        if let known = lookup[folded] { return known }
        // `hondamotorcoltd`: `ltd`, then `co`, then `motor` off; a rest that is no known spelling
        // matches nothing (`General Motors` is not `General`).
        for rest in withoutSuffixes(folded: folded) {
            if let known = lookup[rest] { return known }
        }
        return nil
    }

    /// What is left of a folded spelling as up to three of the table's suffixes come off its end,
    /// one at a time (`hondamotorcoltd`: `hondamotorco`, `hondamotor`, `honda`).
    func withoutSuffixes(folded: String) -> [String] {
        var rests: [String] = []
        var rest = Substring(folded)
        for _ in 0..<3 {
            guard let suffix = suffixes.first(where: { rest.count > $0.count && rest.hasSuffix($0) }) else { break }
            rest = rest.dropLast(suffix.count)
            rests.append(String(rest))
        }
        return rests
    }
}

/// The known makes (`Schemas/makes.json`): canonical spelling (`VW` → `Volkswagen`) and splitting
/// a combined `make and model` value (multi-word makes such as Land Rover win over shorter ones).
public struct MakeTable: Sendable, Hashable {
    /// The makes as a synonym table named `make`.
    public let synonyms: SynonymTable
    /// The most words any spelling has (`Daimler-Benz` is one, `Alfa Romeo` two).
    private let maxWords: Int

    /// - Parameter companySuffixes: words of a company name after the make (`AG`, `Motors`,
    ///   `Corporation`), matched as ``SynonymTable`` suffixes.
    public init(makes: [(name: String, spellings: [String])], companySuffixes: [String] = []) throws {
        synonyms = try SynonymTable(name: "make", entries: makes.map { ($0.name, $0.spellings) }, suffixes: companySuffixes)
        var most = 1
        for make in makes {
            for spelling in [make.name] + make.spellings {
                most = max(most, spelling.split(whereSeparator: { $0 == " " }).count)
            }
        }
        maxWords = most
    }

    /// The canonical spelling of a make, or nil when unknown.
    public func canonical(_ make: String) -> String? { synonyms.canonical(make) }

    /// Splits `Land Rover Defender 110` into (`Land Rover`, `Defender 110`): the longest run of
    /// leading words that is a known make wins. An unknown make is the first word as written.
    /// - Returns: the make (canonical when known) and the model (nil when nothing follows).
    public func split(_ makeAndModel: String) -> (make: String, model: String?)? {
        let words = makeAndModel.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let first = words.first else { return nil }
        var count = min(maxWords, words.count)
        while count >= 1 {
            let candidate = words[0..<count].joined(separator: " ")
            // Exact spellings only: with its suffixes, `Ford SE` would be the make `Ford` without a model.
            if let make = synonyms.exact(candidate) {
                let rest = words[count...].joined(separator: " ")
                return (make, rest.isEmpty ? nil : rest)
            }
            count -= 1
        }
        let rest = words.dropFirst().joined(separator: " ")
        return (String(first), rest.isEmpty ? nil : rest)
    }
}
