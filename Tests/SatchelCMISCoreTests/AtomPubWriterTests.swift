import Foundation
import SatchelCMISCore
import SatchelXML
import Testing

/// Model values written with `AtomPubWriter` and read back with `AtomPubParser` come back equal.
@Suite("AtomPub writer: round trips through the parser")
struct AtomPubWriterTests {
    static let date = Date(timeIntervalSince1970: 1_763_764_168.5)

    static func property(
        _ id: String, _ type: PropertyType, _ values: [PropertyValue], multi: Bool = false
    )
        -> CMISProperty
    {
        CMISProperty(id: id, type: type, cardinality: multi ? .multi : .single, values: values)
    }

    static var sampleObject: CMISObject {
        var properties = Properties()
        for property in [
            property("cmis:objectId", .id, [.id("doc-1")]),
            property("cmis:name", .string, [.string("  Report & <notes> ✓  ")]),
            property("cmis:objectTypeId", .id, [.id("cmis:document")]),
            property("cmis:baseTypeId", .id, [.id("cmis:document")]),
            property("cmis:contentStreamLength", .integer, [.integer(33_652)]),
            property("cmis:lastModificationDate", .datetime, [.datetime(date)]),
            property("cmis:isLatestVersion", .boolean, [.boolean(true)]),
            property("price", .decimal, [.decimal(Decimal(string: "12.75")!)]),
            property("tags", .string, [.string("a"), .string("b\nc")], multi: true),
            property("empty", .string, []),
            property("home", .uri, [.uri("https://example.com/?a=1&b=2")]),
            property("body", .html, [.html("<p>hi</p>")]),
        ] {
            properties[property.id] = property
        }
        var object = CMISObject(properties: properties)
        object.allowableActions = AllowableActions([.getProperties, .updateProperties, .getContentStream])
        object.acl = ACL(
            aces: [ACE(principalId: "alice", permissions: ["cmis:all"], isDirect: true)], isExact: true)
        object.policyIds = ["p1", "p2"]
        var rendition = Rendition(streamId: "r1", mimeType: "image/png", length: 10, kind: "cmis:thumbnail")
        rendition.title = "thumb"
        object.renditions = [rendition]
        object.extensions = [
            CMISExtension(
                namespace: "http://example.com/ext", name: "info", value: nil,
                children: [CMISExtension(namespace: "http://example.com/ext", name: "size", value: "42")])
        ]
        return object
    }

    static func wrapped(_ write: (inout XMLWriter) -> Void) -> Data {
        var writer = AtomPubWriter.makeWriter()
        writer.start("entry", namespace: XNamespace.atom)
        write(&writer)
        return Data(writer.finish())
    }

    @Test func objectRoundTrip() throws {
        let object = Self.sampleObject
        let data = Self.wrapped { AtomPubWriter.object(object, into: &$0) }
        let parsed = try AtomPubParser.object(data)
        #expect(parsed.properties == object.properties)
        #expect(parsed.allowableActions == object.allowableActions)
        #expect(parsed.acl == object.acl)
        #expect(parsed.policyIds == object.policyIds)
        #expect(parsed.renditions == object.renditions)
        #expect(parsed.extensions == object.extensions)
    }

    @Test func relationshipsAndChangeEvents() throws {
        var object = Self.sampleObject
        var relationship = CMISObject(properties: Properties())
        relationship.properties["cmis:objectId"] = Self.property("cmis:objectId", .id, [.id("rel-1")])
        object.relationships = [relationship]
        object.changeEventInfo = ChangeEventInfo(changeType: ChangeType(rawValue: "updated"), changeTime: Self.date)
        let parsed = try AtomPubParser.object(Self.wrapped { AtomPubWriter.object(object, into: &$0) })
        #expect(parsed.relationships.map(\.id) == ["rel-1"])
        #expect(parsed.changeEventInfo == object.changeEventInfo)
    }

    @Test(arguments: [false, true])
    func repositoryInfoRoundTrip(omitNewTypeCapabilities: Bool) throws {
        var capabilities = RepositoryCapabilities()
        capabilities.query = QueryCapability(rawValue: "bothcombined")
        capabilities.getDescendants = true
        capabilities.contentStreamUpdatability = ContentStreamUpdatability(rawValue: "anytime")
        capabilities.creatablePropertyTypes = [.string, .integer]
        var settable = NewTypeSettableAttributes()
        settable.id = true
        settable.queryable = false
        capabilities.newTypeSettableAttributes = settable
        var info = RepositoryInfo(
            id: "mydocs-alice", name: "My Documents", rootFolderId: "f-1", capabilities: capabilities,
            extensions: [
                CMISExtension(namespace: MobileDocuments.namespace, name: "myDocuments", value: "f-1"),
                CMISExtension(namespace: MobileDocuments.namespace, name: "token", value: "tok & <x>"),
            ])
        info.description = "Alice's documents"
        info.productName = "Satchel"
        info.cmisVersionSupported = "1.1"
        info.latestChangeLogToken = "17"
        info.changesOnType = [.document, .folder]
        info.principalIdAnyone = "anyone"
        info.aclCapabilities = ACLCapabilities(
            supportedPermissions: SupportedPermissions(rawValue: "basic"),
            propagation: ACLPropagation(rawValue: "objectonly"),
            permissions: [PermissionDefinition(permission: "cmis:read", description: "Read")],
            permissionMapping: [PermissionMapping(key: "canGetProperties.Object", permissions: ["cmis:read"])])
        var writer = AtomPubWriter.makeWriter()
        writer.start("service", namespace: XNamespace.app)
        writer.start("workspace", namespace: XNamespace.app)
        AtomPubWriter.repositoryInfo(info, into: &writer, omitNewTypeCapabilities: omitNewTypeCapabilities)
        let data = Data(writer.finish())
        let parsed = try #require(AtomPubParser.repositoryInfos(data).first)
        var expected = info
        if omitNewTypeCapabilities {
            expected.capabilities.creatablePropertyTypes = nil
            expected.capabilities.newTypeSettableAttributes = nil
        }
        #expect(parsed == expected)
        #expect(parsed.extensionValue(named: "token") == "tok & <x>")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("capabilityCreatablePropertyTypes") == !omitNewTypeCapabilities)
        #expect(text.contains("capabilityNewTypeSettableAttributes") == !omitNewTypeCapabilities)
    }

    @Test func typeDefinitionRoundTrip() throws {
        var type = TypeDefinition(id: "sap:note", baseTypeId: .document, parentTypeId: "cmis:document")
        type.displayName = "Note"
        type.queryName = "sap:note"
        type.creatable = true
        type.versionable = false
        type.contentStreamAllowed = ContentStreamAllowed(rawValue: "allowed")
        type.typeMutability = TypeMutability(create: false, update: false, delete: true)
        var definition = PropertyDefinition(
            id: "sap:color", propertyType: .string, cardinality: .single, updatability: .readwrite)
        definition.defaultValue = [.string("blue")]
        definition.maxLength = 20
        definition.choices = [
            PropertyDefinition.Choice(displayName: "Blue", values: [.string("blue")], children: []),
            PropertyDefinition.Choice(displayName: "Red", values: [.string("red")], children: []),
        ]
        var count = PropertyDefinition(
            id: "sap:count", propertyType: .integer, cardinality: .multi, updatability: .oncreate)
        count.required = true
        type.propertyDefinitions = [definition, count]
        let data = Self.wrapped { AtomPubWriter.typeDefinition(type, into: &$0) }
        #expect(try AtomPubParser.typeDefinition(data) == type)
    }

    @Test func postedEntryWithInlineContent() throws {
        var properties = Properties()
        properties["cmis:name"] = Self.property("cmis:name", .string, [.string("hello.txt")])
        properties["cmis:objectTypeId"] = Self.property("cmis:objectTypeId", .id, [.id("cmis:document")])
        let bytes = Data((0..<1000).map { UInt8($0 % 251) })
        let body = AtomPubWriter.entry(properties: properties, content: bytes, mimeType: "application/x-test")
        let entry = try AtomPubParser.requestEntry(body)
        #expect(entry.title == "hello.txt")
        #expect(entry.properties == properties)
        #expect(entry.content == AtomPubRequestEntry.Content(data: bytes, mimeType: "application/x-test"))
    }

    @Test(arguments: [
        ("<atom:entry xmlns:atom=\"http://www.w3.org/2005/Atom\"><atom:title>x", "XML"),
        ("<feed xmlns=\"http://www.w3.org/2005/Atom\"/>", "unexpected root"),
        ("not xml at all", "XML"),
        (
            "<entry xmlns=\"http://www.w3.org/2005/Atom\" xmlns:ra=\"http://docs.oasis-open.org/ns/cmis/restatom/200908/\">"
                + "<ra:content><ra:base64>@@@</ra:base64></ra:content></entry>", "base64"
        ),
    ])
    func badRequestEntriesAreInvalidArguments(xml: String, mentions: String) {
        do {
            _ = try AtomPubParser.requestEntry(Data(xml.utf8))
            Issue.record("parsed \(xml)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(mentions), "\(error.message)")
        }
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"), (1_795_322_069.2709, "2026-11-22T04:34:29.271Z"),
        (1_795_322_069.9996, "2026-11-22T04:34:30.000Z"), (-0.5, "1969-12-31T23:59:59.500Z"),
        (1_709_164_800.001, "2024-02-29T00:00:00.001Z"), (951_868_799.0, "2000-02-29T23:59:59.000Z"),
        (-2_208_988_800.0, "1900-01-01T00:00:00.000Z"), (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
    ])
    func datesAreRoundedToTheMillisecond(seconds: Double, text: String) {
        #expect(AtomPubWriter.dateString(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func queryDocumentRoundTrip() throws {
        let body = AtomPubWriter.query(
            statement: "SELECT * FROM cmis:document WHERE cmis:name = 'a&b'", searchAllVersions: true, maxItems: 5,
            skipCount: 10)
        let query = try AtomPubParser.queryRequest(body)
        #expect(query.statement == "SELECT * FROM cmis:document WHERE cmis:name = 'a&b'")
        #expect(query.searchAllVersions && query.maxItems == 5 && query.skipCount == 10)
    }
}
