import Testing
@testable import VinyardKit

@Suite struct SupportTests {
    @Test(arguments: [
        (VinyardError.Code.usage, Int32(64)), (.malformedInput, 65), (.missingInput, 66), (.cantCreate, 74), (.io, 74),
    ])
    func exitStatuses(_ code: VinyardError.Code, _ status: Int32) {
        #expect(code.exitStatus == status)
    }

    @Test(arguments: [
        ("VIN", "vin"), ("Vehicle Identification Number", "vehicleidentificationnumber"),
        ("Odometer (km)", "odometer"), ("Reg. plate", "regplate"), ("model_year", "modelyear"),
    ])
    func foldsHeaders(_ header: String, _ folded: String) {
        #expect(Schema.fold(header) == folded)
    }
}
