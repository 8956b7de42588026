import Foundation
import SatchelCMIS
import SatchelHTTP
import SatchelNuxeo
import SatchelOData
import SatchelOffline

/// The README's "Using Satchel" blocks, word for word; `ReadmeExamplesTests` runs each against a real server.
enum ReadmeExamples {
    /// CMIS, against `satchel serve` (or any CMIS 1.1 server): the names in the new folder.
    static func cmis(serverURL: URL, password: String) async throws -> (names: [String], text: Data) {
        var parameters = SessionParameters(url: serverURL.appending(path: "cmis/browser"), repositoryId: "shared")
        parameters.auth = [BasicAuth(user: "demo", password: password)]
        let session = try await CMISSession.connect(parameters)
        let folder = try await session.createFolder(named: "Reports", in: session.repositoryInfo.rootFolderId)
        let content = ContentSource.data(Data("Q3: up 4 %".utf8), filename: "q3.txt", mimeType: "text/plain")
        let report = try await session.createDocument(named: "q3.txt", in: folder.id!, content: content)
        let text = try await session.content(of: report.id!)
        var names: [String] = []
        for try await child in session.children(of: folder.id!) { names.append(child.object.name ?? "") }
        return (names, text)
    }

    /// OData, against any V2 or V4 service: the names of the products under `maximumPrice`, and the one created.
    static func odata(
        serviceURL: URL, password: String, maximumPrice: Decimal
    ) async throws -> (cheap: [String], created: ODataEntity?) {
        let service = ODataService(
            configuration: .init(serviceURL: serviceURL, auth: [BasicAuth(user: "demo", password: password)]))
        let query = ODataQuery().filter(.property("Price") < maximumPrice).orderBy("Name").top(20)
        var cheap: [String] = []
        for try await product in service.entities("Products", query: query) {
            cheap.append(product["Name"]?.stringValue ?? "")
        }
        let tea = ODataEntity(properties: ["ID": 9001, "Name": "Green tea", "Price": 3.5])
        let created = try await service.create("Products", tea).entity
        return (cheap, created)
    }

    /// The offline store, against the same service: an encrypted local copy of the products, changed offline.
    static func offline(service: ODataService, storePath: String, passphrase: String) async throws -> Int {
        let store = OfflineStore(
            configuration: .init(
                service: service, path: storePath,
                definingQueries: [OfflineDefiningQuery(name: "products", query: "Products")],
                key: .passphrase(passphrase)))
        try await store.open()
        let cheap = try await store.entities("Products", query: ODataQuery().filter(.property("Price") < 20))
        try await store.create("Products", ODataEntity(properties: ["ID": 9002, "Name": "Black tea", "Price": 4]))
        try await store.upload()
        try await store.download()
        try await store.close()
        return cheap.count
    }

    /// Nuxeo, against `satchel serve`'s Nuxeo API (or a Nuxeo Platform server): the titles NXQL finds.
    static func nuxeo(serverURL: URL, password: String) async throws -> [String] {
        let nuxeo = NuxeoSession(
            configuration: .init(
                serverURL: serverURL.appending(path: "nuxeo"), auth: [BasicAuth(user: "demo", password: password)]))
        let folder = try await nuxeo.create(in: "/", type: "Folder", name: "minutes")
        _ = try await nuxeo.create(in: folder.path!, type: "Note", name: "monday", properties: ["dc:title": "Monday"])
        var titles: [String] = []
        for try await document in nuxeo.query("SELECT * FROM Note WHERE ecm:path STARTSWITH '/minutes'") {
            titles.append(document.title ?? "")
        }
        return titles
    }

    /// HTTP, the core every protocol module sends through: a page of JSON, then media streamed to a file.
    static func http(serviceRoot: URL, password: String, localFile: URL) async throws -> Int {
        let client = HTTPClient(
            configuration: .init(baseURL: serviceRoot),  // ends with a slash: relative URLs resolve under it
            auth: [BasicAuth(user: "demo", password: password), CSRFTokenAuth()]
        )
        let products = try await client.send(HTTPClient.Request(url: URL(string: "Products?$top=20")!))
        let media = HTTPClient.Request(url: URL(string: "Documents(2)/$value")!)
        try await client.download(media, to: localFile) { print($0.fraction ?? 0) }
        return products.body.count
    }
}
