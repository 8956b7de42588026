import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// A media type with a control character in it, sent where content arrives: a Browser binding multipart part's
    /// `Content-Type`, and the Nuxeo API's `X-File-Type` (a header no HTTP client of ours sends with a control
    /// character, so it goes over a raw connection). The value goes back out in `Content-Type` headers and to a
    /// gateway's back-end, so it must be refused before a byte is stored.
    @Suite("Media types with control characters")
    struct MediaTypeInjection {
        static let hostile = ["text/plain\u{0B}evil", "text/plain; x=\"a\u{7F}b\"", "text/plain\u{01}", "text/\tplain"]

        @Test("a Browser binding part's Content-Type with a control character: 400, nothing made", arguments: hostile)
        func browserPart(mediaType: String) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let name = "injected-\(UUID().uuidString.prefix(8))"
                let body = [
                    "--b", "Content-Disposition: form-data; name=\"cmisaction\"", "", "createDocument",
                    "--b", "Content-Disposition: form-data; name=\"propertyId[0]\"", "", "cmis:objectTypeId",
                    "--b", "Content-Disposition: form-data; name=\"propertyValue[0]\"", "", "cmis:document",
                    "--b", "Content-Disposition: form-data; name=\"propertyId[1]\"", "", "cmis:name",
                    "--b", "Content-Disposition: form-data; name=\"propertyValue[1]\"", "", name,
                    "--b", "Content-Disposition: form-data; name=\"content\"; filename=\"a.txt\"",
                    "Content-Type: \(mediaType)", "", "hello", "--b--", "",
                ].joined(separator: "\r\n")
                let response = try await harness.send(
                    .post, "/cmis/browser/shared/root",
                    body: .data(Data(body.utf8), contentType: "multipart/form-data; boundary=b"))
                let text = String(decoding: response.body, as: UTF8.self)
                #expect(response.status == 400, "\(text)")
                #expect(text.contains("media type"), "\(text)")
                let listed = try await harness.send(.get, "/cmis/browser/shared/root?cmisselector=children")
                #expect(!String(decoding: listed.body, as: UTF8.self).contains(name))
            } cleanup: {
                await harness.stop()
            }
        }

        @Test("a Nuxeo X-File-Type with a control character: 400, nothing stored in the batch", arguments: hostile)
        func nuxeoFileType(mediaType: String) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let nuxeo = NuxeoFacadeTests.nuxeo(harness, user: "alice")
                let batch = try JSONValue(
                    parsing: try await nuxeo.send(NuxeoRequest.resource("upload").method(.post)).body)
                let batchID = try #require(batch["batchId"]?.stringValue)
                let client = try RawTCPClient(port: harness.running.port)
                try client.send(
                    "POST /nuxeo/api/v1/upload/\(batchID)/0 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Authorization: \(ServerHarness.basic("alice"))\r\nX-File-Name: a.txt\r\n"
                        + "X-File-Type: \(mediaType)\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: 5\r\nConnection: close\r\n\r\nhello")
                _ = await client.waitUntilClosed(within: .seconds(5))
                let answer = String(decoding: client.received, as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
                // The batch holds no file.
                let files = try JSONValue(parsing: try await nuxeo.send(NuxeoRequest.resource("upload", batchID)).body)
                #expect(files.arrayValue?.isEmpty ?? true, "\(files)")
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
