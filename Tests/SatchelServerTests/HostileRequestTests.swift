import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

@Suite("Hostile requests", .serialized)
struct HostileRequestTests {
    static let limits = RequestLimits(
        maxContentBytes: 256 << 10, maxMetadataBytes: 64 << 10, maxProperties: 50, maxPropertyValueBytes: 8 << 10,
        maxFormFields: 500)
    static let server = Task { try await ServerHarness.start(limits: limits) }
    var harness: ServerHarness { get async throws { try await Self.server.value } }

    static let folderURL = "/cmis/browser/shared/root"

    static func multipart(boundary: String, _ text: String) -> HTTPClient.Body {
        .data(Data(text.utf8), contentType: "multipart/form-data; boundary=\(boundary)")
    }

    @Test(
        "malformed bodies are 400 invalidArgument",
        arguments: [
            // No closing boundary.
            "--b\r\nContent-Disposition: form-data; name=\"cmisaction\"\r\n\r\ncreateFolder\r\n",
            // A part without a name.
            "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n",
            // Garbage after the boundary.
            "--bXX\r\n\r\n",
            // No boundary at all.
            "just some text",
        ])
    func malformedMultipart(body: String) async throws {
        let response = try await harness.send(
            .post, Self.folderURL, body: Self.multipart(boundary: "b", body))
        #expect(response.status == 400)
        #expect(exception(response) == "invalidArgument")
    }

    @Test("multipart without a boundary parameter is 400")
    func noBoundary() async throws {
        let response = try await harness.send(
            .post, Self.folderURL, body: .data(Data("x".utf8), contentType: "multipart/form-data"))
        #expect(response.status == 400)
    }

    @Test("an unsupported body type is 400")
    func wrongContentType() async throws {
        let response = try await harness.send(
            .post, Self.folderURL, body: .data(Data("{}".utf8), contentType: "application/json"))
        #expect(response.status == 400)
        #expect(exception(response) == "invalidArgument")
    }

    @Test("a POST without cmisaction is 400")
    func missingAction() async throws {
        let response = try await harness.post(Self.folderURL, fields: [("propertyId[0]", "cmis:name")])
        #expect(response.status == 400)
        #expect(exception(response) == "invalidArgument")
    }

    @Test(
        "unknown selectors and actions are 400",
        arguments: [
            "/cmis/browser/shared?cmisselector=frobnicate", "/cmis/browser/shared/root?cmisselector=frobnicate",
        ])
    func unknownSelector(path: String) async throws {
        let response = try await harness.send(.get, path)
        #expect(response.status == 400)
        #expect(exception(response) == "invalidArgument")
    }

    @Test("an unknown action is 400")
    func unknownAction() async throws {
        let response = try await harness.post(Self.folderURL, fields: [("cmisaction", "frobnicate")])
        #expect(response.status == 400)
    }

    @Test(
        "a bad number or a bad boolean is 400",
        arguments: [
            "/cmis/browser/shared/root?cmisselector=children&skipCount=many",
            "/cmis/browser/shared/root?cmisselector=children&includeACL=maybe",
            "/cmis/browser/shared/root?cmisselector=children&maxItems=-4",
        ])
    func badParameters(path: String) async throws {
        let response = try await harness.send(.get, path)
        #expect(response.status == 400)
    }

    @Test(
        "an unknown repository or object is 404 objectNotFound",
        arguments: [
            "/cmis/browser/nope?cmisselector=repositoryInfo", "/cmis/browser/shared/root/missing?cmisselector=object",
            "/cmis/browser/mydocs-bob?cmisselector=repositoryInfo", "/cmis/browser/shared/elsewhere",
        ])
    func notFound(path: String) async throws {
        let response = try await harness.send(.get, path)
        #expect(response.status == 404)
        #expect(exception(response) == "objectNotFound")
    }

    @Test("form decoding refuses bad percent escapes, invalid UTF-8 and too many fields")
    func formDecoding() throws {
        #expect(throws: CMISError.self) { try FormDecoding.decode("a=%zz", maxFields: 10) }
        #expect(throws: CMISError.self) { try FormDecoding.decode("a=%ff%fe", maxFields: 10) }
        #expect(throws: CMISError.self) { try FormDecoding.decode("a=1&b=2&c=3", maxFields: 2) }
        let fields = try FormDecoding.decode("q=SELECT+*+FROM+x&n=%C3%BC&empty", maxFields: 10)
        #expect(fields.map(\.0) == ["q", "n", "empty"])
        #expect(fields.map(\.1) == ["SELECT * FROM x", "ü", ""])
    }

    @Test("an oversize form body is 413")
    func oversizeForm() async throws {
        let padding = String(repeating: "x", count: 100 << 10)
        let response = try await harness.post(
            Self.folderURL, fields: [("cmisaction", "createFolder"), ("pad", padding)])
        #expect(response.status == 413)
        #expect(exception(response) == "invalidArgument")
    }

    @Test("a huge property value in a multipart form is 413")
    func hugeValue() async throws {
        var form = MultipartFormData(boundary: "huge")
        form.addField("cmisaction", "createFolder")
        form.addField("propertyId[0]", "cmis:name")
        form.addField("propertyValue[0]", String(repeating: "n", count: 20 << 10))
        let response = try await harness.send(.post, Self.folderURL, body: .multipart(form))
        #expect(response.status == 413)
    }

    @Test("10,000 form fields are refused with a 4xx, urlencoded and multipart", arguments: [false, true])
    func tooManyFields(multipart: Bool) async throws {
        let fields = (0..<10_000).map { ("f\($0)", "v") }
        let body: HTTPClient.Body
        if multipart {
            var form = MultipartFormData(boundary: "many")
            for (name, value) in fields { form.addField(name, value) }
            body = .multipart(form)
        } else {
            body = .form(fields)
        }
        let response = try await harness.send(.post, Self.folderURL, body: body)
        #expect((400..<500).contains(response.status))
        #expect(exception(response) == "invalidArgument")
    }

    @Test("too many properties are 400")
    func tooManyProperties() async throws {
        var fields = [("cmisaction", "createFolder")]
        for index in 0..<60 { fields += [("propertyId[\(index)]", "p\(index)"), ("propertyValue[\(index)]", "v")] }
        let response = try await harness.post(Self.folderURL, fields: fields)
        #expect(response.status == 400)
    }

    @Test("content larger than the limit is 413 and leaves no blob behind")
    func oversizeContent() async throws {
        let harness = try await self.harness
        var form = MultipartFormData(boundary: "big")
        form.addField("cmisaction", "createDocument")
        form.addField("propertyId[0]", "cmis:name")
        form.addField("propertyValue[0]", "big.bin")
        try form.addData(
            "content", data: Data(count: 300 << 10), filename: "big.bin", contentType: "application/octet-stream")
        let response = try await harness.send(.post, Self.folderURL, body: .multipart(form))
        #expect(response.status == 413)
        let temporary = harness.dataDirectory.appendingPathComponent("memory-blobs/tmp")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test("multipart content is stored and served back with ranges and an ETag")
    func contentRoundTrip() async throws {
        let harness = try await self.harness
        let bytes = Data((0..<100_000).map { UInt8($0 % 251) })
        var form = MultipartFormData(boundary: "doc")
        form.addField("cmisaction", "createDocument")
        form.addField("propertyId[0]", "cmis:name")
        form.addField("propertyValue[0]", "data.bin")
        try form.addData("content", data: bytes, filename: "data ü.bin", contentType: "application/x-test")
        form.addField("succinct", "true")
        let created = try await harness.send(.post, Self.folderURL, body: .multipart(form))
        #expect(created.status == 201)
        let id = try #require(try BrowserParser.object(created.body).id)
        #expect(try BrowserParser.object(created.body).contentStreamLength == 100_000)

        let whole = try await harness.send(.get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content")
        #expect(whole.status == 200)
        #expect(whole.body == bytes)
        #expect(whole.headers["Content-Type"] == "application/x-test")
        #expect(whole.headers["Content-Disposition"]?.contains("filename*=UTF-8''data%20%C3%BC.bin") == true)
        let etag = try #require(whole.headers["ETag"])

        let part = try await harness.send(
            .get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content", headers: [("Range", "bytes=10-19")])
        #expect(part.status == 206)
        #expect(part.body == bytes[10..<20])
        #expect(part.headers["Content-Range"] == "bytes 10-19/100000")

        let suffix = try await harness.send(
            .get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content", headers: [("Range", "bytes=-5")])
        #expect(suffix.body == bytes.suffix(5))

        let outside = try await harness.send(
            .get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content", headers: [("Range", "bytes=200000-")])
        #expect(outside.status == 416)
        #expect(outside.headers["Content-Range"] == "bytes */100000")
        let everything = try await harness.send(
            .get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content", headers: [("Range", "bytes=0-99999")])
        #expect(everything.status == 200 && everything.headers["Content-Range"] == nil)

        let cached = try await harness.send(
            .get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content", headers: [("If-None-Match", etag)])
        #expect(cached.status == 304)

        // HEAD answers every GET route with the GET's status and headers and no body.
        let head = try await harness.send(.head, "\(Self.folderURL)?objectId=\(id)&cmisselector=content")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == "100000")
        #expect(head.headers["ETag"] == etag)
        let headPart = try await harness.send(
            .head, "\(Self.folderURL)?objectId=\(id)&cmisselector=content", headers: [("Range", "bytes=10-19")])
        #expect(headPart.status == 206)
        #expect(headPart.headers["Content-Length"] == "10")
        let object = try await harness.send(.get, "\(Self.folderURL)?objectId=\(id)&succinct=true")
        let headObject = try await harness.send(.head, "\(Self.folderURL)?objectId=\(id)&succinct=true")
        #expect(headObject.status == 200 && headObject.body.isEmpty)
        #expect(headObject.headers["Content-Length"] == String(object.body.count))
        let atom = try await harness.send(.head, "/cmis/atom/shared/content?id=\(id)")
        #expect(atom.status == 200 && atom.body.isEmpty)
        #expect(atom.headers["Content-Length"] == "100000")
        let anonymous = try await harness.send(.head, "\(Self.folderURL)?objectId=\(id)", user: nil)
        #expect(anonymous.status == 401)
        let missing = try await harness.send(.head, "\(Self.folderURL)?objectId=no-such-object")
        #expect(missing.status == 404 && missing.body.isEmpty)
    }
}
