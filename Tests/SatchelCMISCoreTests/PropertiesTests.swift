import Foundation
import Testing

import SatchelCMISCore

@Suite struct PropertiesTests {
    private static func bag(_ pairs: [(String, String)]) -> [CMISProperty] {
        pairs.map { CMISProperty(id: $0.0, type: .string, values: [.string($0.1)]) }
    }

    @Test func aLaterPropertyWithTheSameIdReplacesTheEarlier() {
        let properties = Properties(Self.bag([("a", "1"), ("b", "2"), ("a", "3")]))
        #expect(properties.ids == ["a", "b"])
        #expect(properties["a"]?.stringValue == "3")
    }

    @Test func sameIdsInTheSameOrderLookUpLikeTheTemplate() {
        let template = Properties(Self.bag([("cmis:name", "x"), ("cmis:objectId", "1")]))
        let next = Properties(Self.bag([("cmis:name", "y"), ("cmis:objectId", "2")]), lookupLike: template)
        #expect(next["cmis:name"]?.stringValue == "y")
        #expect(next["cmis:objectId"]?.stringValue == "2")
        #expect(next["other"] == nil)
        #expect(next.ids == ["cmis:name", "cmis:objectId"])
    }

    @Test func otherIdsOrOrderBuildTheirOwnLookup() {
        let template = Properties(Self.bag([("a", "1"), ("b", "2")]))
        let swapped = Properties(Self.bag([("b", "3"), ("a", "4")]), lookupLike: template)
        #expect(swapped["a"]?.stringValue == "4")
        #expect(swapped["b"]?.stringValue == "3")
        let duplicated = Properties(Self.bag([("a", "5"), ("a", "6")]), lookupLike: template)
        #expect(duplicated.ids == ["a"])
        #expect(duplicated["a"]?.stringValue == "6")
        let longer = Properties(Self.bag([("a", "7"), ("b", "8"), ("c", "9")]), lookupLike: template)
        #expect(longer["c"]?.stringValue == "9")
    }

    @Test func changingASharedLookupLeavesTheTemplateAlone() {
        let template = Properties(Self.bag([("a", "1"), ("b", "2")]))
        var next = Properties(Self.bag([("a", "3"), ("b", "4")]), lookupLike: template)
        next["c"] = CMISProperty(id: "c", type: .string, values: [.string("5")])
        next["a"] = nil
        #expect(next.ids == ["b", "c"])
        #expect(next["c"]?.stringValue == "5")
        #expect(template["c"] == nil)
        #expect(template["a"]?.stringValue == "1")
    }
}

/// Parse once, then type: an answer read before its type's definition was known, typed afterwards, equals the
/// same answer read with the definition at hand.
@Suite("Properties typed after parsing")
struct PropertyRetypingTests {
    static let type = TypeDefinition(
        id: "my:doc", baseTypeId: .document, parentTypeId: "cmis:document",
        propertyDefinitions: [
            PropertyDefinition(id: "my:when", propertyType: .datetime),
            PropertyDefinition(id: "my:ref", propertyType: .id),
            PropertyDefinition(id: "my:amount", propertyType: .decimal),
            PropertyDefinition(id: "my:tags", propertyType: .string, cardinality: .multi),
            PropertyDefinition(id: "my:link", propertyType: .uri),
        ])

    static let body = Data(
        #"""
        {"objects": [{"object": {"succinctProperties": {"cmis:objectId": "a", "cmis:objectTypeId": "my:doc",
          "cmis:baseTypeId": "cmis:document", "my:when": 1700000000250, "my:ref": "x-1", "my:amount": 3,
          "my:tags": ["red"], "my:link": "https://example.com/a", "my:other": 7}}}],
         "hasMoreItems": false, "numItems": 1}
        """#.utf8)

    @Test("values read without a definition get the definition's type, cardinality and names afterwards")
    func typedAfterwards() throws {
        let lookup: (String) -> TypeDefinition? = { $0 == "my:doc" ? Self.type : nil }
        let untyped = try BrowserParser.children(Self.body)
        let untypedObject = try #require(untyped.objects.first?.object)
        #expect(untypedObject.properties["my:when"]?.values == [.integer(1_700_000_000_250)])
        #expect(untypedObject.properties["my:ref"]?.type == .string)

        let typed = try untyped.typed(by: lookup)
        let direct = try BrowserParser.children(Self.body, typeDefinition: lookup)
        #expect(typed == direct)
        let object = try #require(typed.objects.first?.object)
        #expect(object.properties["my:when"]?.values == [.datetime(Date(timeIntervalSince1970: 1_700_000_000.25))])
        #expect(object.properties["my:ref"]?.values == [.id("x-1")])
        #expect(object.properties["my:amount"]?.values == [.decimal(3)])
        #expect(object.properties["my:tags"]?.cardinality == .multi)
        #expect(object.properties["my:link"]?.values == [.uri("https://example.com/a")])
        // No definition names it: it keeps what the body said.
        #expect(object.properties["my:other"]?.values == [.integer(7)])
    }

    @Test("a value that cannot be what its definition says is the server's error, with the property's path")
    func mismatch() throws {
        let body = Data(
            #"{"succinctProperties": {"cmis:objectId": "a", "cmis:objectTypeId": "my:doc", "my:when": true}}"#.utf8)
        let untyped = try BrowserParser.object(body)
        #expect {
            _ = try untyped.typed { $0 == "my:doc" ? Self.type : nil }
        } throws: { error in
            (error as? CMISError)?.code == .invalidResponse && (error as? CMISError)?.path == "properties.my:when"
        }
    }
}
