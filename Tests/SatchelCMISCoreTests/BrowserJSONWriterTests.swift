import Foundation
import SatchelCMISCore
import Testing

/// Writer output read back by the client's parser gives the values written.
@Suite("Browser JSON writers")
struct BrowserJSONWriterTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_123)

    static let customType: TypeDefinition = {
        var type = TypeDefinition(
            id: "sat:report", baseTypeId: .document, parentTypeId: "cmis:document",
            propertyDefinitions: [
                PropertyDefinition(id: "sat:pages", propertyType: .integer),
                PropertyDefinition(id: "sat:ratio", propertyType: .decimal),
                PropertyDefinition(id: "sat:due", propertyType: .datetime),
                PropertyDefinition(id: "sat:final", propertyType: .boolean),
                PropertyDefinition(id: "sat:tags", propertyType: .string, cardinality: .multi),
                PropertyDefinition(id: "sat:link", propertyType: .uri),
                PropertyDefinition(id: "sat:empty", propertyType: .string),
            ])
        type.displayName = "Report"
        type.queryName = "sat:report"
        type.creatable = true
        type.versionable = true
        type.contentStreamAllowed = .allowed
        type.typeMutability = TypeMutability(create: false, update: false, delete: false)
        var choice = PropertyDefinition(
            id: "sat:level", propertyType: .string, cardinality: .single, updatability: .oncreate)
        choice.choices = [
            PropertyDefinition.Choice(displayName: "Low", values: [.string("low")]),
            PropertyDefinition.Choice(
                displayName: "High", values: [.string("high")],
                children: [PropertyDefinition.Choice(displayName: "Very", values: [.string("very")])]),
        ]
        choice.defaultValue = [.string("low")]
        choice.required = true
        choice.maxLength = 10
        type.propertyDefinitions.append(choice)
        return type
    }()

    static let document: CMISObject = {
        var object = CMISObject(
            properties: Properties([
                CMISProperty(id: "cmis:objectId", type: .id, values: [.id("doc-1")]),
                CMISProperty(id: "cmis:name", type: .string, values: [.string("Q3 \"report\"\n.pdf")]),
                CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("sat:report")]),
                CMISProperty(id: "cmis:baseTypeId", type: .id, values: [.id("cmis:document")]),
                CMISProperty(id: "cmis:creationDate", type: .datetime, values: [.datetime(date)]),
                CMISProperty(id: "cmis:contentStreamLength", type: .integer, values: [.integer(1 << 40)]),
                CMISProperty(id: "cmis:isLatestVersion", type: .boolean, values: [.boolean(true)]),
                CMISProperty(id: "sat:pages", type: .integer, values: [.integer(-3)]),
                CMISProperty(id: "sat:ratio", type: .decimal, values: [.decimal(Decimal(string: "3.25")!)]),
                CMISProperty(id: "sat:due", type: .datetime, values: [.datetime(date)]),
                CMISProperty(id: "sat:final", type: .boolean, values: [.boolean(false)]),
                CMISProperty(
                    id: "sat:tags", type: .string, cardinality: .multi, values: [.string("a"), .string("ü ✓")]),
                CMISProperty(id: "sat:link", type: .uri, values: [.uri("https://example.com/x?y=1")]),
                CMISProperty(id: "sat:empty", type: .string, values: []),
            ]))
        object.allowableActions = AllowableActions([.getProperties, .updateProperties, .getContentStream])
        object.acl = ACL(aces: [ACE(principalId: "alice", permissions: ["cmis:all"], isDirect: true)], isExact: true)
        object.policyIds = ["policy-1"]
        var rendition = Rendition(streamId: "thumb", mimeType: "image/png", length: 42, kind: "cmis:thumbnail")
        rendition.height = 10
        rendition.width = 20
        object.renditions = [rendition]
        object.extensions = [CMISExtension(name: "satchelNote", value: "x")]
        return object
    }()

    static func written(succinct: Bool, _ write: (inout BrowserJSONWriter) -> Void) -> Data {
        var writer = BrowserJSONWriter(succinct: succinct)
        write(&writer)
        return Data(writer.bytes)
    }

    /// Full properties carry their own types; succinct ones are typed through the type definition.
    @Test("an object round-trips", arguments: [false, true])
    func object(succinct: Bool) throws {
        let data = Self.written(succinct: succinct) { $0.object(Self.document) }
        let parsed = try BrowserParser.object(data) { $0 == "sat:report" ? Self.customType : nil }
        #expect(parsed.properties.ids == Self.document.properties.ids)
        for property in Self.document.properties {
            #expect(parsed.properties[property.id]?.values == property.values, "\(property.id)")
            #expect(parsed.properties[property.id]?.type == property.type, "\(property.id)")
        }
        #expect(parsed.allowableActions == Self.document.allowableActions)
        #expect(parsed.acl == Self.document.acl)
        #expect(parsed.policyIds == ["policy-1"])
        #expect(parsed.renditions == Self.document.renditions)
        #expect(parsed.extensions.first?.name == "satchelNote")
    }

    @Test("lists round-trip: children, descendants, parents, query results, versions, changes")
    func lists() throws {
        let child = ObjectInFolder(object: Self.document, pathSegment: "Q3.pdf")
        let children = ObjectInFolderList(objects: [child], hasMoreItems: true, numItems: 7)
        let parsedChildren = try BrowserParser.children(Self.written(succinct: false) { $0.children(children) })
        #expect(parsedChildren.hasMoreItems)
        #expect(parsedChildren.numItems == 7)
        #expect(parsedChildren.objects.first?.pathSegment == "Q3.pdf")
        #expect(parsedChildren.objects.first?.object.id == "doc-1")

        let tree = [ContainerNode(item: child, children: [ContainerNode(item: ObjectInFolder(object: Self.document))])]
        let parsedTree = try BrowserParser.descendants(Self.written(succinct: true) { $0.containers(tree) })
        #expect(parsedTree.count == 1)
        #expect(parsedTree.first?.children.count == 1)
        #expect(parsedTree.first?.item.pathSegment == "Q3.pdf")

        let parents = [ObjectParent(object: Self.document, relativePathSegment: "Q3.pdf")]
        let parsedParents = try BrowserParser.parents(Self.written(succinct: true) { $0.parents(parents) })
        #expect(parsedParents.first?.relativePathSegment == "Q3.pdf")

        let list = ObjectList(objects: [Self.document, Self.document], hasMoreItems: false, numItems: 2)
        let results = try BrowserParser.queryResults(Self.written(succinct: true) { $0.queryResults(list) })
        #expect(results.objects.count == 2)
        #expect(results.numItems == 2)
        let objects = try BrowserParser.objectList(Self.written(succinct: false) { $0.objectList(list) })
        #expect(objects.objects.map(\.id) == ["doc-1", "doc-1"])
        let versions = try BrowserParser.objectList(Self.written(succinct: false) { $0.objects([Self.document]) })
        #expect(versions.objects.count == 1)

        var changed = Self.document
        changed.changeEventInfo = ChangeEventInfo(changeType: .updated, changeTime: Self.date)
        let changes = ContentChanges(objects: [changed], hasMoreItems: false, numItems: 1, changeLogToken: "42")
        let parsedChanges = try BrowserParser.contentChanges(
            Self.written(succinct: true) { $0.contentChanges(changes) })
        #expect(parsedChanges.changeLogToken == "42")
        #expect(parsedChanges.objects.first?.changeEventInfo == changed.changeEventInfo)
    }

    @Test("ACLs, allowable actions and renditions round-trip on their own")
    func smallDocuments() throws {
        let acl = ACL(
            aces: [ACE(principalId: "bob", permissions: ["cmis:read", "cmis:write"], isDirect: false)], isExact: false)
        #expect(try BrowserParser.acl(Self.written(succinct: false) { $0.acl(acl) }) == acl)
        let actions = AllowableActions([.getChildren, .createFolder])
        #expect(
            try BrowserParser.allowableActions(Self.written(succinct: false) { $0.allowableActions(actions) })
                == actions)
        let renditions = Self.document.renditions
        #expect(try BrowserParser.renditions(Self.written(succinct: false) { $0.renditions(renditions) }) == renditions)
    }

    @Test("a type definition round-trips, alone, in a page and in a tree")
    func types() throws {
        let type = Self.customType
        #expect(try BrowserParser.typeDefinition(Self.written(succinct: false) { $0.typeDefinition(type) }) == type)
        let page = try BrowserParser.typeDefinitionList(
            Self.written(succinct: false) { $0.typeList([type], hasMoreItems: true, numItems: 3) })
        #expect(page.types == [type])
        #expect(page.hasMoreItems)
        #expect(page.numItems == 3)
        let tree = [TypeTreeNode(type: type, children: [TypeTreeNode(type: type)])]
        let parsed = try BrowserParser.typeDescendants(Self.written(succinct: false) { $0.typeTree(tree) })
        #expect(parsed.first?.type == type)
        #expect(parsed.first?.children.first?.type == type)
    }

    @Test("repository info round-trips with capabilities, ACL capabilities, URLs and the SAP extensions")
    func repositoryInfo() throws {
        var capabilities = RepositoryCapabilities()
        capabilities.contentStreamUpdatability = .anytime
        capabilities.changes = .objectIdsOnly
        capabilities.getDescendants = true
        capabilities.query = .bothCombined
        capabilities.acl = .manage
        capabilities.creatablePropertyTypes = [.string, .integer]
        var settable = NewTypeSettableAttributes()
        settable.id = true
        capabilities.newTypeSettableAttributes = settable
        var info = RepositoryInfo(
            id: "mydocs-alice", name: "My Documents", rootFolderId: "root-1", capabilities: capabilities,
            extensions: [
                CMISExtension(name: "myDocuments", value: "root-1"), CMISExtension(name: "token", value: "t0k"),
            ])
        info.productName = "Satchel"
        info.latestChangeLogToken = "17"
        info.changesOnType = [.document, .folder]
        info.principalIdAnyone = "anyone"
        info.aclCapabilities = ACLCapabilities(
            supportedPermissions: .basic, propagation: .objectOnly,
            permissions: [PermissionDefinition(permission: "cmis:read", description: "Read")],
            permissionMapping: [PermissionMapping(key: "canGetChildren.Folder", permissions: ["cmis:read"])])
        let data = Self.written(succinct: false) { $0.repositoryInfos([info], baseURL: "http://h:1/mcm/b/json") }
        let parsed = try #require(try BrowserParser.repositoryInfos(data).first)
        #expect(parsed.capabilities == capabilities)
        #expect(parsed.aclCapabilities == info.aclCapabilities)
        #expect(parsed.extensionValue(named: "token") == "t0k")
        #expect(parsed.extensionValue(named: "myDocuments") == "root-1")
        #expect(parsed.repositoryURL?.absoluteString == "http://h:1/mcm/b/json/mydocs-alice")
        #expect(parsed.rootFolderURL?.absoluteString == "http://h:1/mcm/b/json/mydocs-alice/root")
        #expect(parsed.changesOnType == [.document, .folder])
        #expect(parsed.latestChangeLogToken == "17")
        #expect(parsed.productName == "Satchel")
    }

    @Test("query results are keyed by query name in both forms, the property id and type kept in the full one")
    func queryResultsByQueryName() throws {
        let full = try BrowserParser.queryResults(Fixture.data("browser-query-aliases.json"))
        let row = try #require(full.objects.first)
        #expect(row.properties.property(queryName: "oid")?.id == "cmis:objectId")
        #expect(row.properties.property(queryName: "oid")?.type == .id)
        for succinct in [false, true] {
            let written = Self.written(succinct: succinct) { $0.queryResults(full) }
            let json = try JSONSerialization.jsonObject(with: written) as? [String: Any]
            let first = (json?["results"] as? [Any])?.first as? [String: Any]
            if succinct {
                let values = first?["succinctProperties"] as? [String: Any]
                #expect(values?["oid"] as? String == "139")
                #expect(values?["n"] as? String == "Schriftstück.txt")
                #expect(values?["cmis:objectId"] == nil)
            } else {
                let oid = (first?["properties"] as? [String: Any])?["oid"] as? [String: Any]
                #expect(oid?["id"] as? String == "cmis:objectId")
                #expect(oid?["queryName"] as? String == "oid")
                #expect(oid?["type"] as? String == "id")
            }
        }
    }

    @Test("a query selecting one property twice keeps both columns, the second under its query name")
    func repeatedQueryColumns() throws {
        let json =
            #"{"results":[{"properties":{"a":{"id":"cmis:name","queryName":"a","type":"string","cardinality":"single","value":"x"},"b":{"id":"cmis:name","queryName":"b","type":"string","cardinality":"single","value":"x"}}}],"hasMoreItems":false}"#
        let row = try #require(try BrowserParser.queryResults(Data(json.utf8)).objects.first)
        #expect(row.properties.count == 2)
        #expect(row.properties.property(queryName: "a")?.id == "cmis:name")
        #expect(row.properties.property(queryName: "b")?.values == [.string("x")])
    }
}
