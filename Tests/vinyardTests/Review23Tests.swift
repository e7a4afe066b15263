import Foundation
import Testing
import VinyardKit

/// Findings of review 23 (session 20), each run through the built binary.
@Suite struct Review23Tests {
    /// A probable VIN is itself a valid VIN: an audit of real VINs with two characters swapped got
    /// suggestions the tool's own rules refuse. A letter put at position 7 with year code 3
    /// (2033 by the position-7 rule), a letter left in the serial's last four positions, and a
    /// repair inside the manufacturer code to one the offline table does not know. Those VINs now
    /// get no suggestion; genuine single typos still get theirs.
    @Test func aProbableVINObeysTheRulesItIsCheckedBy() throws {
        let refused = [
            "1HGCM82633A004325",  // → 1HGCM8Z633A004325: a letter at 7, year 2033
            "1G1YY22G865104697",  // → 1G1YY2ZG…: 2036
            "1J4GL58KX5W123465",  // → 1J4GL5BK…: 2035
            "1HGCM82633A004S52",  // → 1HGCMB2633A004S52: S stays in the serial
            "H2KRM3H38EH550410",  // → HZK…: no maker of that code
            "3ZMBN1V77JM123456",  // → 32M…: no maker of that code
        ]
        let kept = [
            ("1FTFW1ES7KFA14352", "1FTFW1E57KFA14352"),  // S for 5 at position 8
            ("1HGCV1F52MA00O123", "1HGCV1F52MA000123"),  // O for 0 in the serial
        ]
        let r = try runVinyard(["decode"] + refused + kept.map(\.0) + ["--format", "json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == refused.count + kept.count)
        for entry in list.prefix(refused.count) { #expect(entry["suggestion"] is NSNull, "\(entry)") }
        for (entry, (vin, suggestion)) in zip(list.suffix(kept.count), kept) {
            #expect(entry["suggestion"] as? String == suggestion, "\(vin): \(entry)")
        }
    }

    /// Under `first` and `merge`, an unchanged row that moved to another line kept its own
    /// warnings at the old line, which now holds another record (`last` moved them).
    @Test func anUnchangedRowThatMovedTakesItsWarningsAlong() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("moved.csv")
        for policy in ["first", "merge", "last"] {
            let db = dir.appendingPathComponent("\(policy).db").path
            try Data("vin,make\n1G1ZD5ST8LF034567,Ford\n".utf8).write(to: input)
            #expect(try runVinyard(["import", input.path, "--db", db, "--on-duplicate", policy, "-q"]).status == 0)
            try Data("vin,make\n1HGCM82633A004352,Honda\n1G1ZD5ST8LF034567,Ford\n".utf8).write(to: input)
            #expect(try runVinyard(["import", input.path, "--db", db, "--on-duplicate", policy, "-q"]).status == 0)
            let findings = try Review12Tests.rows(db, "findings", columns: "key,line,code")
            #expect(findings == ["1G1ZD5ST8LF034567,3,vin.make_mismatch"], "\(policy): \(findings)")
        }
    }

    /// A GraphQL answer (`{"data": {"vehicles": [...]}}`) or an API's envelope around its page
    /// (`{"meta": …, "result": {"items": [...]}}`) holds the records one object deeper than the
    /// wrappers read before: it was one record that named no source (exit 64). The envelope is
    /// now entered, in a small file and in one too large for the look-ahead window, and its
    /// members after the records are syntax-checked as a wrapper's are.
    @Test func recordsInsideAnEnvelopeObjectAreRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func record(_ n: Int) -> String {
            let vin = VINEngine.withCheckDigit("1FTFW1E5XKF\(String(format: "%06d", n))")
            return #"{"vin": "\#(vin)", "make": "Ford", "model": "F-150", "notes": "\#(String(repeating: "x", count: 60))"}"#
        }
        let small = dir.appendingPathComponent("graphql.json")
        try Data(#"{"data": {"vehicles": [\#(record(1)), \#(record(2))], "total": 2}, "errors": null}"#.utf8).write(to: small)
        let r = try runVinyard(["validate", small.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        var report = try ParsedReport(r)
        #expect(report.int("read") == 2 && report.int("inserted") == 2)

        let rows = 20000
        let large = dir.appendingPathComponent("api.json")
        let records = (1...rows).map(record).joined(separator: ",\n")
        try Data(#"{"meta": {"page": 1}, "result": {"items": [\#(records)], "next": null}, "status": "ok"}"#.utf8).write(to: large)
        #expect(try FileManager.default.attributesOfItem(atPath: large.path)[.size] as? Int ?? 0 > 2_000_000)
        let big = try runVinyard(["validate", large.path, "--report", "json"])
        #expect(big.status == 0, "\(big.stderr)")
        report = try ParsedReport(big)
        #expect(report.int("read") == rows && report.int("inserted") == rows)

        // Broken after the records: the envelope's members are checked, not skipped unread.
        let broken = dir.appendingPathComponent("broken.json")
        try Data(#"{"data": {"vehicles": [\#(record(1))]}, "errors": [}"#.utf8).write(to: broken)
        #expect(try runVinyard(["validate", broken.path]).status == 65)

        // A record with a list of its own under `data` stays one record, also under a known
        // wrapper key (review: `"data": {"items": [...]}` beside `make` was read as an envelope).
        for inner in ["options", "items"] {
            let one = dir.appendingPathComponent("one.json")
            try Data(
                #"{"id": "veh-1", "make": "Ford", "model": "Transit", "year": 2019, "type": "van", "status": "active", "data": {"\#(inner)": [{"code": "A1"}]}}"#
                    .utf8
            ).write(to: one)
            let single = try runVinyard(["validate", one.path, "--source", "fleet-record", "--report", "json"])
            #expect(try ParsedReport(single).int("read") == 1, "\(inner): \(single.stdout) \(single.stderr)")
        }
        // A GraphQL answer with errors beside its data is still an envelope (review: an array
        // member ended the look for one).
        let errors = dir.appendingPathComponent("errors.json")
        try Data(#"{"errors": [{"message": "partial"}], "data": {"vehicles": [\#(record(1))]}}"#.utf8).write(to: errors)
        let partial = try runVinyard(["validate", errors.path, "--report", "json"])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(try ParsedReport(partial).int("read") == 1)
    }

    /// A wrapper's second array of objects under a key no source uses (`{"data": [...],
    /// "more": [...]}`) was skipped without a word; it is now named in a warning with the way to
    /// read it. (Two arrays under the sources' own keys stay an error.)
    @Test func aSecondArrayBesideTheRecordsIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("w.json")
        try Data(
            #"{"more": [{"vin": "1HGCV1F52MA000123", "make": "Honda"}], "data": [{"vin": "1FTFW1E57KFA14352", "make": "Ford"}], "n": 1}"#
                .utf8
        ).write(to: input)
        let r = try runVinyard(["validate", input.path, "--report", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ParsedReport(r).int("read") == 1)
        #expect(
            r.stderr.contains(#""more" holds 1 object beside the record array "data" and is not read"#)
                && r.stderr.contains("jq '.more' \(input.path) > more.json"), "\(r.stderr)")

        // Inside an envelope the path starts at the envelope; an odd key is quoted for jq and
        // the shell, and a paged array's pages are all extracted (review).
        let envelope = dir.appendingPathComponent("env.json")
        try Data(
            #"{"data": {"vehicles": [{"vin": "1FTFW1E57KFA14352"}], "related-items": [{"b": 2}], "it's": [{"c": 3}]}}"#.utf8
        ).write(to: envelope)
        let e = try runVinyard(["validate", envelope.path])
        #expect(e.stderr.contains(#"jq '.data["related-items"]' "#), "\(e.stderr)")
        #expect(e.stderr.contains(#"jq '.data["it'\''s"]' "# + envelope.path + " > it_s.json"), "\(e.stderr)")
        let pages = dir.appendingPathComponent("pages.json")
        try Data(#"[{"vehicles": [{"vin": "1FTFW1E57KFA14352"}], "included": [{"a": 1}]}, {"vehicles": [], "included": [{"a": 2}]}]"#.utf8)
            .write(to: pages)
        let p = try runVinyard(["validate", pages.path])
        #expect(p.stderr.contains(#""included" holds objects beside"#) && p.stderr.contains("jq '[.[].included[]?]' "), "\(p.stderr)")
    }

    /// Hostile-input audit, smaller findings: a file named `-` given as `./-` read standard
    /// input; a file of spaces and tabs alone was exit 64 (a header named `\t`); a latitude
    /// of `1e-400` was stored as 0 without a finding; and a JSON file under a CSV name got no
    /// hint that it is JSON.
    @Test func smallerHostileInputFindings() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dash = dir.appendingPathComponent("-")
        try Data("vin,make\n1FTFW1E57KFA14352,Ford\n".utf8).write(to: dash)
        let viaDot = try runVinyard(["validate", "./-", "--report", "json"], stdin: Data(), cwd: dir)
        #expect(viaDot.status == 0, "\(viaDot.stderr)")
        #expect(try ParsedReport(viaDot).int("read") == 1)

        let blank = dir.appendingPathComponent("ws.csv")
        try Data(" \n\t\n".utf8).write(to: blank)
        let ws = try runVinyard(["validate", blank.path, "--report", "json"])
        #expect(ws.status == 0, "\(ws.stderr)")
        #expect(try ParsedReport(ws).int("read") == 0)
        // Above a header, with the delimiter detected (review: a tab line made tab the delimiter).
        for (name, text) in [("tab.csv", "\t\nvin,make\n1FTFW1E57KFA14352,Ford\n"), ("sp.csv", "   \nvin;make\n1FTFW1E57KFA14352;Ford\n")] {
            let file = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            let r = try runVinyard(["validate", file.path, "--report", "json"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(try ParsedReport(r).int("inserted") == 1, "\(name)")
        }

        // API pages saved one per line: the error says how to get at the records.
        let paged = dir.appendingPathComponent("pages.jsonl")
        try Data(#"{"data": [{"vin": "1FTFW1E57KFA14352"}], "pagination": {"next": null}}"#.utf8).write(to: paged)
        let pg = try runVinyard(["validate", paged.path])
        #expect(pg.status == 64 && pg.stderr.contains("jq -c '.data[]' FILE > records.jsonl"), "\(pg.stderr)")

        let tiny = dir.appendingPathComponent("tiny.csv")
        try Data("vin,make,latitude,longitude\n1FTFW1E57KFA14352,Ford,1e-400,4.8\n".utf8).write(to: tiny)
        let t = try runVinyard(["validate", tiny.path, "--report", "json"])
        #expect(try ParsedReport(t).findings["coord.latitude"] == 1, "\(t.stdout)")
        let tf = try runVinyard(["validate", tiny.path, "--findings", "-", "-q"])
        #expect(tf.stdout.contains("latitude '1e-400' is too small to keep (it would be 0)"), "\(tf.stdout)")
        let json = dir.appendingPathComponent("tiny.json")
        try Data(#"[{"vin": "1FTFW1E57KFA14352", "latitude": 1e-400, "longitude": 4.8}]"#.utf8).write(to: json)
        let j = try runVinyard(["validate", json.path, "--report", "json"])
        #expect(try ParsedReport(j).findings["coord.latitude"] == 1, "\(j.stdout)")

        let named = dir.appendingPathComponent("fleet.csv")
        try Data(#"[{"vin": "1FTFW1E57KFA14352", "make": "Ford"}]"#.utf8).write(to: named)
        let n = try runVinyard(["validate", named.path])
        #expect(n.status == 64)
        #expect(n.stderr.contains("the header looks like JSON: if the file is JSON, add --input-format json"), "\(n.stderr)")
        #expect(!n.stderr.contains("a title or a note above the table"), "\(n.stderr)")
    }

    /// Real API shapes (audit of JSON from fleet systems): each was refused (exit 64), or every
    /// record rejected, or a field stored from another object. Each file now loads with the
    /// values named here.
    @Test(arguments: [
        // OData (Dynamics, Business Central): `value` after its metadata.
        (
            "odata.json",
            #"{"@odata.context": "https://x/$metadata#vehicles", "value": [{"vin": "1FTFW1E57KFA14352", "make": "Ford"}], "@odata.nextLink": "https://x?$skip=1"}"#,
            "1FTFW1E57KFA14352,Ford,,,"
        ),
        // SAP OData v2 and HAL: an envelope around the records.
        (
            "sap.json", #"{"d": {"results": [{"__metadata": {"uri": "x"}, "vin": "1FTFW1E57KFA14352", "make": "Ford"}]}}"#,
            "1FTFW1E57KFA14352,Ford,,,"
        ),
        (
            "hal.json",
            #"{"_embedded": {"vehicles": [{"vin": "1FTFW1E57KFA14352", "make": "Ford", "_links": {"self": {"href": "/v/1"}}}]}, "page": {"size": 20}}"#,
            "1FTFW1E57KFA14352,Ford,,,"
        ),
        // Elasticsearch: the record in `_source`, its position an object of its own.
        (
            "es.json",
            #"{"took": 3, "hits": {"total": {"value": 1}, "hits": [{"_id": "a1", "_source": {"vin": "1FTFW1E57KFA14352", "make": "Ford", "location": {"lat": 52.35, "lon": 4.83}}}]}}"#,
            "1FTFW1E57KFA14352,Ford,,52.35,"
        ),
        // A metadata member before the record array.
        ("total.json", #"{"total": 1, "assets": [{"vin": "1FTFW1E57KFA14352", "make": "Ford"}]}"#, "1FTFW1E57KFA14352,Ford,,,"),
        // JSON:API: relationships are other resources; a position among the attributes keeps the VIN.
        (
            "jsonapi.json",
            #"[{"type": "vehicles", "id": "1", "attributes": {"vin": "1FTFW1E57KFA14352", "latitude": 52.35, "longitude": 4.83, "odometer": {"value": 1000, "unit": "mi"}}, "relationships": {"make": {"data": {"type": "makes", "id": "5"}}}}]"#,
            "1FTFW1E57KFA14352,,,52.35,1609"
        ),
        // Salesforce: `attributes` names the object type, not the vehicle type.
        (
            "sfdc.json",
            #"{"totalSize": 1, "done": true, "records": [{"attributes": {"type": "Vehicle", "url": "/sobjects/Vehicle/0k8"}, "Id": "0k8", "VehicleIdentificationNumber": "1FTFW1E57KFA14352", "Make": "Ford"}]}"#,
            "1FTFW1E57KFA14352,Ford,,,"
        ),
        // A telematics gateway's model is not the vehicle's; a reading with its time is the reading.
        (
            "samsara.json",
            #"{"data": [{"id": "281", "vin": "1FTFW1E57KFA14352", "odometerMeters": {"time": "2024-01-05T10:00:00Z", "value": 5000000}, "gateway": {"serial": "G1", "model": "VG54NA"}}], "pagination": {"hasNextPage": false}}"#,
            "1FTFW1E57KFA14352,,,,5000"
        ),
        // mongoexport's extended JSON.
        (
            "mongo.jsonl",
            #"{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}, "vin": "1FTFW1E57KFA14352", "make": "Ford", "model": {"$numberInt": "7"}}"#,
            "1FTFW1E57KFA14352,Ford,7,,"
        ),
    ])
    func apiShapesLoad(name: String, json: String, expected: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent(name)
        try Data(json.utf8).write(to: input)
        let db = dir.appendingPathComponent("t.db").path
        let r = try runVinyard(["import", input.path, "--db", db, "--report", "json", "--quiet"])
        #expect(r.status == 0, "\(name): \(r.stderr)")
        #expect(try ParsedReport(r).int("inserted") == 1, "\(name): \(r.stdout)")
        let rows = try Review12Tests.rows(db, "vehicles", columns: "vin,make,model,latitude,odometer_km")
        #expect(rows == [expected], "\(name): \(rows)")
    }

    /// Second review of the JSON and mapping changes: a vehicle's details in an object of no
    /// known name (`build`, `identifiers`) are read again (only a related thing's, a `gateway`'s
    /// or a `trailer`'s, are not); a JSON-RPC or Google-style envelope is entered; a record's own
    /// `equipment` list is not taken for the records; the jq line never writes over its input;
    /// a MongoDB date keeps its milliseconds.
    @Test func secondReviewOfTheJSONShapes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func load(_ name: String, _ json: String, _ columns: String = "vin,make,model,model_year") throws -> (RunResult, [String]) {
            let input = dir.appendingPathComponent(name)
            try Data(json.utf8).write(to: input)
            let db = dir.appendingPathComponent(name + ".db").path
            let r = try runVinyard(["import", input.path, "--db", db, "-q"])
            return (r, r.status == 0 ? try Review12Tests.rows(db, "vehicles", columns: columns) : [])
        }
        let (_, build) = try load(
            "build.json",
            #"[{"vin": "1FTFW1E57KFA14352", "build": {"year": 2019, "make": "Ford", "model": "F-150"}}, {"id": "a1", "identifiers": {"vin": "1HGCV1F52MA000123"}}, {"vin": "1C4PJMAK2CW184491", "eld_device": {"make": "Geotab", "model": "GO9"}}]"#
        )
        #expect(build == ["1C4PJMAK2CW184491,,,", "1FTFW1E57KFA14352,Ford,F-150,2019", "1HGCV1F52MA000123,,,"], "\(build)")

        for (name, json) in [
            ("rpc.json", #"{"jsonrpc": "2.0", "id": 1, "result": {"vehicles": [{"vin": "1FTFW1E57KFA14352"}]}}"#),
            ("google.json", #"{"kind": "list", "data": {"items": [{"vin": "1FTFW1E57KFA14352"}]}}"#),
        ] {
            let (r, rows) = try load(name, json, "vin")
            #expect(r.status == 0 && rows == ["1FTFW1E57KFA14352"], "\(name): \(r.stderr)")
        }

        let (eq, rows) = try load(
            "eq.json",
            #"[{"vin": "1FTFW1E57KFA14352", "make": "Ford", "equipment": [{"name": "ABS"}]}, {"vin": "1HGCV1F52MA000123", "make": "Honda"}]"#,
            "vin")
        #expect(eq.status == 0 && rows.count == 2, "\(eq.stderr)")

        let locations = dir.appendingPathComponent("locations.json")
        try Data(#"{"vehicles": [{"vin": "1FTFW1E57KFA14352"}], "locations": [{"name": "x", "lat": 1, "lon": 2}]}"#.utf8).write(to: locations)
        let two = try runVinyard(["validate", locations.path])
        #expect(two.status == 65 && two.stderr.contains("> locations-extracted.json"), "\(two.stderr)")
        #expect(!two.stderr.contains("the JSON is broken"), "\(two.stderr)")

        let (_, dates) = try load(
            "mongo.json", #"[{"vin": "1FTFW1E57KFA14352", "last_sync": {"$date": {"$numberLong": "1704448800123"}}}]"#, "last_sync")
        #expect(dates == ["2024-01-05T10:00:00.123Z"], "\(dates)")
    }

    /// Third review: an object naming what the record names already (`reefer` beside the truck's
    /// make, a trailer `body`) is another thing's; a Spring page and an OData answer larger than
    /// the look-ahead window are read.
    @Test func thirdReviewOfTheJSONShapes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reefer = dir.appendingPathComponent("reefer.json")
        try Data(
            #"[{"vin": "1FTFW1E58KFA00010", "make": "Ford", "reefer": {"make": "Thermo King", "model": "T-1200R"}}, {"vin": "1FTFW1E57KFA14352", "make": "Ford", "body": {"make": "Schmitz", "model": "S.KO"}}]"#
                .utf8
        ).write(to: reefer)
        let db = dir.appendingPathComponent("r.db").path
        let r = try runVinyard(["import", reefer.path, "--db", db, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try Review12Tests.rows(db, "vehicles", columns: "vin,make,model,body_class")
        #expect(rows == ["1FTFW1E57KFA14352,Ford,,", "1FTFW1E58KFA00010,Ford,,"], "\(rows)")

        let spring = dir.appendingPathComponent("spring.json")
        try Data(#"{"content": [{"vin": "1FTFW1E57KFA14352"}], "pageable": {"pageNumber": 0}, "sort": {"sorted": false}, "totalElements": 1}"#.utf8)
            .write(to: spring)
        let sp = try runVinyard(["validate", spring.path, "--report", "json"])
        let springRead = try ParsedReport(sp).int("read")
        #expect(sp.status == 0 && springRead == 1, "\(sp.stderr)")

        let odata = dir.appendingPathComponent("odata.json")
        let records = (0..<15_000).map { #"{"vin": "1FTFW1E57KFA14352", "make": "Ford", "notes": "\#($0) \#(String(repeating: "x", count: 80))"}"# }
        try Data(#"{"@odata.context": "https://x/$metadata", "value": [\#(records.joined(separator: ","))]}"#.utf8).write(to: odata)
        let od = try runVinyard(["validate", odata.path, "--report", "json"])
        let odataRead = try ParsedReport(od).int("read")
        #expect(od.status == 0 && odataRead == 15_000, "\(od.stderr)")
    }
}
