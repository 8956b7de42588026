import Foundation
import SatchelCMISCore
import Testing

/// The Browser binding's two halves, now side by side in SatchelCMISCore: what the reference server sent, read,
/// written by Satchel's writer and read again, is the same value.
@Suite("Browser JSON: read, write, read")
struct BrowserRoundTripTests {
    static func written(_ body: (inout BrowserJSONWriter) -> Void, succinct: Bool = false) -> Data {
        var writer = BrowserJSONWriter(succinct: succinct)
        body(&writer)
        return Data(writer.bytes)
    }

    @Test("an object with every kind of property, its allowable actions and ACL")
    func object() throws {
        let original = try BrowserParser.object(try Fixture.data("browser-object-document.json"))
        let again = try BrowserParser.object(Self.written { $0.object(original) })
        #expect(again.id == original.id && !original.properties.isEmpty)
        for property in original.properties {
            let read = again.properties[property.id]
            #expect(read?.values == property.values, "\(property.id)")
            #expect(read?.type == property.type, "\(property.id)")
        }
        #expect(again.allowableActions == original.allowableActions)
        #expect(again.acl == original.acl)
    }

    @Test("a type definition with its property definitions")
    func typeDefinition() throws {
        let original = try BrowserParser.typeDefinition(try Fixture.data("browser-typedef-document.json"))
        let again = try BrowserParser.typeDefinition(Self.written { $0.typeDefinition(original) })
        #expect(again.id == original.id && again.baseTypeId == original.baseTypeId)
        #expect(!original.propertyDefinitions.isEmpty)
        #expect(again.propertyDefinitions.map(\.id) == original.propertyDefinitions.map(\.id))
        for (read, definition) in zip(again.propertyDefinitions, original.propertyDefinitions) {
            #expect(read.propertyType == definition.propertyType, "\(definition.id)")
            #expect(read.cardinality == definition.cardinality, "\(definition.id)")
            #expect(read.updatability == definition.updatability, "\(definition.id)")
        }
    }

    @Test("repository infos with capabilities and extensions")
    func repositories() throws {
        let original = try BrowserParser.repositoryInfos(try Fixture.data("browser-repositories.json"))
        let again = try BrowserParser.repositoryInfos(
            Self.written { $0.repositoryInfos(original, baseURL: "http://127.0.0.1/cmis/browser") })
        #expect(again.map(\.id) == original.map(\.id))
        for (read, info) in zip(again, original) {
            #expect(read.rootFolderId == info.rootFolderId && read.cmisVersionSupported == info.cmisVersionSupported)
            #expect(read.capabilities == info.capabilities)
            #expect(read.productName == info.productName)
        }
    }

    @Test("a page of children keeps its objects, paging fields and path segments")
    func children() throws {
        let original = try BrowserParser.children(try Fixture.data("browser-children.json"))
        let again = try BrowserParser.children(Self.written { $0.children(original) })
        #expect(again.objects.map(\.object.id) == original.objects.map(\.object.id))
        #expect(again.objects.map(\.pathSegment) == original.objects.map(\.pathSegment))
        #expect(again.hasMoreItems == original.hasMoreItems && again.numItems == original.numItems)
    }
}
