import Foundation
import Testing
import VinyardKit

@Suite struct QueryParsingTests {
    @Test(arguments: [
        ("make=BMW", "make", Condition.Operator.equal, ["BMW"]),
        ("year>=2015", "year", .greaterOrEqual, ["2015"]),
        ("  year >=  2015 ", "year", .greaterOrEqual, ["2015"]),
        ("year<=2015", "year", .lessOrEqual, ["2015"]),
        ("year<2015", "year", .less, ["2015"]),
        ("year>2015", "year", .greater, ["2015"]),
        ("make!=BMW", "make", .notEqual, ["BMW"]),
        ("make<>BMW", "make", .notEqual, ["BMW"]),
        ("notes~100%", "notes", .contains, ["100%"]),
        ("status in active,maintenance", "status", .in, ["active", "maintenance"]),
        ("status IN active, maintenance ", "status", .in, ["active", "maintenance"]),
        ("status in (active, 'maintenance')", "status", .in, ["active", "maintenance"]),
        // Spaces are optional before the list's parenthesis, as SQL writes it (review 14: this
        // was "no operator", exit 64).
        ("make in(BMW,Audi)", "make", .in, ["BMW", "Audi"]),
        ("make IN('Land Rover', BMW)", "make", .in, ["Land Rover", "BMW"]),
        // A quoted value keeps its commas; a quote inside a word is just a character.
        ("address in 'Hauptstraße 3, 69117 Heidelberg', \"Rue de Rivoli 50, 75001 Paris\"", "address", .in,
            ["Hauptstraße 3, 69117 Heidelberg", "Rue de Rivoli 50, 75001 Paris"]),
        ("make in 'Land Rover',BMW", "make", .in, ["Land Rover", "BMW"]),
        ("notes in O'Brien's car, x", "notes", .in, ["O'Brien's car", "x"]),
        ("notes in 'open, x", "notes", .in, ["'open", "x"]),
        ("model='Land Rover'", "model", .equal, ["Land Rover"]),
        ("model=\"a=b\"", "model", .equal, ["a=b"]),
        ("make=BMW' OR 1=1 --", "make", .equal, ["BMW' OR 1=1 --"]),
        ("notes~ in stock", "notes", .contains, ["in stock"]),
        ("make=", "make", .equal, [""]),
        ("Model Year>=2015", "Model Year", .greaterOrEqual, ["2015"]),
        // `==` is `=` (it was `= '=BMW'`, which matched nothing); a leading `=` is kept when quoted.
        ("make==BMW", "make", .equal, ["BMW"]),
        ("make == BMW", "make", .equal, ["BMW"]),
        ("make='=BMW'", "make", .equal, ["=BMW"]),
        ("year<'<5'", "year", .less, ["<5"]),
    ])
    func parses(_ text: String, _ field: String, _ op: Condition.Operator, _ values: [String]) throws {
        let c = try Condition.parse(text)
        #expect(c.field == field)
        #expect(c.op == op)
        #expect(c.values == values)
    }

    @Test(arguments: ["make", "=BMW", "make!BMW", "year>=", "status in ", "  ", "status in ,,", "x<"])
    func rejectsMalformed(_ text: String) {
        #expect(throws: VinyardError.self) { try Condition.parse(text) }
        do { _ = try Condition.parse(text) } catch let e as VinyardError { #expect(e.code == .usage) } catch {}
    }

    /// An `in` list over the bound is refused with the start of the condition, not all of it
    /// (a list of 20,000 values echoed ~120 KB into the message).
    @Test func longConditionIsQuotedByItsStart() {
        let text = "vin in " + (0..<20_000).map { "V\($0)" }.joined(separator: ",")
        do {
            _ = try Condition.parse(text)
            Issue.record("accepted \(Condition.maxInValues + 1)+ values")
        } catch let e as VinyardError {
            #expect(e.code == .usage)
            #expect(e.message.contains("at most \(Condition.maxInValues) values"))
            #expect(e.message.utf8.count < 600, "\(e.message.utf8.count) bytes")
            #expect(e.message.contains("(\(text.utf8.count) bytes)"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func sortKeys() throws {
        #expect(try SortKey.parse("vin") == SortKey(field: "vin"))
        #expect(try SortKey.parse("odometer_km:desc") == SortKey(field: "odometer_km", descending: true))
        #expect(try SortKey.parse("year:ASC") == SortKey(field: "year"))
        #expect(try SortKey.parse("vin; DROP TABLE vehicles") == SortKey(field: "vin; DROP TABLE vehicles"))
        #expect(throws: VinyardError.self) { try SortKey.parse(":desc") }
        #expect(try SortKey.parse("year : desc") == SortKey(field: "year", descending: true))
        // A direction other than asc/desc is named (it was 'unknown field year:foo').
        #expect {
            try SortKey.parse("year:foo")
        } throws: { error in
            guard let e = error as? VinyardError else { return false }
            return e.code == .usage && e.message.contains("the direction 'foo' is neither asc nor desc")
        }
    }

    @Test func tiers() throws {
        let standard = EmissionTiers.standard
        #expect(standard.emissions(km: 0.0) == 0)
        #expect(standard.emissions(km: 1.0) == 1)
        #expect(standard.emissions(km: 4999.0) == 4999)
        #expect(standard.emissions(km: 5000.0) == 5000)
        #expect(standard.emissions(km: 5001.0) == Decimal(string: "5001.5"))
        #expect(standard.emissions(km: 12000.5) == Decimal(string: "15500.75"))
        #expect(standard.emissions(km: 5000.3) == Decimal(string: "5000.45"))
        #expect(try EmissionTiers.parse("5000:1,*:1.5") == standard)
        let custom = try EmissionTiers.parse(" 1000:0.5 , 20000:1 , *:2 ")
        #expect(custom.emissions(km: 1000.0) == 500)
        #expect(custom.emissions(km: 20000.0) == 19500)
        #expect(custom.emissions(km: 20001.0) == 19502)
        #expect(try EmissionTiers.parse("*:2").emissions(km: 7.0) == 14)
        #expect(custom.description == "1000:0.5,20000:1,*:2")
    }

    @Test(arguments: ["", "5000:1", "5000:1,1000:2,*:3", "5000:1,5000:2,*:1", "*:1,5000:2", "abc:1,*:1", "5000:x,*:1",
        "5000:-1,*:1", "0:1,*:1", "5000:1,*:nan", "1e3:1,*:1", "5000:1;*:1.5", "5000:1,*:1,*:2"])
    func rejectsBadTiers(_ text: String) {
        #expect(throws: VinyardError.self) { try EmissionTiers.parse(text) }
    }
}
