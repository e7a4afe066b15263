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
}

/// Reads inputs, detects each one's source, maps records onto the canonical schema, validates them
/// (fields, coordinates, VINs and the VIN cross-checks) and hands them to a ``RecordSink``,
/// counting everything: `read = inserted + updated + unchanged + duplicates + rejected`.
///
/// Records stream through in batches of a few hundred, read and mapped on a second thread while
/// the sink works on the previous batch: memory stays bounded whatever the input size (the sink
/// decides what it keeps). The sink is called on the calling thread, in input order.
public final class Pipeline {
    public let options: PipelineOptions
    public let catalog: SchemaCatalog
    private let detector: SourceDetector
    private var mappers: [String: Mapper] = [:]
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

    public init(options: PipelineOptions, catalog: SchemaCatalog) {
        self.options = options
        self.catalog = catalog
        self.detector = SourceDetector(catalog: catalog)
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
        progress?.finish()
        report.elapsedSeconds = Date().timeIntervalSince(start)
        return report
    }

    private func mapper(named name: String) throws -> Mapper {
        if let m = mappers[name] { return m }
        let mapping = try catalog.mapping(named: name)
        let m = try Mapper(mapping: mapping, catalog: catalog, options: options.mapper)
        mappers[name] = m
        return m
    }

    private func runInput(
        _ path: String, number: Int, sink: any RecordSink, report: inout RunReport, progress: ProgressLine?
    ) throws {
        let reader = try openInput(path: path, options: options.read)
        var input = RunReport.Input(name: path, source: options.source ?? "", format: reader.format.rawValue)
        progress?.begin(path == "-" ? "stdin" : path, totalBytes: reader.totalBytes)
        var mapper: Mapper?
        if let forced = options.source { mapper = try self.mapper(named: forced) }
        // An empty CSV (no bytes, a BOM alone, blank lines) has no header to detect from and no
        // records: it reads as zero records, like `[]` or an empty JSON Lines file.
        if mapper == nil, let header = reader.csvHeader, header.contains(where: { !$0.isEmpty }) {
            let mapping = try detector.detect(keys: header, wrapper: nil, inputName: path)
            mapper = try self.mapper(named: mapping.name)
        }
        input.source = mapper?.mapping.name ?? ""
        defer {
            input.bytes = reader.bytesRead
            input.contentHash = reader.contentHash
            report.inputs.append(input)
        }
        // Reading, mapping and the VIN checks run on a second thread, one batch ahead of the sink
        // (the database writes): on two cores the two halves overlap. Batches keep input order.
        let handOff = BatchHandOff()
        let work = Unchecked((pipeline: self, reader: reader, mapper: mapper, handOff: handOff, path: path))
        let producer = WorkerThread(name: "vinyard-read") {
            let w = work.value
            w.pipeline.produce(reader: w.reader, mapper: w.mapper, path: w.path, into: w.handOff)
        }
        defer { producer.join() }
        while true {
            let batch = handOff.takeFull()
            do {
                try consume(batch, sink: sink, input: &input, report: &report)
            } catch {
                handOff.cancel()
                throw error
            }
            progress?.update(records: input.read, bytesRead: batch.bytesRead)
            let failure = batch.failure, isLast = batch.isLast
            handOff.giveBack(batch)
            if let failure { throw failure }
            if isLast { break }
        }
    }

    /// The reading thread: fills batches with the input's records (mapped and VIN-checked) and
    /// raw rejects until the input ends, fails, or the sink thread cancels.
    private func produce(reader: InputReader, mapper initial: Mapper?, path: String, into handOff: BatchHandOff) {
        guard var batch = handOff.takeFree() else { return }
        var mapper = initial
        batch.reset(mapper: mapper)
        do {
            while true {
                guard let item = try reader.next() else { break }
                switch item {
                case .reject(let rejected):
                    batch.entries.append(.reject(rejected))
                case .record(let raw):
                    if mapper == nil {
                        let mapping = try detector.detect(
                            keys: raw.fields.map(\.name), wrapper: reader.wrapperKey, inputName: path)
                        mapper = try self.mapper(named: mapping.name)
                        // A batch holds records of one mapper: hand over what came before.
                        if !batch.entries.isEmpty {
                            batch.bytesRead = reader.bytesRead
                            handOff.send(batch)
                            guard let next = handOff.takeFree() else { return }
                            batch = next
                        }
                        batch.reset(mapper: mapper)
                    }
                    guard let mapper else { continue }
                    let slot = batch.takeRecordSlot(provenance: raw.provenance)
                    batch.records.withUnsafeMutableBufferPointer { records in
                        mapper.map(raw, into: &records[slot])
                        checkVIN(&records[slot], mapper: mapper)
                    }
                }
                if batch.isFull {
                    batch.bytesRead = reader.bytesRead
                    handOff.send(batch)
                    guard let next = handOff.takeFree() else { return }
                    batch = next
                    batch.reset(mapper: mapper)
                }
            }
        } catch {
            batch.failure = error
        }
        batch.isLast = true
        batch.bytesRead = reader.bytesRead
        handOff.send(batch)
    }

    /// The sink thread's half: counts and sinks a batch's entries in order.
    private func consume(
        _ batch: RecordBatch, sink: any RecordSink, input: inout RunReport.Input, report: inout RunReport
    ) throws {
        let mapper = batch.mapper
        if let mapper { input.source = mapper.mapping.name }
        for entry in batch.entries {
            input.read += 1
            report.read += 1
            switch entry {
            case .reject(var rejected):
                if rejected.finding.input == nil {
                    rejected.finding.input = rejected.provenance.input
                    rejected.finding.line = rejected.provenance.line
                }
                try sink.reject(rejected, source: mapper?.mapping.name)
                report.count(rejected.finding)
                report.rejected += 1
                input.rejected += 1
            case .record(let slot):
                guard let mapper else { continue }
                let record = batch.records[slot]
                let source = mapper.mapping.name
                for finding in record.findings { report.count(finding, vin: vinText(record, mapper)) }
                if record.isRejected || record.key == nil {
                    try sink.reject(record, schema: mapper.schema, source: source)
                    report.rejected += 1
                    input.rejected += 1
                    continue
                }
                let result = try sink.accept(record, schema: mapper.schema, source: source)
                for finding in result.conflicts { report.count(finding) }
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

    private func vinText(_ record: CanonicalRecord, _ mapper: Mapper) -> String? {
        guard let i = mapper.known.vin, case .text(let vin)? = record.values[i] else { return nil }
        return vin
    }

    /// Runs the VIN engine on the record's `vin` (when the schema has one and the record carries
    /// it), adds its findings and the make/model-year cross-checks, and fills the decoded fields.
    private func checkVIN(_ record: inout CanonicalRecord, mapper: Mapper) {
        let known = mapper.known
        guard let vinIndex = known.vin, case .text(let vin)? = record.values[vinIndex], !vin.isEmpty else { return }
        let check = vinChecker.check(vin, currentYear: options.currentYear)
        let provenance = record.provenance
        for var finding in check.findings {
            finding.input = provenance.input
            finding.line = provenance.line
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
                    message: "make is '\(declared)' but the VIN's manufacturer code \(vin.prefix(3)) belongs to "
                        + "\(decoded); check the make or the VIN",
                    input: provenance.input, line: provenance.line))
        }
        if let i = known.modelYear, let declared = Self.integer(record.values[i]),
            let code = vin.utf8.dropFirst(9).first, let base = VINDecoder.yearBase(code),
            !(declared >= Int64(base) && (declared - Int64(base)) % 30 == 0
                && declared <= Int64(options.currentYear + 1))
        {
            let candidates = check.modelYears
            if !candidates.isEmpty {
                let list = candidates.map(String.init).joined(separator: " or ")
                record.findings.append(
                    Finding(
                        .vinYearMismatch, .warning, field: "model_year",
                        message: "model year is \(declared) but position 10 of the VIN ('\(Character(Unicode.Scalar(code)))') "
                            + "means \(list); check the model year or the VIN",
                        input: provenance.input, line: provenance.line))
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
        let key = MakeMatchKey(declared: declared, decoded: decoded, prefix: String(vin.utf8.prefix(3))!)
        if let cached = makeMatchCache[key] { return cached ?? true }
        let result: Bool? =
            Schema.fold(declared) == Schema.fold(decoded) ? true : VINDecoder.makeMatches(declared: declared, vin: vin)
        if makeMatchCache.count > 10_000 { makeMatchCache.removeAll(keepingCapacity: true) }
        makeMatchCache[key] = result
        return result ?? true
    }
}
