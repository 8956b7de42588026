import Foundation
import Testing

@testable import SatchelOData

@Suite("EDMX hostile input")
struct MetadataHostileTests {
    @Test(arguments: ["hostile-truncated-metadata.xml", "hostile-not-edmx.xml"])
    func unreadableDocumentsThrow(name: String) throws {
        let error = try #require(throws: ODataError.self) { try ODataMetadata.parse(data: try fixture(name)) }
        #expect(error.code == .invalidMetadata)
        #expect(!error.message.isEmpty)
    }

    @Test(arguments: [Data(), Data("not xml at all".utf8), Data("<Edmx/>".utf8), Data("{\"d\":{}}".utf8)])
    func garbageThrows(data: Data) {
        #expect(throws: ODataError.self) { try ODataMetadata.parse(data: data) }
    }

    @Test func unknownConstructsBecomeDiagnostics() throws {
        let metadata = try ODataMetadata.parse(data: try fixture("hostile-unknown-elements.xml"))
        let messages = metadata.diagnostics.map(\.description)
        #expect(messages.contains { $0.contains("<Mystery>") })
        #expect(messages.contains { $0.contains("<Hologram>") })
        #expect(messages.contains { $0.contains("<Sparkle>") && $0.contains("EntityType(Thing)") })
        #expect(messages.contains { $0.contains("Edm.Tensor") && $0.hasPrefix("warning") })
        #expect(messages.contains { $0.contains("without Name or Type") })
        #expect(messages.contains { $0.contains("EntityType(Keyless)") && $0.contains("no key") })
        #expect(messages.contains { $0.contains("not an integer") })
        #expect(messages.contains { $0.contains("<Portal>") })
        #expect(messages.contains { $0.contains("EntitySet without Name or type") })
        // The model is still usable.
        #expect(metadata.entityType(ofSet: "Things")?.properties.map(\.name) == ["Id", "Shape"])
    }

    @Test func brokenAssociationsBecomeDiagnostics() throws {
        let metadata = try ODataMetadata.parse(data: try fixture("hostile-v2-broken-association.xml"))
        #expect(metadata.version == .v2)
        #expect(metadata.diagnostics.contains { $0.message.contains("B.NoSuchAssociation") })
        #expect(metadata.diagnostics.contains { $0.message.contains("B.Ghost") })
        #expect(metadata.entityType(named: "B.A")?.navigationProperty("Missing")?.type.name == "")
    }
}
