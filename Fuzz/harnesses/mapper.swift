// Mapper: JSON Lines records (and the same bytes as CSV) mapped with every bundled source mapping,
// with each decimal-separator option.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let source = FuzzMemorySource(input.payload)
    var records: [RawRecord] = []
    let reader: any RecordReader
    if input.control & 4 != 0 {
        guard let r = try? CSVReader(source: source, encoding: input.encoding) else { return 0 }
        reader = r
    } else {
        guard let r = try? JSONLinesReader(source: source, encoding: input.encoding) else { return 0 }
        reader = r
    }
    for item in drain(reader) {
        switch item {
        case .record(let r): records.append(r)
        case .reject(let r): records.append(RawRecord(fields: r.fields, provenance: r.provenance))
        }
    }
    let set = mappers[Int(input.control >> 3) % mappers.count]
    for mapper in set {
        for record in records {
            let out = mapper.map(record)
            if out.values.count != mapper.schema.fields.count { fatalError("record shape differs from the schema") }
        }
        // Taken per batch by the pipeline; the mappers here live for the whole run.
        _ = mapper.takeShadowedKeys()
        _ = mapper.takeUnmappedKeys()
    }
    return 0
}

/// One mapper per bundled mapping, for each decimal separator.
private let mappers: [[Mapper]] = {
    guard let catalog = try? SchemaCatalog.bundled() else { fatalError("bundled catalog does not load") }
    return DecimalSeparator.allCases.map { sep in
        catalog.mappings.compactMap { m in
            try? Mapper(mapping: m, catalog: catalog, options: MapperOptions(decimalSeparator: sep, referenceYear: 2025))
        }
    }
}()
