import Foundation

/// One table of `Schemas/synonyms.json`: spellings → canonical value, compared after
/// ``Schema/fold(_:)`` (case, spaces and punctuation ignored; `Plug-in Hybrid` = `plugin hybrid`).
public struct SynonymTable: Sendable, Hashable {
    public let name: String
    /// The canonical values, in file order.
    public let canonicalValues: [String]
    private let lookup: [String: String]

    /// Builds a table. Every canonical value also matches itself. Throws when one spelling maps to
    /// two canonical values.
    public init(name: String, entries: [(canonical: String, spellings: [String])]) throws {
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
    }

    /// The canonical value for a spelling, or nil when the table does not know it.
    public func canonical(_ value: String) -> String? {
        lookup[Schema.fold(value)]
    }

    /// The canonical value for an already folded spelling.
    func canonical(folded: String) -> String? { lookup[folded] }
}

/// The known makes (`Schemas/makes.json`): canonical spelling (`VW` → `Volkswagen`) and splitting
/// a combined `make and model` value (multi-word makes such as Land Rover win over shorter ones).
public struct MakeTable: Sendable, Hashable {
    /// The makes as a synonym table named `make`.
    public let synonyms: SynonymTable
    /// The most words any spelling has (`Daimler-Benz` is one, `Alfa Romeo` two).
    private let maxWords: Int

    public init(makes: [(name: String, spellings: [String])]) throws {
        synonyms = try SynonymTable(name: "make", entries: makes.map { ($0.name, $0.spellings) })
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
            if let make = synonyms.canonical(candidate) {
                let rest = words[count...].joined(separator: " ")
                return (make, rest.isEmpty ? nil : rest)
            }
            count -= 1
        }
        let rest = words.dropFirst().joined(separator: " ")
        return (String(first), rest.isEmpty ? nil : rest)
    }
}
