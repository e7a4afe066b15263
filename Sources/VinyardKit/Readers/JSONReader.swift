/// A streaming reader of JSON records: a top-level array of objects, an object wrapping one array
/// of objects (`{"vehicles": [...]}`), or an array of such objects (`[{"vehicles": [...]}]`, one
/// page or several). Elements are parsed one at a time; the file is never loaded whole.
///
/// Shapes, decided by looking at the start of the input:
/// - `[` … : each element is a record; an element that is not an object is a reject
///   (`row.malformed`) and reading goes on. When the array's first element is an object whose
///   only member is an array of objects and nothing follows it but `]`, that inner array holds the
///   records (``wrapperKey`` names its key). Under a known wrapper key (``knownWrapperKeys``) more
///   such objects may follow, each a page of records under the same key (an API's pages saved
///   as one array).
/// - `{` … : when its first member is an array of objects and any other members are scalars
///   (`{"vehicles": [...], "count": 2}`), or one member with a known wrapper key
///   (``knownWrapperKeys``: `{"total": 2, "meta": {…}, "vehicles": [...]}`) is an array of
///   objects, that array holds the records (the other members are syntax-checked and ignored);
///   or one member with an envelope key (``envelopeKeys``) is an object wrapping such an array
///   under a known wrapper key (`{"data": {"vehicles": [...]}, "errors": null}`, GraphQL's
///   answer); otherwise the object is one record. Objects and first elements
///   larger than 1 MiB whose first member is an array are taken as wrappers (streamed), and so
///   are objects that do not parse whose first member is an array opening with an object (a bad
///   element inside a wrapper is then one reject, as in a bare array).
/// - A syntax error inside an element of the record array (or an element nested deeper than the
///   parser's limit) makes that element a reject (`row.malformed`, with the error's line and
///   column) when the element's end can be found by counting brackets outside strings; reading
///   goes on with the next element. Any other syntax error is fatal: `.malformedInput` with
///   `FILE:LINE:COL: …`.
/// - An empty (or all-whitespace) input is malformed: a JSON text holds one value.
public final class JSONReader: RecordReader {
    public let inputName: String
    /// The key of the object wrapping the record array (`vehicles`), if any.
    public private(set) var wrapperKey: String?

    private let buffer: InputBuffer
    /// The window on the input (the pipeline reads how far it got).
    var inputBuffer: InputBuffer { buffer }
    private var parser: JSONParser
    private let encoding: TextEncoding
    private var line = 1
    /// Absolute offset of the byte after the last newline seen (for columns).
    private var lineStartOffset = 0
    private var index = 0
    private enum State { case start, firstElement, afterElement, singleObject, done }
    private var state = State.start
    private var insideObjectWrapper = false
    /// Members beside the record array that hold objects and are not read (`{"data": [...],
    /// "more": [...]}`), one note each for the input's warnings: their records were dropped
    /// without a word (found by audit).
    public private(set) var notes: [String] = []
    private var notedKeys = Set<String>()

    /// The key of an envelope object around the wrapping object (`{"data": {"vehicles": [...]}}`,
    /// as GraphQL answers), if any.
    private var envelopeKey: String?
    private var insideArrayWrapper = false
    private static let lookahead = 1024 * 1024

    init(buffer: InputBuffer, encoding: TextEncoding) {
        self.buffer = buffer
        self.inputName = buffer.source.name
        self.encoding = encoding
        self.parser = JSONParser(encoding: encoding)
    }

    /// Creates a reader over any byte source.
    public convenience init(source: any ByteSource, encoding: TextEncoding = .auto, maxRecordBytes: Int = 256 * 1024 * 1024) throws {
        self.init(buffer: InputBuffer(source: source, maxRecordBytes: maxRecordBytes), encoding: encoding)
        try begin()
    }

    /// Reads the opening of the input and decides its shape.
    func begin() throws {
        guard state == .start else { return }
        try buffer.skipBOM()
        guard let c = try peek() else {
            throw VinyardError(.malformedInput, "\(inputName):1:1: empty input; a JSON file holds an array or an object")
        }
        switch c {
        case UInt8(ascii: "["):
            try buffer.fill(atLeast: Self.lookahead)
            let afterBracket = buffer.start + 1
            if let key = try wrapperKeyAt(skippingWhitespaceFrom: afterBracket, inArray: true) {
                wrapperKey = key
                insideArrayWrapper = true
                try enterWrapper()
            } else {
                advance(to: afterBracket)
            }
            state = .firstElement
        case UInt8(ascii: "{"):
            try buffer.fill(atLeast: Self.lookahead)
            if let key = try wrapperKeyAt(skippingWhitespaceFrom: buffer.start, inArray: false) {
                wrapperKey = key
                try enterWrapper()
                state = .firstElement
            } else if let (envelope, inner) = envelopeAt(buffer.start),
                let key = try wrapperKeyAt(skippingWhitespaceFrom: inner, inArray: false),
                // Only a known wrapper key inside: `{"id": 1, "data": {"options": [{…}]}}` is a record.
                Self.namesRecordArray(key)
            {
                envelopeKey = envelope
                wrapperKey = key
                try enterEnvelope()
                try enterWrapper()
                state = .firstElement
            } else {
                state = .singleObject
            }
        default:
            throw error("the top-level value is not an array or an object (found \(JSONParser.describe(c)))", at: buffer.start)
        }
    }

    public func next() throws -> ReadItem? {
        if state == .start { try begin() }
        // A loop: the `]` of one page of a paged array may be followed by an empty page.
        while true {
            switch state {
            case .start, .done:
                return nil
            case .singleObject:
                let item = try element()
                try expectEnd(afterSingle: true)
                state = .done
                return item
            case .firstElement:
                if try peek() == UInt8(ascii: "]") {
                    advance(to: buffer.start + 1)
                    try close()
                    continue
                }
                state = .afterElement
                return try element()
            case .afterElement:
                guard let c = try peek() else { throw error("unexpected end of input; expected ',' or ']'", at: buffer.start) }
                if c == UInt8(ascii: "]") {
                    advance(to: buffer.start + 1)
                    try close()
                    continue
                }
                guard c == UInt8(ascii: ",") else {
                    throw error("expected ',' or ']' after an array element, found \(JSONParser.describe(c))", at: buffer.start)
                }
                advance(to: buffer.start + 1)
                return try element()
            }
        }
    }

    // MARK: - Shape

    /// Keys that name a record array wherever they stand in a wrapping object, whatever its other
    /// members are (`{"total": 9, "page": {…}, "vehicles": [...]}`): the sources' wrapper keys
    /// and the usual API envelopes.
    static let knownWrapperKeys: Set<String> = ["vehicles", "records", "fleet", "locations", "places", "data", "items", "results", "rows"]

    /// Keys that name the record array only beside metadata (``isEnvelopeMetadata(_:)``) and
    /// scalars: OData's `value` (`{"@odata.context": …, "value": [...]}`), Spring's page
    /// `content`, Elasticsearch's `hits`, CouchDB's `docs`, and what fleet systems call their
    /// vehicles. Beside a record's fields they are its own list (`"equipment": [{…}]`), and they
    /// name no page of a paged array (found by review).
    static let listKeys: Set<String> = ["value", "content", "hits", "docs", "assets", "units", "equipment", "entries", "features"]

    /// Whether `key` is one a record array goes by (``knownWrapperKeys`` or ``listKeys``).
    static func namesRecordArray(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return knownWrapperKeys.contains(lowered) || listKeys.contains(lowered)
    }

    /// The key of the record array in an object's members, or nil: the first member when it is
    /// an array of objects (not empty, unless its key is a known wrapper key) and the other
    /// members are scalars, else the one member with a known
    /// wrapper key (``knownWrapperKeys``) that is an array of objects.
    static func recordArrayKey(_ members: [RawField]) -> String? {
        func isObjectArray(_ v: RawValue) -> Bool {
            guard case .array(let elements) = v else { return false }
            return elements.allSatisfy { if case .object = $0 { true } else { false } }
        }
        // An empty array under a key no source uses says nothing: `[{"options": [], "vin": …}]`
        // is one record, not an empty wrapper (its record was dropped without a word).
        // Nor is an object with a VIN: it is a vehicle with a list of its own (`{"service_history":
        // [{…}], "vin": …}`), not an envelope.
        if let first = members.first, isObjectArray(first.value), first.value != .array([]) || knownWrapperKeys.contains(first.name.lowercased()),
            members.dropFirst().allSatisfy({ isScalar($0.value) }),
            !members.dropFirst().contains(where: { Self.isVINName($0.name) })
        {
            return first.name
        }
        // An object with a VIN is a vehicle, whatever its lists are called (`"items": [{…}]`, its
        // equipment): it was read as an envelope and its items as the records.
        guard !members.contains(where: { Self.isVINName($0.name) }) else { return nil }
        let known = members.filter { knownWrapperKeys.contains($0.name.lowercased()) && isObjectArray($0.value) }
        // An empty known list beside the records says nothing (`{"vehicles": [{…}], "data": []}`).
        let filled = known.filter { $0.value != .array([]) }
        if filled.count == 1 { return filled[0].name }
        if filled.count > 1 { return nil }
        // Under a known wrapper key an array that holds objects is the record array even when some
        // of its elements are not objects (`{"vehicles": [null, {…}]}`, also beside `"data": []`):
        // those become `row.malformed` rejects, as in a bare array, instead of the whole envelope
        // being read as one record that names no source (exit 64), or the empty list as the records.
        let mixed = members.filter { knownWrapperKeys.contains($0.name.lowercased()) && holdsObjects($0.value) }
        if mixed.count == 1 { return mixed[0].name }
        // An empty wrapper (`{"count": 0, "vehicles": []}`).
        if mixed.isEmpty && known.count == 1 { return known[0].name }
        guard known.isEmpty && mixed.isEmpty else { return nil }
        // (`features` only in a GeoJSON FeatureCollection: a record's own list of features stays its own.)
        let featureCollection = members.contains { $0.name == "type" && $0.value == .string("FeatureCollection") }
        let lists = members.filter {
            listKeys.contains($0.name.lowercased()) && isObjectArray($0.value) && $0.value != .array([])
                && ($0.name.lowercased() != "features" || featureCollection)
        }
        guard lists.count == 1,
            members.allSatisfy({ $0.name == lists[0].name || isScalar($0.value) || isEnvelopeMetadata($0.name) })
        else { return nil }
        return lists[0].name
    }

    /// When the bytes from `from` (after whitespace) open an object that wraps the record array
    /// (``recordArrayKey(_:)``; and, `inArray`, nothing but `]` follows that object), returns the
    /// array's key. An object too large for the look-ahead window is a wrapper when its first
    /// array-valued member (after members that fit the window) is its first member or has a known
    /// wrapper key.
    private func wrapperKeyAt(skippingWhitespaceFrom from: Int, inArray: Bool) throws -> String? {
        let eof = buffer.eof
        var several: [String] = []
        let key = buffer.withBytes { whole -> String? in
            let p = UnsafeBufferPointer(rebasing: whole[0..<buffer.end])
            func skipSpace(_ k: inout Int) {
                while k < p.count, p[k] == 0x20 || p[k] == 0x0A || p[k] == 0x0D || p[k] == 0x09 { k += 1 }
            }
            var i = from
            skipSpace(&i)
            guard i < p.count, p[i] == UInt8(ascii: "{") else { return nil }
            // Parse the whole object when it fits in the look-ahead window.
            var full = JSONParser(encoding: encoding)
            let outcome = full.parse(p, from: i, final: eof)
            if case .value(let v, let end) = outcome {
                guard case .object(let members) = v else { return nil }
                guard let key = Self.recordArrayKey(members) else {
                    // Two tables in one file: the top-level object, or the only element of the
                    // top-level array (a first record of an array that has lists is a record).
                    var j = end
                    skipSpace(&j)
                    if !inArray || (j < p.count && p[j] == UInt8(ascii: "]")) { several = Self.sourceRecordArrays(members) }
                    return nil
                }
                if inArray {
                    var j = end
                    skipSpace(&j)
                    guard j < p.count else { return nil }
                    if p[j] == UInt8(ascii: ",") {
                        // Another page (`[{"vehicles": [...]}, {"vehicles": [...]}]`): only under a
                        // known wrapper key; `[{"options": [{…}], "price": 1}, {…}]` is records.
                        guard Self.knownWrapperKeys.contains(key.lowercased()) else { return nil }
                        j += 1
                        skipSpace(&j)
                        guard j >= p.count || p[j] == UInt8(ascii: "{") else { return nil }
                    } else if p[j] != UInt8(ascii: "]") {
                        return nil
                    }
                }
                return key
            }
            // Too large, or not well-formed: find the first member whose value is an array.
            var k = i + 1
            var memberIndex = 0
            // Whether every member so far was a scalar or metadata: a list key may follow them
            // (OData's `value` after `@odata.context` in a file past the window; found by review).
            var onlyMetadata = true
            var featureCollection = false
            while true {
                guard let key = Self.memberKey(p, at: &k, encoding: encoding) else { return nil }
                // A record (a VIN among its first members) with a large list of its own.
                if Self.isVINName(key) { return nil }
                if p[k] == UInt8(ascii: "[") {
                    guard memberIndex == 0 || Self.knownWrapperKeys.contains(key.lowercased())
                        || (onlyMetadata && !inArray && Self.listKeys.contains(key.lowercased())
                            && (key.lowercased() != "features" || featureCollection))
                    else { return nil }
                    if case .needMore = outcome { return key }  // too large to be one record: a wrapper
                    return Self.looksLikeWrapper(
                        p, object: i, array: k, inArray: inArray, paged: Self.knownWrapperKeys.contains(key.lowercased())) ? key : nil
                }
                var member = JSONParser(encoding: encoding)
                guard case .value(let value, let valueEnd) = member.parse(p, from: k, final: eof) else { return nil }
                if !(Self.isScalar(value) || Self.isEnvelopeMetadata(key)) { onlyMetadata = false }
                if key == "type", value == .string("FeatureCollection") { featureCollection = true }
                k = valueEnd
                skipSpace(&k)
                guard k < p.count, p[k] == UInt8(ascii: ",") else { return nil }
                k += 1
                memberIndex += 1
            }
        }
        if several.count > 1 { throw severalRecordArrays(several, at: from) }
        return key
    }

    /// Reads an object member's `"key" :` from `k` (white space around it skipped) and leaves `k`
    /// at its value; nil when the bytes there are no such thing or the value is not buffered.
    static func memberKey(_ p: UnsafeBufferPointer<UInt8>, at k: inout Int, encoding: TextEncoding) -> String? {
        func skipSpace() {
            while k < p.count, p[k] == 0x20 || p[k] == 0x0A || p[k] == 0x0D || p[k] == 0x09 { k += 1 }
        }
        skipSpace()
        guard k < p.count, p[k] == UInt8(ascii: "\"") else { return nil }
        var probe = JSONParser(maxDepth: 2, encoding: encoding)
        guard case .value(.string(let key), let keyEnd) = probe.parse(p, from: k, final: true) else { return nil }
        k = keyEnd
        skipSpace()
        guard k < p.count, p[k] == UInt8(ascii: ":") else { return nil }
        k += 1
        skipSpace()
        return k < p.count ? key : nil
    }

    /// Keys of an envelope: an object member holding the wrapping object of the records
    /// (`{"data": {"vehicles": [...]}}`, GraphQL's answer; `{"result": {"items": [...]}}`; SAP
    /// OData v2's `{"d": {"results": [...]}}`; HAL's `{"_embedded": {"vehicles": [...]}}`;
    /// Elasticsearch's `{"hits": {"hits": [...]}}`).
    static let envelopeKeys: Set<String> = ["data", "result", "results", "response", "payload", "d", "_embedded", "hits"]

    /// When the object at `from` has a member with an envelope key (``envelopeKeys``) whose value
    /// is an object, and none of its other members (up to one that does not fit the look-ahead
    /// window) names a record's field (``isRecordField(_:)``; metadata such as `id` beside
    /// `jsonrpc`, `status` or `count` aside): that key and the offset of its object.
    /// The object then wraps the records when ``wrapperKeyAt(skippingWhitespaceFrom:inArray:)``
    /// says so.
    private func envelopeAt(_ from: Int) -> (key: String, object: Int)? {
        let eof = buffer.eof
        return buffer.withBytes { whole -> (String, Int)? in
            let p = UnsafeBufferPointer(rebasing: whole[0..<buffer.end])
            func skipSpace(_ k: inout Int) {
                while k < p.count, p[k] == 0x20 || p[k] == 0x0A || p[k] == 0x0D || p[k] == 0x09 { k += 1 }
            }
            var k = from
            skipSpace(&k)
            guard k < p.count, p[k] == UInt8(ascii: "{") else { return nil }
            k += 1
            var found: (String, Int)?
            // A JSON-RPC answer (`{"jsonrpc": "2.0", "id": 1, "result": {…}}`) names its call's `id`.
            let needle = Array("\"jsonrpc\"".utf8)
            let end = min(p.count, k + 4096)
            let jsonRPC = end - k >= needle.count
                && (k...(end - needle.count)).contains { j in needle.indices.allSatisfy { p[j + $0] == needle[$0] } }
            while true {
                guard let key = Self.memberKey(p, at: &k, encoding: encoding) else { return nil }
                if found == nil, p[k] == UInt8(ascii: "{"), Self.envelopeKeys.contains(key.lowercased()) {
                    found = (key, k)
                } else if Self.isRecordField(key), !Self.isEnvelopeMetadata(key), !(key == "id" && jsonRPC) {
                    // A member that names a field of a record (`make`): the object is a record,
                    // whatever its `data` holds (a fleet record with `"data": {"items": […]}`
                    // was read as an envelope of its items). JSON-RPC's `id` is the call's.
                    return nil
                }
                var member = JSONParser(encoding: encoding)
                // A member too large for the window ends the look: the envelope found so far stands.
                guard case .value(_, let valueEnd) = member.parse(p, from: k, final: eof) else { return found }
                k = valueEnd
                skipSpace(&k)
                guard k < p.count else { return found }
                if p[k] == UInt8(ascii: "}") { return found }
                guard p[k] == UInt8(ascii: ",") else { return nil }
                k += 1
            }
        }
    }

    /// The members an envelope has beside its records' object: errors, paging, status, and
    /// keys marked as metadata by a leading `@` or `_` (`@odata.context`, `_links`, `_shards`).
    static func isEnvelopeMetadata(_ key: String) -> Bool {
        key.hasPrefix("@") || key.hasPrefix("_") || envelopeMetadata.contains(Schema.fold(key))
    }

    /// Whether `key` names a field (or an alias) of a bundled schema (`make`, `Model Year`,
    /// `lat`): a record's member, not an envelope's.
    static func isRecordField(_ key: String) -> Bool { recordFieldNames.contains(Schema.fold(key)) }

    static let recordFieldNames: Set<String> = {
        var names = Set<String>()
        for schema in (try? SchemaCatalog.bundled())?.schemas.values.map({ $0 }) ?? [] {
            for field in schema.fields {
                names.insert(Schema.fold(field.name))
                for alias in field.aliases { names.insert(Schema.fold(alias)) }
            }
        }
        return names
    }()

    static let envelopeMetadata: Set<String> = Set([
        "errors", "error", "warnings", "extensions", "meta", "metadata", "links", "included", "status", "statuscode",
        "code", "message", "messages", "success", "ok", "took", "timed_out", "page", "paging", "pagination", "cursor",
        "next", "previous", "total", "count", "totalcount", "requestid", "timestamp", "version", "apiversion", "jsonrpc",
        // Spring's page: `{"content": [...], "pageable": {…}, "sort": {…}, "totalElements": 2, …}`.
        "pageable", "sort", "totalelements", "totalpages", "numberofelements", "first", "last", "empty", "size", "number",
    ].map(Schema.fold))

    /// Moves past `{` and the members before the envelope's to its object's `{`.
    private func enterEnvelope() throws {
        advance(to: buffer.start + 1)  // {
        while true {
            let (key, _, _) = try parseValue(maxDepth: 1)
            guard try peek() == UInt8(ascii: ":") else { throw error("expected ':'", at: buffer.start) }
            advance(to: buffer.start + 1)
            if key == .string(envelopeKey ?? "") { return }
            _ = try peek()
            let (value, _, _) = try parseValue(maxDepth: valueDepth)
            noteUnread(key, value, outer: true)
            guard try peek() == UInt8(ascii: ",") else { throw error("expected ','", at: buffer.start) }
            advance(to: buffer.start + 1)
        }
    }

    /// The folded names a VIN goes by in the bundled vehicle schema (`vin`, `FIN`, `Chassis number`,
    /// …): an object with one is a vehicle, whatever its lists are called (it was only `vin`, so
    /// `{"FIN": …, "items": [{…}]}` was read as an envelope and its items as the records).
    static let vinNames: Set<String> = {
        var names: Set<String> = ["vin"]
        let vehicle = (try? SchemaCatalog.bundled())?.schemas.values.first { $0.fields.contains { $0.name == "vin" } }
        for alias in vehicle?.fields.first(where: { $0.name == "vin" })?.aliases ?? [] { names.insert(Schema.fold(alias)) }
        return names
    }()

    static func isVINName(_ name: String) -> Bool { vinNames.contains(Schema.fold(name)) }

    /// The sources' own wrapper keys: an object holding two of them is two tables in one file,
    /// where lists under the generic API keys (`items`, `records`, `data`) may be a record's own.
    static let sourceWrapperKeys: Set<String> = ["vehicles", "fleet", "locations", "places"]

    /// The members of an object that are record arrays under a source's wrapper key
    /// (`{"vehicles": [...], "locations": [...]}`); none in an object with a VIN (a vehicle's lists).
    static func sourceRecordArrays(_ members: [RawField]) -> [String] {
        guard !members.contains(where: { Self.isVINName($0.name) }) else { return [] }
        return members.filter { sourceWrapperKeys.contains($0.name.lowercased()) && holdsObjects($0.value) }.map(\.name)
    }

    static func holdsObjects(_ v: RawValue) -> Bool {
        guard case .array(let elements) = v else { return false }
        return elements.contains { if case .object = $0 { true } else { false } }
    }

    /// One input holds one record array: the records of a second one were read as one record that
    /// names no source, or (in a large file) skipped without a word.
    private func severalRecordArrays(_ keys: [String], at offset: Int) -> VinyardError {
        let quoted = keys.map { "\"\($0)\"" }
        let second = keys[1]
        return error(
            "\(quoted.dropLast().joined(separator: ", ")) and \(quoted.last!) are \(keys.count) record arrays in one input; "
                + "Vinyard reads one record array per input: split the file, e.g. \(jqCommand(for: second))",
            at: offset)
    }

    /// For an object at `object` that does not parse: true when its first member's array (at
    /// `array`) opens with an object or is empty, and, `inArray`, the object's matching `}` (found
    /// by counting brackets outside strings) is followed by the outer array's `]` (or, `paged`, by
    /// a `,` before the next page). An object whose end lies beyond the look-ahead window counts as
    /// a wrapper, as a large one does.
    static func looksLikeWrapper(
        _ p: UnsafeBufferPointer<UInt8>, object: Int, array: Int, inArray: Bool, paged: Bool = false
    ) -> Bool {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        var k = array + 1
        while k < p.count, isSpace(p[k]) { k += 1 }
        guard k < p.count, p[k] == UInt8(ascii: "{") || p[k] == UInt8(ascii: "]") else { return false }
        guard inArray else { return true }
        var brackets = JSONBracketCounter()
        var i = object
        while i < p.count {
            if brackets.feed(p[i]) == .close, brackets.depth == 0 {
                var j = i + 1
                while j < p.count, isSpace(p[j]) { j += 1 }
                return j >= p.count || p[j] == UInt8(ascii: "]") || (paged && p[j] == UInt8(ascii: ","))
            }
            i += 1
        }
        return true
    }

    /// Moves past `[ {"key" : [` (or `{"key" : [`) into the record array.
    /// How deep a record may nest (the parser's own limit is narrowed while reading a key).
    private let valueDepth = JSONParser().maxDepth

    private func enterWrapper() throws {
        if insideArrayWrapper {
            _ = try peek()
            advance(to: buffer.start + 1)  // [
        }
        try enterPage()
    }

    /// Moves past `{"key" : [` of a wrapping object (the outer array's next page, in a paged
    /// array): members before the record array are syntax-checked and skipped.
    private func enterPage() throws {
        guard try peek() == UInt8(ascii: "{") else {
            let found = try peek().map(JSONParser.describe) ?? "the end of input"
            throw error("expected an object holding a \"\(wrapperKey ?? "")\" array (a page), found \(found)", at: buffer.start)
        }
        advance(to: buffer.start + 1)  // {
        insideObjectWrapper = true
        func noRecordArray() -> VinyardError {
            error(
                "this page has no \"\(wrapperKey ?? "")\" array; every element of a paged array must hold its records under the same key",
                at: buffer.start)
        }
        if try peek() == UInt8(ascii: "}") { throw noRecordArray() }
        while true {
            let (key, _, _) = try parseValue(maxDepth: 1)
            guard try peek() == UInt8(ascii: ":") else { throw error("expected ':'", at: buffer.start) }
            advance(to: buffer.start + 1)
            if key == .string(wrapperKey ?? "") {
                guard try peek() == UInt8(ascii: "[") else {
                    let found = try peek().map(JSONParser.describe) ?? "the end of input"
                    throw error(
                        "this page's \"\(wrapperKey ?? "")\" is not an array (found \(found)); every page of a paged array holds its records in an array under that key",
                        at: buffer.start)
                }
                advance(to: buffer.start + 1)
                return
            }
            _ = try peek()
            let (value, _, _) = try parseValue(maxDepth: valueDepth)
            noteUnread(key, value)
            if try peek() == UInt8(ascii: "}") { throw noRecordArray() }
            guard try peek() == UInt8(ascii: ",") else { throw error("expected ','", at: buffer.start) }
            advance(to: buffer.start + 1)
        }
    }

    /// After the record array's `]`: the rest of the wrapper, then the next page of a paged array
    /// (``state`` is `.firstElement` again) or the end of input (`.done`).
    private func close() throws {
        state = .done
        if insideObjectWrapper {
            try skipRestOfObject(after: "the record array", checkingRecordArrays: true)
            // The envelope's members after the wrapping object.
            if envelopeKey != nil { try skipRestOfObject(after: "the \"\(envelopeKey ?? "")\" object", checkingRecordArrays: false) }
        }
        if insideArrayWrapper {
            if try peek() == UInt8(ascii: ",") {
                // A paged array (`[{"vehicles": [...]}, {"vehicles": [...]}]`): the next page.
                advance(to: buffer.start + 1)
                try enterPage()
                state = .firstElement
                return
            }
            guard try peek() == UInt8(ascii: "]") else { throw error("expected ',' or ']' after a page of the outer array", at: buffer.start) }
            advance(to: buffer.start + 1)
        }
        try expectEnd(afterSingle: false)
    }

    /// Skips an object's members after the one read, through its `}`.
    /// - Parameter checkingRecordArrays: a later member that is a record array under a known
    ///   wrapper key is an error (two record arrays in one input).
    private func skipRestOfObject(after what: String, checkingRecordArrays: Bool) throws {
        while true {
            guard let c = try peek() else { throw error("unexpected end of input; expected ',' or '}'", at: buffer.start) }
            if c == UInt8(ascii: "}") {
                advance(to: buffer.start + 1)
                return
            }
            guard c == UInt8(ascii: ",") else { throw error("expected ',' or '}' after \(what), found \(JSONParser.describe(c))", at: buffer.start) }
            advance(to: buffer.start + 1)
            guard try peek() == UInt8(ascii: "\"") else { throw error("expected a string key", at: buffer.start) }
            let (key, _, _) = try parseValue(maxDepth: 1)
            guard try peek() == UInt8(ascii: ":") else { throw error("expected ':' after an object key", at: buffer.start) }
            advance(to: buffer.start + 1)
            // A second record array after the one read (`{"vehicles": [...], "locations": [...]}`,
            // too large to be looked at whole): its records would be dropped without a word.
            var second: VinyardError?
            if checkingRecordArrays, case .string(let name) = key, Self.knownWrapperKeys.contains(name.lowercased()),
                try peek() == UInt8(ascii: "[")
            {
                second = severalRecordArrays([wrapperKey ?? "", name], at: buffer.start)
            }
            let (value, _, _) = try parseValue(maxDepth: valueDepth)
            if let second, Self.holdsObjects(value) { throw second }
            noteUnread(key, value, outer: !checkingRecordArrays)
        }
    }

    /// Notes a member skipped beside the record array when it holds objects.
    /// - Parameter outer: the member is the envelope's, not the wrapping object's.
    private func noteUnread(_ key: RawValue, _ value: RawValue, outer: Bool = false) {
        guard case .string(let name) = key, case .array(let elements) = value else { return }
        let objects = elements.reduce(0) { n, e in if case .object = e { n + 1 } else { n } }
        guard objects > 0, notedKeys.insert(name).inserted else { return }
        // A paged array's pages each have their own: the count is the first page's.
        let count = insideArrayWrapper ? "objects" : "\(objects) object\(objects == 1 ? "" : "s")"
        notes.append(
            "\"\(name)\" holds \(count) beside the record array \"\(wrapperKey ?? "")\" "
                + "and is not read (one record array per input); to load it, extract it: \(jqCommand(for: name, outer: outer))")
    }

    /// A shell command that extracts the array under `name` (in the envelope's object unless
    /// `outer`; from every page of a paged array) into `NAME.json`: the jq path quoted where the
    /// key is no plain name (`.["related-items"]`), the words shell-quoted.
    private func jqCommand(for name: String, outer: Bool = false) -> String {
        // `.name`, or `["odd-name"]` (`.["odd-name"]` first: jq 1.6 takes no `.` before `[` after a step).
        var path = insideArrayWrapper ? ".[]" : ""
        func step(_ key: String) {
            let plain = key.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
                && key.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            path += plain ? ".\(key)" : (path.isEmpty ? "." : "") + "[\(JSONText.encode(.string(key)))]"
        }
        if let envelopeKey, !outer { step(envelopeKey) }
        step(name)
        // A page without the key gives nothing, not an error (`[]?`).
        if insideArrayWrapper { path = "[\(path)[]?]" }
        func shellQuoted(_ word: String) -> String {
            word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/-+".contains($0)) }
                ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        }
        // A name that starts with `-` is no option (`./-x.json`).
        let file = inputName == "-" ? "FILE" : inputName.hasPrefix("-") ? "./" + inputName : inputName
        var output = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
        if output.isEmpty || output.hasPrefix("-") { output = "records" + output }
        // Never the input itself: `jq '.locations' locations.json > locations.json` emptied it.
        let inputBase = inputName.split(separator: "/").last.map(String.init) ?? inputName
        let plainBase = inputBase.lowercased().hasSuffix(".gz") ? String(inputBase.dropLast(3)) : inputBase
        output += output + ".json" == inputBase || output + ".json" == plainBase ? "-extracted.json" : ".json"
        let filter = "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        // jq reads no gzip.
        let gzip = inputName.lowercased().hasSuffix(".gz") && inputName != "-"
        return gzip
            ? "gzip -dc \(shellQuoted(file)) | jq \(filter) > \(shellQuoted(output))"
            : "jq \(filter) \(shellQuoted(file)) > \(shellQuoted(output))"
    }

    private func expectEnd(afterSingle: Bool) throws {
        if let c = try peek() {
            let hint = afterSingle && c == UInt8(ascii: "{") ? "; is this JSON Lines? use --input-format jsonl" : ""
            throw error("unexpected \(JSONParser.describe(c)) after the top-level value\(hint)", at: buffer.start)
        }
    }

    // MARK: - Elements

    private func element() throws -> ReadItem {
        // A comma with no element after it (`[{…},]`, `{…},,{…}`) is a syntax error between the
        // elements, not a record: fatal, like any other one outside the elements.
        if state != .singleObject, let c = try peek(), c == UInt8(ascii: ",") || c == UInt8(ascii: "]") {
            throw error(
                "expected an array element, found \(JSONParser.describe(c)) (an empty element: a trailing, leading or doubled comma); remove the extra ','",
                at: buffer.start)
        }
        let startLine = line
        let elementIndex = index
        index += 1
        let provenance = Provenance(input: inputName, line: startLine, index: state == .singleObject ? nil : elementIndex)
        let startOffset = buffer.start
        let parsed: (RawValue, Bool, String?)
        lastSyntaxError = nil
        do {
            parsed = try parseValue(maxDepth: valueDepth, keepText: true, textFrom: startOffset)
        } catch {
            // A syntax error inside an element of an array (or one nested too deep): the element
            // becomes a reject and reading goes on with the next one, when its end can be found.
            guard state != .singleObject, let syntax = lastSyntaxError, let end = try endOfMalformedElement() else {
                throw error
            }
            let text = buffer.withBytes { p in
                var last = end
                while last > buffer.start, [0x20, 0x0A, 0x0D, 0x09].contains(p[last - 1]) { last -= 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: p[buffer.start..<last]), as: UTF8.self)
            }
            advance(to: end)
            let finding = Finding(
                .rowMalformed, .error,
                message: "element \(elementIndex) is not valid JSON (\(syntax)); fix it, or remove it from the array",
                input: inputName, line: startLine)
            return .reject(RawReject(provenance: provenance, text: text, finding: finding))
        }
        let (value, flagged, text) = parsed
        if case .object(let fields) = value {
            var record = RawRecord(fields: fields, provenance: provenance, decodedAsWindows1252: flagged)
            record.loneSurrogateField = RawRecord.loneSurrogateField(member: parser.loneSurrogateMember)
            return .record(record)
        }
        let finding = Finding(
            .rowMalformed, .error,
            message: "element \(elementIndex) is \(Self.kindName(value)), not an object",
            input: inputName, line: startLine)
        return .reject(RawReject(provenance: provenance, text: text ?? "", finding: finding))
    }

    static func isScalar(_ v: RawValue) -> Bool {
        switch v {
        case .array, .object: false
        default: true
        }
    }

    static func kindName(_ v: RawValue) -> String {
        switch v {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses one value at the current position, refilling as needed, and moves past it.
    private func parseValue(maxDepth: Int, keepText: Bool = false, textFrom: Int = 0) throws -> (RawValue, Bool, String?) {
        parser.maxDepth = maxDepth
        while true {
            let start = buffer.start
            parser.sawInvalidUTF8 = false
            parser.decodeAsWindows1252 = false
            var outcome = buffer.withBytes { whole in
                parser.parse(UnsafeBufferPointer(rebasing: whole[0..<buffer.end]), from: start, final: buffer.eof)
            }
            var flagged = parser.sawInvalidUTF8
            if flagged && encoding == .auto {
                parser.decodeAsWindows1252 = true
                outcome = buffer.withBytes { whole in
                    parser.parse(UnsafeBufferPointer(rebasing: whole[0..<buffer.end]), from: start, final: buffer.eof)
                }
            }
            if encoding == .windows1252 { flagged = false }
            switch outcome {
            case .value(let v, let end):
                var text: String?
                if keepText, case .object = v {} else if keepText {
                    text = buffer.withBytes {
                        String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
                    }
                }
                advance(to: end)
                return (v, flagged, text)
            case .needMore:
                try buffer.fill(what: "JSON element")
            case .failure(let message, let at):
                let located = error(message, at: at)
                // Without the advice for a file that stops here: a malformed element is a reject
                // and reading goes on (its reject said that nothing after it was read).
                lastSyntaxError = error(message, at: at, advice: false).message
                throw located
            }
        }
    }

    /// The message of the syntax error ``parseValue(maxDepth:keepText:textFrom:)`` last threw.
    private var lastSyntaxError: String?

    /// After a syntax error in an array element: the offset of the `,` or `]` that ends it at the
    /// array's level, found by counting brackets outside strings (iteratively: any depth); nil
    /// when the input ends first (the error is then fatal). The element's bytes stay in the
    /// buffer (growing it up to the record limit).
    private func endOfMalformedElement() throws -> Int? {
        var brackets = JSONBracketCounter()
        var scanned = 0  // bytes past `buffer.start` already scanned (the buffer may move on refill)
        while true {
            let found: Int? = buffer.withBytes { p in
                var i = buffer.start + scanned
                while i < buffer.end {
                    switch brackets.feed(p[i]) {
                    case .close where brackets.depth < 0: return i  // the array's `]`
                    case .comma where brackets.depth == 0: return i
                    default: break
                    }
                    i += 1
                }
                scanned = i - buffer.start
                return nil
            }
            if let found { return found }
            if !(try buffer.fill(what: "JSON element")) { return nil }
        }
    }

    // MARK: - Position

    /// Skips whitespace (refilling) and returns the next byte, or nil at the end of input.
    private func peek() throws -> UInt8? {
        while true {
            let found: UInt8? = buffer.withBytes { p in
                var i = buffer.start
                while i < buffer.end {
                    let c = p[i]
                    if c == 0x0A {
                        line += 1
                        lineStartOffset = buffer.base + i + 1
                    } else if c != 0x20 && c != 0x0D && c != 0x09 {
                        buffer.start = i
                        return c
                    }
                    i += 1
                }
                buffer.start = i
                return nil
            }
            if let found { return found }
            if !(try buffer.fill()) { return nil }
        }
    }

    /// Moves the position to `end`, counting lines.
    private func advance(to end: Int) {
        buffer.withBytes { p in
            var i = buffer.start
            while i < end {
                if p[i] == 0x0A {
                    line += 1
                    lineStartOffset = buffer.base + i + 1
                }
                i += 1
            }
        }
        buffer.start = end
    }

    private func error(_ message: String, at offset: Int, advice withAdvice: Bool = true) -> VinyardError {
        var l = line
        var lineStart = lineStartOffset
        buffer.withBytes { p in
            var i = buffer.start
            let limit = min(offset, buffer.end)
            while i < limit {
                if p[i] == 0x0A {
                    l += 1
                    lineStart = buffer.base + i + 1
                }
                i += 1
            }
        }
        let column = buffer.base + offset - lineStart + 1
        // What to do, after what happened (unless the message says it): the reader stops here, so
        // the rest of the file is not read.
        let advice =
            !withAdvice || message.contains("--input-format") || message.contains("record arrays in one input")
            ? "" : "; the JSON is broken there and nothing after it is read: fix it, or export the file again"
        return VinyardError(.malformedInput, "\(inputName):\(l):\(column): \(message)\(advice)")
    }
}

/// Counts brackets outside strings, byte by byte: where a stretch of JSON that does not parse
/// (a malformed element, a wrapper that fails) ends, in any depth, without a parser.
struct JSONBracketCounter {
    /// The brackets opened and not yet closed since the first byte fed (negative after a close
    /// that matches none of them).
    private(set) var depth = 0
    private var inString = false
    private var escaped = false

    enum Structural { case open, close, comma }

    /// Feeds the next byte; returns what it is when it is `{ [`, `} ]` or `,` outside a string
    /// (with ``depth`` already updated for a bracket).
    mutating func feed(_ c: UInt8) -> Structural? {
        if inString {
            if escaped {
                escaped = false
            } else if c == UInt8(ascii: "\\") {
                escaped = true
            } else if c == UInt8(ascii: "\"") {
                inString = false
            }
            return nil
        }
        switch c {
        case UInt8(ascii: "\""):
            inString = true
            return nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            return .open
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            return .close
        case UInt8(ascii: ","): return .comma
        default: return nil
        }
    }
}
