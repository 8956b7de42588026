import Foundation
import Testing

@testable import SatchelOData

@Suite("Edm.Guid text")
struct GUIDTests {
    @Test(arguments: [
        "01234567-89ab-cdef-0123-456789abcdef", "01234567-89AB-CDEF-0123-456789ABCDEF",
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ])
    func parsesAsFoundationDoes(text: String) throws {
        #expect(ODataGUID.parse(text) == UUID(uuidString: text))
        #expect(ODataGUID.parse(text) != nil)
    }

    @Test(arguments: [
        "", "01234567-89ab-cdef-0123-456789abcde", "01234567-89ab-cdef-0123-456789abcdef0",
        "0123456789ab-cdef-0123-456789abcdef-", "g1234567-89ab-cdef-0123-456789abcdef",
        "01234567_89ab-cdef-0123-456789abcdef", "{1234567-89ab-cdef-0123-456789abcdef}",
        "0123456é-89ab-cdef-0123-456789abcd",
    ])
    func refusesMalformedText(text: String) {
        #expect(ODataGUID.parse(text) == nil)
    }
}
