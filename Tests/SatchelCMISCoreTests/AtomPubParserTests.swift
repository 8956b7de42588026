import Foundation
import SatchelCMISCore
import Testing

@Suite("AtomPub binding: parser")
struct AtomPubParserTests {
    static let fixtures = [
        "atompub-service-document.xml", "atompub-children-feed.xml", "atompub-document-entry.xml",
        "atompub-query-feed.xml", "atompub-type-entry.xml",
    ]

    @Test("every AtomPub fixture parses", arguments: fixtures)
    func parses(name: String) throws {
        let data = try Fixture.data(name)
        switch name {
        case "atompub-service-document.xml": #expect(try AtomPubParser.serviceDocument(data).workspaces.count == 1)
        case "atompub-document-entry.xml": #expect(try AtomPubParser.object(data).id == "133")
        case "atompub-children-feed.xml": #expect(try AtomPubParser.children(data).objects.count == 2)
        case "atompub-query-feed.xml": #expect(try AtomPubParser.queryResults(data).objects.count == 2)
        default: #expect(try AtomPubParser.typeDefinition(data).id == "cmis:folder")
        }
    }

    @Test("service document: repository info, capabilities, ACL capabilities, collections, URI templates")
    func serviceDocument() throws {
        let service = try AtomPubParser.serviceDocument(Fixture.data("atompub-service-document.xml"))
        let workspace = try #require(service.workspace(repositoryId: "A1"))
        let info = workspace.repositoryInfo
        #expect(workspace.title == "A1")
        #expect(info.name == "Apache Chemistry OpenCMIS InMemory Repository")
        #expect(info.rootFolderId == "100")
        #expect(info.vendorName == "Apache Chemistry")
        #expect(info.latestChangeLogToken == "token-24")
        #expect(info.cmisVersionSupported == "1.1")
        #expect(info.changesIncomplete == true)
        #expect(info.changesOnType == [.document, .folder, .item])
        #expect(info.principalIdAnyone == "anyone" && info.principalIdAnonymous == "anonymous")
        #expect(info.capabilities.acl == .manage && info.capabilities.query == .bothCombined)
        #expect(info.capabilities.changes == .objectIdsOnly && info.capabilities.join == JoinCapability.none)
        #expect(info.capabilities.getDescendants == true && info.capabilities.pwcSearchable == false)
        #expect(info.capabilities.creatablePropertyTypes?.count == 8)
        #expect(info.capabilities.newTypeSettableAttributes?.fileable == false)
        let acl = try #require(info.aclCapabilities)
        #expect(acl.supportedPermissions == .basic && acl.propagation == .objectOnly)
        #expect(acl.permissions.map(\.permission) == ["cmis:read", "cmis:write", "cmis:all"])
        #expect(acl.permissions.first?.description == "Read")
        #expect(acl.permissions(for: "canApplyACL.Object") == ["cmis:all"])
        #expect(acl.permissionMapping.count == 30)
        #expect(info.extensions.isEmpty)

        #expect(
            workspace.collections.compactMap(\.collectionType) == [
                "root", "types", "query", "checkedout", "unfiled", "update",
            ])
        #expect(workspace.collection("root")?.href == "http://127.0.0.1:8081/inmemory/atom11/A1/children?id=100")
        #expect(workspace.collection("types")?.accept == [])
        #expect(workspace.uriTemplates.map(\.type) == ["objectbyid", "objectbypath", "typebyid", "query"])
        let byId = try #require(workspace.uriTemplate("objectbyid"))
        #expect(byId.mediaType == "application/atom+xml;type=entry")
        #expect(
            workspace.uriTemplate("typebyid")?.expand(["id": "cmis:folder"])
                == "http://127.0.0.1:8081/inmemory/atom11/A1/type?id=cmis%3Afolder")
        #expect(byId.expand(["id": "133"]).hasPrefix("http://127.0.0.1:8081/inmemory/atom11/A1/id?id=133&filter=&"))
        #expect(
            workspace.links.cmis("foldertree")?.href == "http://127.0.0.1:8081/inmemory/atom11/A1/foldertree?id=100")
        #expect(workspace.links.cmis("rootdescendants")?.attributes["cmisra:id"] == "100")
    }

    @Test("document entry: typed properties, links, content, extensions")
    func documentEntry() throws {
        let entry = try AtomPubParser.entry(Fixture.data("atompub-document-entry.xml"))
        let object = entry.object
        #expect(object.name == "My_Document-0-0")
        #expect(object.baseType == .document && object.objectTypeId == "ComplexType")
        #expect(object.contentStreamLength == 33652)
        #expect(object.properties["cmis:contentStreamLength"]?.type == .integer)
        #expect(object.creationDate == Date(timeIntervalSince1970: 1_795_300_168.796))
        #expect(object.properties["cmis:creationDate"]?.type == .datetime)
        #expect(object.isLatestVersion == true)
        #expect(object.properties.count == 42)
        #expect(object.properties.first?.id == "DateTimePropMV")
        let pickList = try #require(object.properties["PickListProp"])
        #expect(pickList.values == [.string("blue")] && pickList.displayName == "Sample Pick List Property")
        #expect(pickList.queryName == "PickListProp" && pickList.localName == "PickListProp")
        #expect(object.properties["DateTimePropMV"]?.values.isEmpty == true)
        #expect(object.properties["cmis:secondaryObjectTypeIds"]?.cardinality == .multi)
        // This capture carries neither allowable actions nor an ACL, only exactACL.
        #expect(object.allowableActions == nil && object.acl == nil)
        let example = try #require(object.extensions.first(named: "exampleExtension"))
        #expect(example.namespace == "http://apache.org/opencmis/inmemory")
        #expect(example.children.map(\.name) == ["objectId", "name"])
        #expect(example.children.first?.value == "133")
        #expect(example.children.first?.attributes == ["type": "ComplexType"])

        let links = entry.links
        let base = "http://127.0.0.1:8081/inmemory/atom11/A1/"
        #expect(links.selfLink?.href == base + "entry?id=133")
        #expect(links.selfLink?.attributes["cmisra:id"] == "133")
        #expect(links.edit?.href == base + "entry?id=133")
        #expect(links.editMedia?.href == base + "content?id=133" && links.editMedia?.type == "text/plain")
        #expect(links.up?.href == base + "parents?id=133")
        #expect(links.describedBy?.href == base + "type?id=ComplexType")
        #expect(links.cmis("allowableactions")?.href == base + "allowableactions?id=133")
        #expect(links.contentSource == base + "content/data.txt?id=133" && links.contentType == "text/plain")
        let rendition = try #require(links.alternates.first)
        #expect(rendition.href == base + "content?id=133&streamId=133-rendition")
        #expect(rendition.attributes["cmisra:renditionKind"] == "cmis:thumbnail")
        #expect(links.next == nil)
    }

    @Test("children feed: numItems, next link, entries and their links")
    func childrenFeed() throws {
        let data = try Fixture.data("atompub-children-feed.xml")
        let children = try AtomPubParser.children(data)
        #expect(children.numItems == 5 && children.hasMoreItems)
        #expect(children.objects.map(\.object.id) == ["133", "134"])
        #expect(children.objects.map(\.object.name) == ["My_Document-0-0", "My_Document-0-1"])
        #expect(children.objects.allSatisfy { $0.pathSegment == nil })
        let feed = try AtomPubParser.feed(data)
        #expect(feed.links.next?.href.hasSuffix("children?id=100&skipCount=2&maxItems=2") == true)
        #expect(feed.links.down.count == 2)
        #expect(feed.entries.last?.links.selfLink?.attributes["cmisra:id"] == "134")
    }

    @Test("query feed: objects with ACLs, numItems, hasMoreItems")
    func queryFeed() throws {
        let results = try AtomPubParser.queryResults(Fixture.data("atompub-query-feed.xml"))
        #expect(results.numItems == 15 && results.hasMoreItems)
        #expect(results.objects.map(\.id) == ["110", "117"])
        #expect(results.objects.first?.name == "My_Folder-2-1")
        #expect(results.objects.first?.properties.ids == ["cmis:objectId", "cmis:name"])
        let acl = try #require(results.objects.first?.acl)
        #expect(acl.isExact == true)
        #expect(acl.aces == [ACE(principalId: "anyone", permissions: ["cmis:all"], isDirect: true)])
    }

    @Test("type entry: cmis:folder with its property definitions")
    func typeEntry() throws {
        let type = try AtomPubParser.typeDefinition(Fixture.data("atompub-type-entry.xml"))
        #expect(type.id == "cmis:folder" && type.baseTypeId == .folder && type.parentTypeId == nil)
        #expect(type.displayName == "Folder" && type.localNamespace == "http://apache.org")
        #expect(type.creatable == true && type.fulltextIndexed == false && type.controllableACL == true)
        #expect(type.typeMutability == TypeMutability(create: true, update: false, delete: false))
        #expect(type.propertyDefinitions.count == 14)
        let name = try #require(type.propertyDefinition(id: "cmis:name"))
        #expect(name.propertyType == .string && name.cardinality == .single && name.updatability == .readwrite)
        #expect(name.required == true && name.orderable == true && name.defaultValue.isEmpty)
        let objectId = try #require(type.propertyDefinition(id: "cmis:objectId"))
        #expect(objectId.propertyType == .id && objectId.updatability == .readonly)
        let multi = type.propertyDefinitions.filter { $0.cardinality == .multi }.map(\.id)
        #expect(multi.contains("cmis:allowedChildObjectTypeIds") && multi.contains("cmis:secondaryObjectTypeIds"))
    }

    @Test("an SAP Mobile Documents repository info carries mcm extensions")
    func mobileDocumentsExtensions() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <app:service xmlns:app="http://www.w3.org/2007/app" xmlns:atom="http://www.w3.org/2005/Atom"
                xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/"
                xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/">
              <app:workspace>
                <atom:title>mcm</atom:title>
                <cmisra:repositoryInfo>
                  <cmis:repositoryId>7d6f0b2a</cmis:repositoryId>
                  <cmis:repositoryName>Mobile Documents</cmis:repositoryName>
                  <cmis:vendorName>SAP AG</cmis:vendorName>
                  <cmis:rootFolderId>root-1</cmis:rootFolderId>
                  <cmis:capabilities><cmis:capabilityACL>none</cmis:capabilityACL></cmis:capabilities>
                  <cmis:cmisVersionSupported>1.0</cmis:cmisVersionSupported>
                  <mcm:myDocuments xmlns:mcm="http://www.sap.com/mcm">my-docs-42</mcm:myDocuments>
                  <mcm:token xmlns:mcm="http://www.sap.com/mcm">abc&amp;123</mcm:token>
                </cmisra:repositoryInfo>
              </app:workspace>
            </app:service>
            """
        let infos = try AtomPubParser.repositoryInfos(Data(xml.utf8))
        let info = try #require(infos.first)
        #expect(info.id == "7d6f0b2a" && info.rootFolderId == "root-1" && info.capabilities.acl == ACLCapability.none)
        #expect(info.extensions.map(\.name) == ["myDocuments", "token"])
        #expect(info.extensions.allSatisfy { $0.namespace == "http://www.sap.com/mcm" })
        #expect(info.extensionValue(named: "myDocuments", namespace: "http://www.sap.com/mcm") == "my-docs-42")
        #expect(info.extensionValue(named: "token") == "abc&123")
        #expect(info.extensionValue(named: "myDocuments", namespace: "urn:other") == nil)
    }
}

@Suite struct AtomPubURITemplateTests {
    @Test func placeholdersArePercentEncodedAndUnknownOnesDropped() {
        let template = AtomPubURITemplate(
            type: "objectbyid", template: "http://h/r/id?id={id}&filter={filter}&x={unknown}&path={path}")
        let url = template.expand(["id": "a b/é~", "filter": "cmis:name,cmis:objectId", "path": "/A-Z_09.txt"])
        #expect(url == "http://h/r/id?id=a%20b%2F%C3%A9~&filter=cmis%3Aname%2Ccmis%3AobjectId&x=&path=%2FA-Z_09.txt")
    }

    @Test func unreservedTextIsLeftAsItIs() {
        let template = AtomPubURITemplate(type: "objectbyid", template: "{id}")
        #expect(template.expand(["id": "ddpkfewxulfbcpd3wqnyyzs6yf"]) == "ddpkfewxulfbcpd3wqnyyzs6yf")
    }

    @Test("a change log feed's token in a vendor element of its own (the reference server's chemistry:changeLogToken)")
    func vendorChangeLogToken() throws {
        let feed = try AtomPubParser.feed(Fixture.data("atompub-content-changes.xml"))
        #expect(feed.changeLogToken == "token-4")
        #expect(feed.entries.count == 5)
        // A feed without one has none.
        #expect(try AtomPubParser.feed(Fixture.data("atompub-children-feed.xml")).changeLogToken == nil)
    }

    @Test("a filtered entry keeps every link the reference server writes, whatever properties the filter left")
    func filteredEntryLinks() throws {
        let entry = try AtomPubParser.entry(Fixture.data("atompub-folder-entry-filtered.xml"))
        #expect(entry.object.properties.ids == ["cmis:objectId"])
        #expect(entry.links.describedBy != nil)
        #expect(entry.links.down.count == 2)
        #expect(entry.links.cmis("foldertree") != nil)
        #expect(entry.links.alternates.first?.attributes["cmisra:renditionKind"] == "cmis:thumbnail")
    }
}
