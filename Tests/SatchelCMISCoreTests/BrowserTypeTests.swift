import Foundation
import SatchelCMISCore
import Testing

@Suite("Browser binding: type definitions")
struct BrowserTypeTests {
    @Test("cmis:document has 26 property definitions with their cardinality and updatability")
    func documentType() throws {
        let type = try BrowserParser.typeDefinition(Fixture.data("browser-typedef-document.json"))
        #expect(type.id == "cmis:document")
        #expect(type.baseTypeId == .document)
        #expect(type.parentTypeId == nil)
        #expect(type.creatable == true && type.fileable == true && type.versionable == false)
        #expect(type.contentStreamAllowed == .allowed)
        #expect(type.typeMutability == TypeMutability(create: true, update: false, delete: false))
        #expect(type.propertyDefinitions.count == 26)
        #expect(type.propertyDefinitions.first?.id == "cmis:name")

        let name = try #require(type.propertyDefinition(id: "cmis:name"))
        #expect(name.propertyType == .string && name.cardinality == .single && name.updatability == .readwrite)
        #expect(name.required == true && name.orderable == true)
        let secondary = try #require(type.propertyDefinition(id: "cmis:secondaryObjectTypeIds"))
        #expect(secondary.propertyType == .id && secondary.cardinality == .multi)
        #expect(secondary.defaultValue.isEmpty)
        #expect(type.propertyDefinition(id: "cmis:objectTypeId")?.updatability == .oncreate)
        #expect(type.propertyDefinition(id: "cmis:creationDate")?.propertyType == .datetime)
    }

    @Test("type children: six base types, paging fields as sent")
    func typeChildren() throws {
        let list = try BrowserParser.typeDefinitionList(Fixture.data("browser-type-children.json"))
        #expect(list.types.count == 6)
        #expect(Set(list.types.map(\.baseTypeId)) == Set(BaseTypeId.allCases))
        // OpenCMIS reports hasMoreItems = true even though all 6 of 6 types are in the page.
        #expect(list.hasMoreItems == true)
        #expect(list.numItems == 6)
        let relationship = try #require(list.types.first { $0.baseTypeId == .relationship })
        #expect(relationship.allowedSourceTypes == [] && relationship.allowedTargetTypes == [])
        #expect(list.types.first { $0.id == "cmis:secondary" }?.creatable == false)
    }

    @Test("choices and default values are typed by the property type")
    func choices() throws {
        let body = """
            {"id":"t","baseId":"cmis:document","parentId":"cmis:document","propertyDefinitions":{
              "color":{"id":"color","propertyType":"string","cardinality":"single","updatability":"readwrite",
                "defaultValue":"blue","openChoice":false,
                "choice":[{"displayName":"Blue","value":["blue"]},{"displayName":"Warm","value":[],
                  "choice":[{"displayName":"Red","value":["red"]}]}]},
              "sizes":{"id":"sizes","propertyType":"integer","cardinality":"multi","updatability":"readonly",
                "defaultValue":[1,2]}}}
            """
        let type = try BrowserParser.typeDefinition(Data(body.utf8))
        #expect(type.parentTypeId == "cmis:document")
        let color = try #require(type.propertyDefinition(id: "color"))
        #expect(color.defaultValue == [.string("blue")])
        #expect(color.choices.first?.values == [.string("blue")])
        #expect(color.choices.last?.children.first?.values == [.string("red")])
        #expect(type.propertyDefinition(id: "sizes")?.defaultValue == [.integer(1), .integer(2)])
    }
}
