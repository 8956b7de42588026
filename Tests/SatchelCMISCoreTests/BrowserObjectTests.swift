import Foundation
import SatchelCMISCore
import Testing

@Suite("Browser binding: objects and object lists")
struct BrowserObjectTests {
    @Test("a full document: typed properties, allowable actions, ACL, extensions")
    func document() throws {
        let object = try BrowserParser.object(Fixture.data("browser-object-document.json"))
        #expect(object.id == "133")
        #expect(object.name == "My_Document-0-0")
        #expect(object.objectTypeId == "ComplexType")
        #expect(object.baseType == .document)
        #expect(object.contentStreamLength == 33652)
        #expect(object.contentStreamMimeType == "text/plain")
        #expect(object.creationDate == Date(timeIntervalSince1970: 1_795_300_168.796))
        #expect(object.isLatestVersion == true)
        #expect(object.properties.count == 42)
        #expect(object.properties.first?.id == "DateTimePropMV")

        let pickList = try #require(object.properties["PickListProp"])
        #expect(pickList.type == .string && pickList.stringValue == "blue")
        #expect(pickList.displayName == "Sample Pick List Property")
        let multi = try #require(object.properties["DateTimePropMV"])
        #expect(multi.type == .datetime && multi.cardinality == .multi && multi.values.isEmpty)
        #expect(object.properties["cmis:changeToken"]?.values == [.string("1795300168796")])

        let actions = try #require(object.allowableActions)
        #expect(actions.canDeleteObject && actions.canGetContentStream && actions.canApplyACL)
        #expect(!actions.canGetChildren && !actions.canCheckOut)
        #expect(actions.actions.count == 15)

        let acl = try #require(object.acl)
        #expect(acl.isExact == true)
        #expect(acl.aces == [ACE(principalId: "anyone", permissions: ["cmis:all"], isDirect: true)])

        let example = try #require(object.extensions.first(named: "exampleExtension"))
        #expect(example.children.map(\.name) == ["objectId", "name"])
        #expect(example.children.first?.value == "133")
    }

    @Test("succinct and full children describe the same objects with the same typed standard properties")
    func succinctMatchesFull() throws {
        let full = try BrowserParser.children(Fixture.data("browser-children.json"))
        let succinct = try BrowserParser.children(Fixture.data("browser-children-succinct.json"))
        #expect(full.hasMoreItems == true && full.numItems == 5)
        #expect(succinct.hasMoreItems == full.hasMoreItems && succinct.numItems == full.numItems)
        #expect(full.objects.map(\.object.id) == ["133", "134", "135"])
        #expect(succinct.objects.map(\.object.id) == full.objects.map(\.object.id))
        #expect(succinct.objects.map(\.object.name) == full.objects.map(\.object.name))
        #expect(full.objects.allSatisfy { $0.pathSegment == nil })
        for (lhs, rhs) in zip(full.objects, succinct.objects) {
            #expect(lhs.object.properties.ids == rhs.object.properties.ids)
            for property in lhs.object.properties where property.id.hasPrefix("cmis:") {
                let other = try #require(rhs.object.properties[property.id])
                #expect(other.type == property.type, "\(property.id)")
                #expect(other.cardinality == property.cardinality, "\(property.id)")
                #expect(other.values == property.values, "\(property.id)")
            }
        }
        #expect(succinct.objects[1].object.contentStreamLength == 33315)
    }

    @Test("succinct properties take their types from the type definition, or infer them")
    func succinctTyping() throws {
        let body = """
            {"succinctProperties": {"cmis:objectId": "9", "cmis:objectTypeId": "custom:doc",
              "custom:tags": ["a", "b"], "custom:when": 1700000000000, "custom:count": 7, "custom:ratio": 0.25,
              "custom:sizes": [1, 2.5], "custom:flag": true, "custom:unset": null}}
            """
        var type = TypeDefinition(id: "custom:doc", baseTypeId: .document)
        type.propertyDefinitions = [
            PropertyDefinition(id: "custom:when", propertyType: .datetime),
            PropertyDefinition(id: "custom:count", propertyType: .decimal),
            PropertyDefinition(id: "custom:unset", propertyType: .integer, cardinality: .multi),
        ]
        let typed = try BrowserParser.object(Data(body.utf8)) { $0 == "custom:doc" ? type : nil }
        #expect(typed.properties["custom:when"]?.dateValue == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(typed.properties["custom:count"]?.values == [.decimal(7)])
        #expect(typed.properties["custom:unset"]?.cardinality == .multi)
        #expect(typed.properties["custom:unset"]?.type == .integer)

        let inferred = try BrowserParser.object(Data(body.utf8))
        let tags = try #require(inferred.properties["custom:tags"])
        #expect(tags.cardinality == .multi && tags.stringValues == ["a", "b"])
        #expect(inferred.properties["custom:when"]?.int64Value == 1_700_000_000_000)
        #expect(inferred.properties["custom:count"]?.type == .integer)
        #expect(inferred.properties["custom:ratio"]?.values == [.decimal(Decimal(string: "0.25")!)])
        #expect(inferred.properties["custom:sizes"]?.type == .decimal)
        #expect(inferred.properties["custom:sizes"]?.values.count == 2)
        #expect(inferred.properties["custom:flag"]?.boolValue == true)
        #expect(inferred.properties["custom:unset"]?.isEmpty == true)
        #expect(inferred.objectTypeId == "custom:doc")
    }

    @Test("a page mixing types, property orders and secondary types types every object by its own definitions")
    func succinctTypingAcrossAPage() throws {
        // Objects of one type repeat their keys in one order; the parser reuses what it found for the object
        // before. Every change here (another type, another order, a secondary type, a missing key) must not.
        func object(_ id: String, _ type: String, _ members: String) -> String {
            #"{"object": {"succinctProperties": {"cmis:objectId": "\#(id)", "cmis:objectTypeId": "\#(type)", \#(members)}}}"#
        }
        let objects = [
            object("1", "a:doc", #""x:size": 1, "x:when": 1700000000000"#),
            object("2", "a:doc", #""x:size": 2, "x:when": 1700000001000"#),
            object("3", "b:doc", #""x:size": 3, "x:when": 1700000002000"#),
            object("4", "a:doc", #""x:when": 1700000003000, "x:size": 4"#),
            object(
                "5", "a:doc",
                #""x:size": 5, "x:when": 1700000004000, "cmis:secondaryObjectTypeIds": ["s:extra"], "s:note": "six""#),
            object("6", "a:doc", #""x:size": 6"#),
            object("7", "a:doc", #""x:size": 7, "x:when": 1700000006000, "s:note": 8"#),
        ]
        let body = #"{"objects": [\#(objects.joined(separator: ","))], "hasMoreItems": false, "numItems": 7}"#
        var a = TypeDefinition(id: "a:doc", baseTypeId: .document)
        a.propertyDefinitions = [
            PropertyDefinition(id: "x:size", propertyType: .decimal),
            PropertyDefinition(id: "x:when", propertyType: .datetime),
        ]
        var b = TypeDefinition(id: "b:doc", baseTypeId: .document)
        b.propertyDefinitions = [
            PropertyDefinition(id: "x:size", propertyType: .integer, cardinality: .multi),
            PropertyDefinition(id: "x:when", propertyType: .integer),
        ]
        var extra = TypeDefinition(id: "s:extra", baseTypeId: .secondary)
        extra.propertyDefinitions = [PropertyDefinition(id: "s:note", propertyType: .string)]
        let types = ["a:doc": a, "b:doc": b, "s:extra": extra]
        let page = try BrowserParser.children(Data(body.utf8)) { types[$0] }.objects.map(\.object.properties)
        #expect(page.count == 7)
        for index in [0, 1, 3, 4] {
            #expect(page[index]["x:size"]?.values == [.decimal(Decimal(index + 1))], "object \(index + 1)")
            #expect(page[index]["x:when"]?.type == .datetime, "object \(index + 1)")
        }
        #expect(page[3]["x:when"]?.dateValue == Date(timeIntervalSince1970: 1_700_000_003))
        #expect(page[3].ids == ["cmis:objectId", "cmis:objectTypeId", "x:when", "x:size"])
        #expect(page[2]["x:size"]?.values == [.integer(3)])
        #expect(page[2]["x:size"]?.cardinality == .multi)
        #expect(page[2]["x:when"]?.values == [.integer(1_700_000_002_000)])
        #expect(page[4]["s:note"]?.type == .string)
        #expect(page[4]["s:note"]?.stringValue == "six")
        #expect(page[5]["x:when"] == nil)
        #expect(page[5]["x:size"]?.values == [.decimal(6)])
        // Without the secondary type, s:note is untyped again: an integer, inferred.
        #expect(page[6]["s:note"]?.values == [.integer(8)])
    }

    @Test("multi-valued full properties keep every value in order")
    func multiValued() throws {
        let body = """
            {"properties": {
              "cmis:objectId": {"id": "cmis:objectId", "type": "id", "cardinality": "single", "value": "1"},
              "tags": {"id": "tags", "type": "string", "cardinality": "multi", "value": ["x", "y", "z"]},
              "dates": {"id": "dates", "type": "datetime", "cardinality": "multi", "value": [0, 1000]}}}
            """
        let object = try BrowserParser.object(Data(body.utf8))
        #expect(object.properties["tags"]?.stringValues == ["x", "y", "z"])
        #expect(
            object.properties["dates"]?.values.compactMap(\.dateValue) == [
                Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1),
            ])
    }

    @Test("descendants: a folder tree with nested children")
    func descendants() throws {
        let tree = try BrowserParser.descendants(Fixture.data("browser-descendants-succinct.json"))
        #expect(
            tree.map(\.object.name) == [
                "My_Document-1-0", "My_Document-1-1", "My_Document-1-2", "My_Folder-1-0", "My_Folder-1-1",
            ])
        let folder = tree[3]
        #expect(folder.object.baseType == .folder)
        #expect(folder.object.path == "/My_Folder-0-0/My_Folder-1-0")
        #expect(folder.object.parentId == "101")
        #expect(folder.children.count == 5)
        #expect(folder.children[3].object.path == "/My_Folder-0-0/My_Folder-1-0/My_Folder-2-0")
        #expect(tree[0].children.isEmpty)
        #expect(tree[0].object.creationDate == Date(timeIntervalSince1970: 1_795_300_166.729))
    }

    @Test("query results and content changes")
    func queryAndChanges() throws {
        let query = try BrowserParser.queryResults(Fixture.data("browser-query.json"))
        #expect(query.objects.map(\.id) == ["111", "112"])
        #expect(query.objects.first?.name == "My_Document-2-0")
        #expect(query.hasMoreItems == true && query.numItems == 21)
        #expect(query.objects.first?.properties.property(queryName: "cmis:name")?.stringValue == "My_Document-2-0")

        let changes = try BrowserParser.contentChanges(Fixture.data("browser-content-changes.json"))
        #expect(changes.objects.count == 25)
        #expect(changes.changeLogToken == "token-24")
        #expect(changes.hasMoreItems == false && changes.numItems == 25)
        let first = try #require(changes.objects.first)
        #expect(first.id == "cl-0")
        #expect(first.changeEventInfo?.changeType == .deleted)
        #expect(first.changeEventInfo?.changeTime == Date(timeIntervalSince1970: 1_795_300_201.514))
    }

    @Test("allowable actions, ACL and renditions on their own")
    func selectors() throws {
        let actions = try BrowserParser.allowableActions(Data(#"{"canGetChildren":true,"canCheckIn":false}"#.utf8))
        #expect(actions.canGetChildren && !actions.canCheckIn)
        let aclBody =
            #"{"aces":[{"principal":{"principalId":"bob"},"permissions":["cmis:read"],"isDirect":false}],"#
            + #""isExact":true}"#
        let acl = try BrowserParser.acl(Data(aclBody.utf8))
        #expect(acl.aces.first?.principalId == "bob" && acl.aces.first?.isDirect == false && acl.isExact == true)
        let renditionsBody =
            #"[{"streamId":"s1","mimeType":"image/png","length":1024,"kind":"cmis:thumbnail","#
            + #""height":64,"width":64}]"#
        let renditions = try BrowserParser.renditions(Data(renditionsBody.utf8))
        #expect(
            renditions == [
                {
                    var rendition = Rendition(
                        streamId: "s1", mimeType: "image/png", length: 1024, kind: "cmis:thumbnail")
                    rendition.height = 64
                    rendition.width = 64
                    return rendition
                }()
            ])
    }
}
