import Foundation
import SatchelCMISCore
import Testing

@Suite("Browser binding: repository info and endpoints")
struct BrowserRepositoryTests {
    @Test("the OpenCMIS service document gives repository A1 with its capabilities and ACL model")
    func repositories() throws {
        let infos = try BrowserParser.repositoryInfos(Fixture.data("browser-repositories.json"))
        #expect(infos.count == 1)
        let info = try #require(infos.first)
        #expect(info.id == "A1")
        #expect(info.name == "Apache Chemistry OpenCMIS InMemory Repository")
        #expect(info.vendorName == "Apache Chemistry")
        #expect(info.rootFolderId == "100")
        #expect(info.latestChangeLogToken == "token-24")
        #expect(info.cmisVersionSupported == "1.1")
        #expect(info.changesIncomplete == true)
        #expect(info.changesOnType == [.document, .folder, .item])
        #expect(info.principalIdAnyone == "anyone")
        #expect(info.repositoryURL?.absoluteString == "http://127.0.0.1:8081/inmemory/browser/A1")
        #expect(info.rootFolderURL?.absoluteString == "http://127.0.0.1:8081/inmemory/browser/A1/root")
        #expect(info.extendedFeatures.first?.commonName == "Browser Binding DateTime Format")
        #expect(info.extensions.isEmpty)

        let caps = info.capabilities
        #expect(caps.contentStreamUpdatability == .anytime)
        #expect(caps.changes == .objectIdsOnly)
        #expect(caps.renditions == .read)
        #expect(caps.getDescendants == true && caps.multifiling == true && caps.versionSpecificFiling == false)
        #expect(caps.query == .bothCombined && caps.join == JoinCapability.none && caps.acl == .manage)
        #expect(caps.orderBy == .common)
        #expect(caps.creatablePropertyTypes?.count == 8)
        #expect(caps.newTypeSettableAttributes?.id == true)
        #expect(caps.newTypeSettableAttributes?.fileable == false)

        let acl = try #require(info.aclCapabilities)
        #expect(acl.supportedPermissions == .basic)
        #expect(acl.propagation == .objectOnly)
        #expect(acl.permissions.map(\.permission) == ["cmis:read", "cmis:write", "cmis:all"])
        #expect(acl.permissions(for: "canGetChildren.Folder") == ["cmis:read"])
        #expect(acl.permissions(for: "canCreateDocument.Folder") == ["cmis:write"])

        let single = try BrowserParser.repositoryInfo(Fixture.data("browser-repositories.json"), id: "A1")
        #expect(single == info)
    }

    /// Found by fuzzing: an array was read as one element whose children repeat the name, and the writer wrote
    /// children as an object of arrays, so each round trip nested the array one level deeper.
    @Test("an array extension is its name repeated, and keeps its shape when written and read again")
    func arrayExtensions() throws {
        let body = """
            {"repositoryId": "A1", "rootFolderId": "1", "list": ["a", "b"], "empty": [],
             "outer": {"inner": [1, {"x": [true]}]}, "nested": [["p", "q"]]}
            """
        let info = try BrowserParser.repositoryInfo(Data(body.utf8))
        #expect(info.extensions.filter { $0.name == "list" }.map(\.value) == ["a", "b"])
        #expect(info.extensions.first { $0.name == "empty" }.map { $0.value == nil && $0.children.isEmpty } == true)
        let outer = try #require(info.extensions.first { $0.name == "outer" })
        #expect(outer.children.map(\.name) == ["inner", "inner"])
        #expect(outer.children.last?.children.map(\.value) == ["true"])
        var writer = BrowserJSONWriter(succinct: false)
        writer.repositoryInfo(info, baseURL: nil)
        let again = try BrowserParser.repositoryInfo(Data(writer.bytes))
        #expect(again.extensions == info.extensions)
    }

    @Test("SAP Mobile Documents' myDocuments and token keys become extensions")
    func mobileDocumentsExtensions() throws {
        let body = """
            {"repo-1": {"repositoryId": "repo-1", "repositoryName": "My Documents", "rootFolderId": "root-1",
              "capabilities": {"capabilityACL": "none"}, "cmisVersionSupported": "1.1",
              "myDocuments": "id-of-root", "token": "xsrf-123",
              "vendorExtra": {"nested": {"deep": "42"}, "list": [1, 2]}}}
            """
        let info = try #require(try BrowserParser.repositoryInfos(Data(body.utf8)).first)
        #expect(info.extensionValue(named: "myDocuments") == "id-of-root")
        #expect(info.extensionValue(named: "token") == "xsrf-123")
        #expect(info.extensionValue(named: "deep") == "42")
        #expect(info.extensions.map(\.name) == ["myDocuments", "token", "vendorExtra"])
        #expect(info.extensions.last?.children.filter { $0.name == "list" }.map(\.value) == ["1", "2"])
        #expect(info.capabilities.acl == ACLCapability.none)
    }

    @Test("endpoint discovery lists every binding; the padded WSDL URLs are trimmed")
    func endpoints() throws {
        let endpoints = try BrowserParser.endpoints(Fixture.data("cmis-endpoints.json"))
        #expect(endpoints.count == 5)
        let browser = try #require(endpoints.first { $0.binding == "browser" })
        #expect(browser.url.absoluteString == "http://127.0.0.1:8081/inmemory/browser")
        #expect(browser.cmisVersion == "1.1")
        #expect(browser.authentication == ["basic"])
        #expect(endpoints.allSatisfy { !$0.url.absoluteString.hasSuffix(" ") })
    }
}
