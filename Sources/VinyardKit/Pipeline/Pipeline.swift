import Foundation

/// Options for a pipeline run (`validate`, `import`, `convert`).
public struct PipelineOptions: Sendable {
    /// A source mapping name that overrides detection (`--source`).
    public var source: String?
    public var read = ReadOptions()
    public var mapper = MapperOptions()
    /// What happens to a key seen again (`--on-duplicate`).
    public var policy: DuplicatePolicy = .last
    /// The calendar year the VIN engine counts model years from.
    public var currentYear: Int = VINDecoder.currentCalendarYear
    public init() {}
}

/// Where the pipeline sends records once they are read, mapped and validated: a database
/// (`import`), a key tracker (`validate`), or an output file (`convert`).
public protocol RecordSink: AnyObject {
    /// A record without error findings. Returns what happened to it (inserted, duplicate, …) and
    /// any `key.conflict` findings it caused.
    func accept(_ record: CanonicalRecord, schema: Schema, source: String) throws -> WriteResult
    /// A record with at least one error finding.
    func reject(_ record: CanonicalRecord, schema: Schema, source: String) throws
    /// A row the reader could not split into fields (ragged CSV row, malformed JSON line).
    func reject(_ reject: RawReject, source: String?) throws
    /// True when the sink stores rows and wants their row hash computed ahead, on the pipeline's
    /// mapping workers (see ``accept(_:schema:source:rowHash:)``). False by default.
    var wantsRowHash: Bool { get }
    /// ``accept(_:schema:source:)`` with the record's row hash and key hash when the pipeline
    /// computed them (nil: compute them if needed). By default the hashes are ignored.
    func accept(
        _ record: CanonicalRecord, schema: Schema, source: String, rowHash: Int64?, keyHash: UInt64?
    ) throws -> WriteResult
    /// Called before the records of a batch are accepted, with their key hashes (0: none), when
    /// the sink ``wantsRowHash``: a sink may read ahead what their lookups will need. Does nothing
    /// by default.
    func prefetch(keyHashes: UnsafeBufferPointer<UInt64>, schema: Schema)
    /// Called once every input has been read, with a reader of their records by line (for a sink
    /// that needs some raw records again, see ``StoreSink``). Does nothing by default.
    func didReadInputs(_ records: RawRecordRereader) throws
    /// Called as an input starts, with how it is written (a rejects file written for it follows
    /// its delimiter and byte order mark, and names its header's columns). Does nothing by default.
    func beginInput(_ style: InputStyle)
}

/// How a CSV input is written: its name, header, delimiter and whether it had a byte order mark.
public struct InputStyle: Sendable {
    public var name: String
    public var header: [String]
    public var delimiter: UInt8
    public var byteOrderMark: Bool
}

extension RecordSink {
    public var wantsRowHash: Bool { false }
    public func accept(
        _ record: CanonicalRecord, schema: Schema, source: String, rowHash: Int64?, keyHash: UInt64?
    ) throws -> WriteResult {
        try accept(record, schema: schema, source: source)
    }
    public func prefetch(keyHashes: UnsafeBufferPointer<UInt64>, schema: Schema) {}
    public func didReadInputs(_ records: RawRecordRereader) throws {}
    public func beginInput(_ style: InputStyle) {}
}

/// Reads inputs, detects each one's source, maps records onto the canonical schema, validates them
/// (fields, coordinates, VINs and the VIN cross-checks) and hands them to a ``RecordSink``,
/// counting everything: `read = inserted + updated + unchanged + duplicates + rejected`.
///
/// Records stream through in batches of a few hundred: one thread reads, mapping workers (one
/// per core) map and check them, and the calling thread counts them and calls the sink, in input
/// order, while the next batches are read and mapped. Memory stays bounded whatever the input
/// size (a fixed number of batches; the sink decides what it keeps).
public final class Pipeline {
    public let options: PipelineOptions
    public let catalog: SchemaCatalog
    private let detector: SourceDetector
    /// Mapping worker threads per input.
    private let workerCount: Int
    /// The mapping workers' state, one per worker thread, kept from input to input (each is used
    /// by one thread at a time: its worker thread, joined before the next input).
    private var checkers: [RecordChecker] = []
    private var checkersHashRows = false

    /// Gets every finding of the run and every duplicate, when set (`validate --findings`).
    public var findingsWriter: FindingsWriter?

    /// Shadowed columns (and keys) named per input, at most.
    static let namedColumnLimit = 20

    public init(options: PipelineOptions, catalog: SchemaCatalog) {
        self.options = options
        self.catalog = catalog
        self.detector = SourceDetector(catalog: catalog)
        self.workerCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
    }

    /// Runs every input through the pipeline into `sink`.
    /// - Parameters:
    ///   - inputs: paths, `-` for standard input.
    ///   - progress: a progress line to update, if any.
    /// - Throws: ``VinyardError`` for inputs that cannot be read on (missing, malformed JSON,
    ///   corrupt gzip), an unknown or ambiguous source, or a failing sink.
    public func run(inputs: [String], into sink: any RecordSink, progress: ProgressLine? = nil) throws -> RunReport {
        let start = Date()
        var report = RunReport()
        for (number, path) in inputs.enumerated() {
            try runInput(path, number: number, sink: sink, report: &report, progress: progress)
        }
        try sink.didReadInputs(RawRecordRereader(options: options.read))
        progress?.finish()
        report.elapsedSeconds = Date().timeIntervalSince(start)
        return report
    }

    /// Lines a CSV may have above its header (titles, a report date, a blank line between).
    static let maxPreambleLines = 5

    /// A regular file's reader that skips the fewest lines (1 to ``maxPreambleLines``) after
    /// which `accept` takes the header (of two names or more), with what it returned; nil when it
    /// takes none (or the input is standard input or a pipe, which cannot be read again).
    private func readBelowPreamble<T>(_ path: String, accept: ([String]) -> T?) throws -> (InputReader, T)? {
        guard path != "-", (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
        else { return nil }
        for skip in 1...Self.maxPreambleLines {
            var read = options.read
            read.skipLines = skip
            // A line below that cannot be read as a header (its delimiter unclear) is no header:
            // the input keeps its first line and its own error or run.
            guard let again = try? openInput(path: path, options: read), again.csvPreamble.count == skip,
                let header = again.csvHeader, header.filter({ !$0.isEmpty }).count >= 2, let accepted = accept(header)
            else { continue }
            return (again, accepted)
        }
        return nil
    }

    /// True for a header cell that is a VIN (normalized: `'WBA-Y5XR10-GY000002` too): 17
    /// characters a VIN may hold, with at least three digits (no column name looks so), a
    /// model-year code at position 10 and a maker code the table knows (`generated 2026-11-01`,
    /// a title, is none).
    static func isVINLike(_ cell: String) -> Bool {
        guard let text = FieldTyper.withoutTextPrefix(.string(cell)).scalarText else { return false }
        let vin = Array(ValueParser.normalizeVIN(text).utf8)
        guard vin.count == 17 else { return false }
        var digits = 0
        for b in vin {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "I"), UInt8(ascii: "O"), UInt8(ascii: "Q"): return false
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): break
            default: return false
            }
        }
        return digits >= 3 && VINDecoder.yearBase(vin[9]) != nil && vin.withUnsafeBufferPointer { WMITable.lookupIndex($0) != nil }
    }

    /// The input's warning about the lines skipped above its header.
    private static func preambleWarning(_ lines: [String]) -> String {
        "\(lines.count == 1 ? "1 line" : "\(lines.count) lines") above the header skipped as a title or note, not data: "
            + lines.map(quoted).joined(separator: ", ")
    }

    /// Checks that a mapping exists and builds, and returns its mapper (each worker builds its
    /// own copy later).
    private func checkMapping(_ name: String) throws -> Mapper {
        try Mapper(mapping: try catalog.mapping(named: name), catalog: catalog, options: options.mapper)
    }

    private func runInput(
        _ path: String, number: Int, sink: any RecordSink, report: inout RunReport, progress: ProgressLine?
    ) throws {
        let snapshot = path == "-" ? nil : FileSnapshot.of(path: path)
        var reader = try openInput(path: path, options: options.read)
        var input = RunReport.Input(name: path, source: options.source ?? "", format: reader.format.rawValue)
        progress?.begin(path == "-" ? "stdin" : path, totalBytes: reader.totalBytes)
        var mappingName: String?
        var mapper: Mapper?
        if let forced = options.source {
            let forcedMapper = try checkMapping(forced)
            mapper = forcedMapper
            mappingName = forced
            // A title above the table under a forced source: the first line names no column of
            // it (every row was rejected), so the header is looked for below, as without one.
            func mapsAColumn(_ header: [String]) -> Bool {
                forcedMapper.unmappedKeys(header).count < header.filter { !$0.isEmpty }.count
            }
            if let header = reader.csvHeader, !mapsAColumn(header),
                let (again, _) = try readBelowPreamble(path, accept: { mapsAColumn($0) ? true : nil })
            {
                reader = again
                input.warnings.append(Self.preambleWarning(again.csvPreamble))
            }
            if let header = reader.csvHeader, header.contains(where: { !$0.isEmpty }),
                let warning = detector.forcedSourceWarning(forced, keys: header, what: "the header's columns")
            {
                input.warnings.append(warning)
            }
        }
        // A file without a header: its first record was read as the header (with `--source`, one
        // vehicle fewer in every count and its VIN named as a column not loaded).
        if let header = reader.csvHeader, let vin = header.first(where: Self.isVINLike) {
            throw VinyardError(
                .malformedInput,
                "\(path): the first line is a record, not a header (\(Self.quoted(vin)) is a VIN); "
                    + "add a header line naming the columns (e.g. vin,make,model) above it")
        }
        // An empty CSV (no bytes, a BOM alone, blank lines) has no header to detect from and no
        // records: it reads as zero records, like `[]` or an empty JSON Lines file.
        if mappingName == nil, let header = reader.csvHeader, header.contains(where: { !$0.isEmpty }) {
            var mapping: SourceMapping
            do {
                mapping = try detector.detect(keys: header, wrapper: nil, inputName: path)
            } catch var error as VinyardError {
                // A title or note above the table (`Fleet export, 2026-11-01`), as spreadsheet
                // exports write: a file is read again from the top with up to
                // `maxPreambleLines` lines skipped, until a header names a source.
                guard let (again, found) = try readBelowPreamble(path, accept: { try? detector.detect(keys: $0, wrapper: nil, inputName: path) })
                else {
                    // (Not for JSON under a CSV name, which the detector's hint names.)
                    if !SourceDetector.looksLikeJSON(header) {
                        error.message += "; if the first line is a title or a note above the table, remove it: the header (VIN, Make, …) must be the first line"
                    }
                    throw error
                }
                reader = again
                mapping = found
                input.warnings.append(Self.preambleWarning(again.csvPreamble))
            }
            mapper = try checkMapping(mapping.name)
            mappingName = mapping.name
        }
        input.source = mappingName ?? ""
        if let header = reader.csvHeader, let delimiter = reader.csvDelimiter {
            // (Read as Windows-1252 throughout: an Excel export in its code page, whose rejects,
            // written as UTF-8, Excel reads as such only after the mark.)
            sink.beginInput(
                InputStyle(name: path, header: header, delimiter: delimiter, byteOrderMark: reader.csvHadBOM || reader.csvIsWindows1252))
        }
        // A CSV column another column of the header shadows is named in the report, once per input.
        // So are columns that no field takes (their values are not loaded anywhere but in rejects).
        // A rejects file's `_extra` column: a loaded record whose `_extra` holds values is said once.
        var extraColumn: Int?
        if let mapper, let header = reader.csvHeader {
            // At most 20 named, as for unmapped columns: a header of 150,000 `vin` columns printed
            // 149,999 warnings (a 26 MB JSON report for a 3 MB input).
            let shadowed = mapper.shadowedColumns(header)
            input.warnings += shadowed.prefix(Self.namedColumnLimit).map(\.message)
            if shadowed.count > Self.namedColumnLimit {
                input.warnings.append(
                    "\(shadowed.count - Self.namedColumnLimit) more columns are shadowed by an earlier column mapped to the same field "
                        + "and are read only where it is empty; only the first \(Self.namedColumnLimit) are named")
            }
            // A rejects file read again: its provenance and findings columns are the earlier run's, not data.
            // So is its `_extra` column (empty but for ragged rows, whose extra values a reject keeps
            // in the new `_extra`): every rejects file read again was told its own column is not loaded.
            let isRejectsFile = header.contains("_findings") && header.contains("_input")
            if isRejectsFile { extraColumn = header.lastIndex(of: "_extra") }
            let unmapped = mapper.unmappedKeys(header).filter {
                !$0.isEmpty && !RejectsWriter.regeneratedNames.contains($0)
                    && !(isRejectsFile && RejectsWriter.bookkeepingNames.contains($0))
            }
            if !unmapped.isEmpty {
                // Each name's column from one pass over the header (a search per name was
                // quadratic: 17 s for a 100,000-column header), and at most 20 named, as for JSON keys.
                var firstColumn: [String: Int] = [:]
                for (i, name) in header.enumerated() where firstColumn[name] == nil { firstColumn[name] = i + 1 }
                let limit = 20
                var places = unmapped.prefix(limit).map { name in "\(Self.quoted(name)) (column \(firstColumn[name] ?? 0))" }
                if unmapped.count > limit { places.append("and \(unmapped.count - limit) more") }
                input.warnings.append(
                    Self.unmappedWarning(
                        places, one: "column", many: "columns", source: mapper.mapping.name,
                        fix: "rename the header to a field name or one of its aliases"))
            }
            input.warnings += mapper.unconvertedUnitWarnings(header)
        }
        defer {
            input.bytes = reader.bytesRead
            input.contentHash = reader.contentHash
            report.inputs.append(input)
        }

        let flow = BatchFlow(batches: 2 * workerCount + 3)
        var threads: [WorkerThread] = []
        defer {
            // Every thread ends once reading is over or the flow is cancelled.
            for thread in threads { thread.join() }
        }
        let reading = Unchecked((pipeline: self, reader: reader, mappingName: mappingName, path: path, flow: flow))
        threads.append(
            WorkerThread(name: "vinyard-read") {
                let r = reading.value
                r.pipeline.read(r.reader, mappingName: r.mappingName, path: r.path, into: r.flow)
            })
        // The workers' mappers and VIN caches live for the whole run (many small inputs do not
        // each pay for building them).
        if checkers.isEmpty || checkersHashRows != sink.wantsRowHash {
            checkersHashRows = sink.wantsRowHash
            checkers = (0..<workerCount).map { _ in
                RecordChecker(options: options, catalog: catalog, rowHashes: sink.wantsRowHash)
            }
        }
        for (n, checker) in checkers.enumerated() {
            let work = Unchecked((checker: checker, flow: flow))
            threads.append(
                WorkerThread(name: "vinyard-map-\(n)") {
                    let w = work.value
                    while let batch = w.flow.takeFilled() {
                        w.checker.map(batch)
                        w.flow.sendMapped(batch)
                    }
                })
        }
        var sequence = 0
        // JSON keys shadowed by another key of the same record, reported once per key pair (a CSV
        // header's shadowed columns are reported above).
        var shadowedKeys = Set<String>()
        // JSON keys no field takes, named once per input (at most `unmappedLimit` of them).
        var unmappedKeys = Set<String>()
        let unmappedLimit = 20
        // CSV columns without a name that hold a value, named once per input.
        var unnamedColumns = Set<Int>()
        // A JSON input's first records, under a forced source, are checked against it once.
        var forcedChecked = options.source == nil || reader.csvHeader != nil
        while true {
            let batch = flow.takeMapped(sequence)
            sequence += 1
            do {
                if let failure = batch.mappingFailure { throw failure }
                if !forcedChecked, let forced = options.source {
                    // As for detection, any of the first records fitting will do (a first record
                    // can lack a key that names the source).
                    let records = batch.items.lazy.compactMap({ if case .record(let raw) = $0 { raw } else { nil } }).prefix(Self.detectionWindow)
                    if let first = records.first {
                        forcedChecked = true
                        if !records.contains(where: { detector.fits(forced, keys: $0.fields.map(\.name), wrapper: reader.wrapperKey) }),
                            let warning = detector.forcedSourceWarning(
                                forced, keys: first.fields.map(\.name), wrapper: reader.wrapperKey,
                                what: "the keys of its first record (line \(first.provenance.line)) and those after it")
                        {
                            input.warnings.append(warning)
                        }
                    }
                }
                if reader.csvHeader == nil {
                    for (column, provenance) in batch.shadowedKeys
                    where shadowedKeys.count < Self.namedColumnLimit
                        && shadowedKeys.insert("\(column.winnerName)\u{0}\(column.name)\u{0}\(column.field)").inserted {
                        input.warnings.append(column.keyMessage(line: provenance.line))
                    }
                    for (name, provenance) in batch.unmappedKeys
                    where unmappedKeys.count <= unmappedLimit && !RejectsWriter.regeneratedNames.contains(name)
                        && unmappedKeys.insert(name).inserted {
                        let source = batch.mappingName ?? ""
                        input.warnings.append(
                            unmappedKeys.count > unmappedLimit
                                ? "more keys match no field of source \(source) and are not loaded; only the first \(unmappedLimit) are named"
                                : Self.unmappedWarning(
                                    ["\(Self.quoted(name)) (first at line \(provenance.line))"], one: "key", many: "keys", source: source,
                                    fix: "rename the key to a field name or map it in the source mapping"))
                    }
                } else {
                    // (A JSON key "" is named with the other keys above.)
                    for (column, provenance) in batch.unnamedColumns
                    where unnamedColumns.count < unmappedLimit && unnamedColumns.insert(column).inserted {
                        input.warnings.append(
                            Self.unmappedWarning(
                                ["'' (column \(column), no name; a value at line \(provenance.line))"], one: "column",
                                many: "columns", source: batch.mappingName ?? "",
                                fix: "give the column a header: a field name or one of its aliases"))
                    }
                }
                try consume(batch, sink: sink, input: &input, report: &report)
                if let column = extraColumn, let line = Self.loadedExtra(batch, column: column) {
                    extraColumn = nil
                    input.warnings.append(
                        "line \(line): the '_extra' column holds values of the earlier run's ragged row; they are not loaded: "
                            + "move them into their columns (or they stay only in this file)")
                }
            } catch {
                flow.cancel()
                throw error
            }
            progress?.update(records: input.read, bytesRead: batch.bytesRead)
            let failure = batch.failure, isLast = batch.isLast
            flow.giveBack(batch)
            if let failure {
                flow.cancel()
                throw failure
            }
            if isLast { break }
        }
        // (The reading thread is done: the last batch came after its last read.)
        input.warnings += reader.notes
        // No record to tell the source by (`{"locations": []}`): a wrapper only one source lists names it.
        if input.source.isEmpty, let wrapper = reader.wrapperKey, let name = detector.source(ownWrapper: wrapper) {
            input.source = name
        }
        // A file cut short, rewritten or appended to while it was read: the records read may be
        // part of one version and part of another, or stop short. The run fails (an import
        // rolls back) instead of ending as if the file were whole (found by audit: a file
        // truncated mid-import committed the rows read so far).
        if let snapshot, FileSnapshot.of(path: path) != snapshot {
            throw VinyardError(
                .io, "\(path): the file changed while it was read (its size or modification time moved); read it again once it is complete")
        }
    }

    /// Records a JSON input may start with before one tells its source (the first records of a
    /// feed can lack the keys that name it: a VIN left out of a record that has none).
    static let detectionWindow = 64

    /// A record's keys with each object's members beside its own key (`location`, `lat`, `lng`);
    /// nil when no value is an object.
    static func nestedKeys(_ raw: RawRecord) -> [String]? {
        var keys: [String] = []
        var nested = false
        for field in raw.fields {
            keys.append(field.name)
            if case .object(let members) = field.value {
                nested = true
                keys += members.map(\.name)
            }
        }
        return nested ? keys : nil
    }

    /// The reading thread: fills batches with the input's items until it ends, fails, or the
    /// flow is cancelled. Detects a JSON input's source from its first record whose keys name
    /// one (within ``detectionWindow`` records; else the first record's error).
    private func read(_ reader: InputReader, mappingName initial: String?, path: String, into flow: BatchFlow) {
        var mappingName = initial
        guard var batch = flow.takeFree(mappingName: mappingName) else { return }
        reader.recycle(&batch.spareFields)
        // Where the batch's first record starts in the (decompressed) input.
        var batchStart = reader.decodedBytes
        // The first record's detection error, while the records held in `batch` have no source.
        var detectionError: (any Error)?
        // Records held while the source is undecided, and the sources they name (in order met).
        var held = 0
        var votes: [(mapping: SourceMapping, count: Int)] = []
        // The source is decided once ``detectionWindow`` records are held (or the batch is full,
        // or holds its bytes and a source is named, or the input ends), from the sources they
        // name. A feed's first record can lack a key that names its source (`make_and_model`
        // left out, as serializers omit empty keys): that record alone read a random-vehicle
        // feed as `fleet`, its miles stored as km.
        func decide() throws {
            // A specific source beats the generic one that loads the same table (a record fits
            // the generic one by missing keys); otherwise, and between sources of one kind, the
            // most votes win (a fleet file's one record with only coordinates is no places file).
            // On a tie, a source of vehicles wins (a vehicle read as a place loses its VIN and
            // make; a place read as a vehicle is a reject, kept whole), or before that the source
            // that alone lists the wrapper (`{"locations": [...]}`).
            let owner = reader.wrapperKey.flatMap(detector.source(ownWrapper:))
            func hasVIN(_ m: SourceMapping) -> Bool { (try? catalog.schema(for: m).fieldIndex(named: "vin")) != nil }
            func beats(_ vote: (mapping: SourceMapping, count: Int), _ best: (mapping: SourceMapping, count: Int)) -> Bool {
                if vote.mapping.fallback != best.mapping.fallback, vote.mapping.schema == best.mapping.schema {
                    return best.mapping.fallback
                }
                if let owner, vote.count == best.count, vote.mapping.name == owner || best.mapping.name == owner {
                    return vote.mapping.name == owner
                }
                if vote.count == best.count, hasVIN(vote.mapping) != hasVIN(best.mapping) { return hasVIN(vote.mapping) }
                return vote.count > best.count
            }
            var best: (mapping: SourceMapping, count: Int)?
            for vote in votes {
                guard let b = best else { best = vote; continue }
                if beats(vote, b) { best = vote }
            }
            guard let best else {
                if let detectionError { throw detectionError }
                return
            }
            _ = try checkMapping(best.mapping.name)
            mappingName = best.mapping.name
            batch.mappingName = mappingName
        }
        do {
            while !flow.isCancelled, let item = try reader.next() {
                if mappingName == nil, case .record(let raw) = item {
                    do {
                        let mapping: SourceMapping
                        do {
                            mapping = try detector.detect(
                                keys: raw.fields.map(\.name), wrapper: reader.wrapperKey, inputName: path)
                        } catch {
                            // Keys nested in objects are read as fields (`"location": {"lat", "lng"}`),
                            // so they may name the source too.
                            guard let nested = Self.nestedKeys(raw) else { throw error }
                            guard let found = try? detector.detect(keys: nested, wrapper: reader.wrapperKey, inputName: path)
                            else { throw error }
                            mapping = found
                        }
                        if let i = votes.firstIndex(where: { $0.mapping.name == mapping.name }) {
                            votes[i].count += 1
                        } else {
                            votes.append((mapping, 1))
                        }
                    } catch var error {
                        // A line that wraps records (`{"data": [...], "pagination": {…}}`: API pages
                        // saved one per line) names no source; its records are one `jq` away.
                        if reader.format == .jsonl, var failure = error as? VinyardError,
                            let wrapper = raw.fields.first(where: {
                                JSONReader.namesRecordArray($0.name) && JSONReader.holdsObjects($0.value)
                            })?.name
                        {
                            failure.message +=
                                "; each line holds records in \"\(wrapper)\" (API pages, one per line?): extract them, "
                                + "e.g. jq -c '.\(wrapper)[]' FILE > records.jsonl"
                            error = failure
                        }
                        // Held in the batch until a later record names the source.
                        if detectionError == nil { detectionError = error }
                    }
                    held += 1
                    batch.append(item)
                    // (Rejects held with them take the source too.)
                    if held >= Self.detectionWindow || batch.isFull
                        || (!votes.isEmpty && reader.decodedBytes - batchStart >= RecordBatch.byteCapacity)
                    {
                        try decide()
                    }
                    if mappingName == nil { continue }
                } else {
                    batch.append(item)
                }
                // Records held for detection cannot go on without a mapping (the batch would drop
                // them): while there are some, only the record count closes the batch, and a full
                // batch decides the source, as the detection window does.
                let holding = mappingName == nil && held > 0
                if batch.isFull || (!holding && reader.decodedBytes - batchStart >= RecordBatch.byteCapacity) {
                    if holding { try decide() }
                    batch.bytesRead = reader.bytesRead
                    flow.sendFilled(batch, last: false)
                    guard let next = flow.takeFree(mappingName: mappingName) else { return }
                    batch = next
                    batchStart = reader.decodedBytes
                    reader.recycle(&batch.spareFields)
                }
            }
            if mappingName == nil, held > 0 { try decide() }
        } catch {
            batch.failure = error
            // Records held for detection are read with the source they name so far; with none
            // named, they have no mapping to be read with.
            if mappingName == nil, held > 0, (try? decide()) == nil || mappingName == nil {
                batch.items.removeAll { if case .record = $0 { true } else { false } }
            }
        }
        // Cancelled: the sink thread has stopped waiting for batches.
        if flow.isCancelled { return }
        batch.isLast = true
        batch.bytesRead = reader.bytesRead
        flow.sendFilled(batch, last: true)
    }

    /// A value as a finding's message shows it: up to 60 Unicode scalars (then `… (N bytes)`), its
    /// control characters escaped; a 50 MB make was copied whole into its message.
    static func clipped(_ value: String, limit: Int = 60) -> String {
        guard value.utf8.count > limit, value.unicodeScalars.count > limit else { return value.shownInMessage }
        let start = String(String.UnicodeScalarView(value.unicodeScalars.prefix(limit)))
        return "\(start)… (\(value.utf8.count) bytes)".shownInMessage
    }

    /// A column name or JSON key as a message quotes it: control characters escaped (`\u{1B}`: a
    /// name reached the terminal raw) and clipped to 60 characters (a 50 MB key was written whole
    /// to standard error, in every warning that named it).
    static func quoted(_ name: String) -> String {
        var out = "'"
        var count = 0
        for scalar in name.unicodeScalars {
            if count == 60 {
                out += "…' (\(name.unicodeScalars.count) characters)"
                return out
            }
            out += scalar.shownInMessage
            count += 1
        }
        return out + "'"
    }

    /// `column 'x' (column 3) matches no field of source fleet and is not loaded; to keep it, FIX`,
    /// or the plural for several `places`.
    static func unmappedWarning(_ places: [String], one: String, many: String, source: String, fix: String) -> String {
        let single = places.count == 1
        return "\(single ? one : many) \(places.joined(separator: ", ")) \(single ? "matches" : "match") no field of source "
            + "\(source) and \(single ? "is" : "are") not loaded; to keep \(single ? "it" : "them"), \(fix)"
    }

    /// Records whose keys the sink reads ahead at a time (``RecordSink/prefetch(keyHashes:schema:)``).
    static let prefetchStride = 32

    /// The calling thread's half: counts and sinks a batch's items in order.
    private func consume(
        _ batch: RecordBatch, sink: any RecordSink, input: inout RunReport.Input, report: inout RunReport
    ) throws {
        let mapper = batch.mapper
        if let name = batch.mappingName { input.source = name }
        // Once per batch, not per record: the schema is a struct of arrays (a copy retains them).
        let schema = mapper?.schema
        let source = mapper?.mapping.name ?? ""
        var slot = 0
        let rowHashes = batch.rowHashes
        let keyHashes = batch.keyHashes
        let prefetching = keyHashes.count >= batch.recordCount
        // Items borrowed in place: no copy (and retain/release) of each.
        try batch.items.withUnsafeBufferPointer { items in
            try batch.records.withUnsafeMutableBufferPointer { records in
                for item in items.indices {
                    input.read += 1
                    report.read += 1
                    if case .reject(var rejected) = items[item] {
                        if rejected.finding.input == nil {
                            rejected.finding.input = rejected.provenance.input
                            rejected.finding.line = rejected.provenance.line
                            rejected.finding.element = rejected.provenance.index
                        } else if rejected.finding.element == nil {
                            // A malformed JSON array element: its index tells it from the other
                            // elements on its line.
                            rejected.finding.element = rejected.provenance.index
                        }
                        try sink.reject(rejected, source: batch.mappingName)
                        report.count(rejected.finding)
                        try findingsWriter?.write(rejected.finding, vin: nil)
                        report.rejected += 1
                        input.rejected += 1
                        continue
                    }
                    guard let mapper, let schema, slot < batch.recordCount, let base = records.baseAddress,
                        slot < records.count
                    else {
                        // A batch with records always has a mapper (the reader detects first).
                        assertionFailure("a record without a mapper in batch \(batch.sequence)")
                        continue
                    }
                    if prefetching, slot % Self.prefetchStride == 0 {
                        // The next records' key hashes, a few at a time: read ahead close to their
                        // use, so the sink's other work does not push them out of the cache.
                        keyHashes.withUnsafeBufferPointer {
                            let end = min(slot + Self.prefetchStride, batch.recordCount)
                            sink.prefetch(keyHashes: UnsafeBufferPointer(rebasing: $0[slot..<end]), schema: schema)
                        }
                    }
                    // Moved out of its slot for the sink calls and back after (also when they
                    // throw): passing the slot itself would copy the record, a retain and a
                    // release of each of its arrays and strings.
                    let record = (base + slot).move()
                    defer {
                        (base + slot).initialize(to: record)
                        slot += 1
                    }
                    if !record.findings.isEmpty {
                        let vin = vinText(record, mapper)
                        for finding in record.findings { report.count(finding, vin: vin) }
                        if let findingsWriter { for finding in record.findings { try findingsWriter.write(finding, vin: vin) } }
                    }
                    if record.isRejected || record.key == nil {
                        try sink.reject(record, schema: schema, source: source)
                        report.rejected += 1
                        input.rejected += 1
                        continue
                    }
                    let keyHash = slot < keyHashes.count ? keyHashes[slot] : 0
                    let result = try sink.accept(
                        record, schema: schema, source: source,
                        rowHash: slot < rowHashes.count ? rowHashes[slot] : nil, keyHash: keyHash == 0 ? nil : keyHash)
                    for finding in result.conflicts { report.count(finding) }
                    if let findingsWriter, !result.conflicts.isEmpty || result.outcome == .duplicate {
                        let vin = vinText(record, mapper)
                        for finding in result.conflicts { try findingsWriter.write(finding, vin: vin) }
                        if result.outcome == .duplicate, let key = record.key {
                            try findingsWriter.duplicate(key: key, at: record.provenance, earlier: result.earlier, vin: vin)
                        }
                    }
                    switch result.outcome {
                    case .inserted: report.inserted += 1
                    case .updated: report.updated += 1
                    case .unchanged: report.unchanged += 1
                    case .duplicate: report.duplicates += 1
                    case .rejected:
                        report.rejected += 1
                        input.rejected += 1
                    }
                }
            }
        }
    }

    /// The line of the batch's first loaded record whose CSV column `column` (a rejects file's
    /// `_extra`) holds a value; nil when none does.
    private static func loadedExtra(_ batch: RecordBatch, column: Int) -> Int? {
        for record in batch.records.prefix(batch.recordCount) where !record.isRejected && record.key != nil {
            guard column < record.raw.fields.count, case .string(let text) = record.raw.fields[column].value,
                !text.isEmpty
            else { continue }
            return record.provenance.line
        }
        return nil
    }

    private func vinText(_ record: CanonicalRecord, _ mapper: Mapper) -> String? {
        guard let i = mapper.known.vin, case .text(let vin)? = record.values[i] else { return nil }
        return vin
    }

}

/// A mapping worker's state: its own mappers and VIN caches (none of it is shared between
/// threads). Maps a batch's records and runs the VIN engine and cross-checks on them.
final class RecordChecker {
    private let options: PipelineOptions
    private let catalog: SchemaCatalog
    private var mappers: [String: (mapper: Mapper, digest: RowDigest)] = [:]
    /// Compute each valid record's row hash for the sink.
    private let rowHashes: Bool
    private let vinChecker = VINChecker()
    private var makeMatchCache: [MakeMatchKey: Bool?] = [:]
    /// `vin_model_years` text by position-10 code (the current year is fixed per pipeline):
    /// built once per code instead of once per row.
    private var modelYearsTexts = [String??](repeating: nil, count: 256)

    /// A declared make, the make decoded from the VIN (pattern rules for multi-brand WMIs already
    /// read the VDS) and the WMI, whose manufacturer and make list decide the match.
    private struct MakeMatchKey: Hashable {
        var declared: String
        var decoded: String
        var prefix: String
    }

    init(options: PipelineOptions, catalog: SchemaCatalog, rowHashes: Bool) {
        self.options = options
        self.catalog = catalog
        self.rowHashes = rowHashes
    }

    private func mapper(named name: String) throws -> (mapper: Mapper, digest: RowDigest) {
        if let m = mappers[name] { return m }
        let mapping = try catalog.mapping(named: name)
        let mapper = try Mapper(mapping: mapping, catalog: catalog, options: options.mapper)
        let m = (mapper, RowDigest(schema: mapper.schema))
        mappers[name] = m
        return m
    }

    /// Maps and checks every record of `batch` into its record slots.
    func map(_ batch: RecordBatch) {
        guard let name = batch.mappingName else { return }
        let mapper: Mapper, digest: RowDigest
        do { (mapper, digest) = try self.mapper(named: name) } catch {
            batch.mappingFailure = error
            return
        }
        batch.mapper = mapper
        for item in batch.items {
            guard case .record(let raw) = item else { continue }
            let slot = batch.nextRecordSlot(provenance: raw.provenance)
            batch.records.withUnsafeMutableBufferPointer { records in
                mapper.map(raw, into: &records[slot])
                checkVIN(&records[slot], mapper: mapper)
                // The sink's row hash, here rather than on the sink thread: only for records it
                // will store whose values are already in stored form.
                // And its key's hash, which the sink's first-load key lookups use (and read ahead).
                var rowHash: Int64?
                var keyHash: UInt64 = 0
                if rowHashes, let key = records[slot].key, !records[slot].isRejected {
                    keyHash = RowHasher.key(key)
                    if !digest.needsNormalization(records[slot].values) { rowHash = digest.hash(records[slot].values) }
                }
                batch.rowHashes[slot] = rowHash
                batch.keyHashes[slot] = keyHash
            }
        }
        batch.unmappedKeys = mapper.takeUnmappedKeys()
        batch.unnamedColumns = mapper.takeUnnamedColumns()
        batch.shadowedKeys = mapper.takeShadowedKeys()
    }

    /// Runs the VIN engine on the record's `vin` (when the schema has one and the record carries
    /// it), adds its findings and the make/model-year cross-checks, and fills the decoded fields.
    private func checkVIN(_ record: inout CanonicalRecord, mapper: Mapper) {
        let known = mapper.known
        guard let vinIndex = known.vin, case .text(let vin)? = record.values[vinIndex], !vin.isEmpty else { return }
        let check = vinChecker.check(vin, currentYear: options.currentYear)
        // The record's provenance is read only for a finding (a copy per row retained its strings).
        for var finding in check.findings {
            finding.input = record.provenance.input
            finding.line = record.provenance.line
            finding.element = record.provenance.index
            record.findings.append(finding)
        }
        guard check.valid else { return }
        let yearsText: String?
        if let cached = modelYearsTexts[Int(check.yearCode)] {
            yearsText = cached
        } else {
            yearsText = Mapper.modelYearsText(check.modelYears)
            modelYearsTexts[Int(check.yearCode)] = .some(yearsText)
        }
        mapper.setVINDecoding(
            &record, manufacturer: check.manufacturer, country: check.country, modelYearsText: yearsText)
        // Cross-checks (warnings): the make and model year written beside the VIN.
        if let i = known.make, case .text(let declared)? = record.values[i], let decoded = check.make,
            !makeMatches(declared: declared, decoded: decoded, vin: vin)
        {
            record.findings.append(
                Finding(
                    .vinMakeMismatch, .warning, field: "make",
                    message: "make is '\(Pipeline.clipped(declared))' but the VIN's manufacturer code \(vin.withUTF8Bytes { VINDecoder.manufacturerCode($0) }) belongs to "
                        + "\(decoded); check the make or the VIN",
                    input: record.provenance.input, line: record.provenance.line, element: record.provenance.index))
        }
        // Not where the check digit is optional and wrong (a warning on a valid VIN): that maker
        // does not follow 49 CFR 565 there, and position 10 need not be a year (`WDD2040081A167295`,
        // a European C-Class of 2008-2014, reads 2001).
        if let i = known.modelYear, let declared = Self.integer(record.values[i]),
            !check.findings.contains(where: { $0.code == .vinCheckDigit }),
            // Position 10 as the check read it (a valid VIN has 17 characters).
            let code = Optional(check.yearCode), code != 0, let base = VINDecoder.yearBase(code)
        {
            let onCycle = declared >= Int64(base) && (declared - Int64(base)) % 30 == 0 && declared <= Int64(options.currentYear + 1)
            func mismatch(_ meaning: String) {
                record.findings.append(
                    Finding(
                        .vinYearMismatch, .warning, field: "model_year",
                        message: "model year is \(declared) but position 10 of the VIN ('\(Character(Unicode.Scalar(code)))') "
                            + "\(meaning); check the model year or the VIN",
                        input: record.provenance.input, line: record.provenance.line, element: record.provenance.index))
            }
            if !onCycle, case let candidates = check.modelYears, !candidates.isEmpty {
                mismatch("means " + candidates.map(String.init).joined(separator: " or "))
            } else if onCycle, declared >= 2010, let best = check.modelYear, best < 2010,
                let p7 = vin.utf8.dropFirst(6).first, p7 >= UInt8(ascii: "0"), p7 <= UInt8(ascii: "9")
            {
                // On position 10's cycle, but where the position-7 rule holds (``VINDecoder/bestYear``:
                // North American cars and light trucks) a digit there means 1980-2009: a 1995
                // F-150 written as 2025 (`…15N4S…`) is no 2025 model.
                mismatch("with a digit at position 7 means \(best) (a letter there would mean \(declared))")
            }
        }
    }

    private static func integer(_ value: FieldValue?) -> Int64? {
        switch value {
        case .integer(let i)?: i
        case .real(let d)?: d.rounded() == d ? Int64(exactly: d) : nil
        case .text(let s)?: Int64(s)
        default: nil
        }
    }

    private func makeMatches(declared: String, decoded: String, vin: String) -> Bool {
        if declared == decoded { return true }
        // No make is that long: not folded (a 40 MB non-ASCII make cell took 12 s here).
        if declared.utf8.count > 256 { return false }
        // The answer depends on the declared and decoded makes and the WMI (3 or 6 characters).
        let key = MakeMatchKey(declared: declared, decoded: decoded, prefix: vin.withUTF8Bytes { VINDecoder.manufacturerCode($0) })
        if let cached = makeMatchCache[key] { return cached ?? true }
        let result: Bool? =
            Schema.fold(declared) == Schema.fold(decoded) ? true : VINDecoder.makeMatches(declared: declared, vin: vin)
        if makeMatchCache.count > 10_000 { makeMatchCache.removeAll(keepingCapacity: true) }
        makeMatchCache[key] = result
        return result ?? true
    }
}
