import Foundation
import Testing

@testable import SatchelCMIS
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
