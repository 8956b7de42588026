import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

@Suite("HTTPClient against a loopback server")
struct ClientTests {
    @Test("default headers, User-Agent and base URL reach the server")
    func defaultHeaders() async throws {
        try await withServer { server, _ async throws in
            var configuration = HTTPClient.Configuration(baseURL: server.url("/api/"))
            configuration.userAgent = "NotesApp/2.0 (Satchel)"
            configuration.headers["sap-client"] = "100"
            let client = HTTPClient(configuration: configuration)
            var request = HTTPClient.Request(url: URL(string: "../inspect?x=1")!)
            request.headers["sap-client"] = "200"
            let inspection = try await client.send(request).decode(Inspection.self)
            #expect(inspection.path == "/inspect")
            #expect(inspection.query == "x=1")
            #expect(inspection.header("User-Agent") == "NotesApp/2.0 (Satchel)")
            #expect(inspection.header("sap-client") == "200")  // the request wins over the default
        }
    }

    @Test("bodies arrive as sent", arguments: ["json", "form", "multipart", "text"])
    func bodies(kind: String) async throws {
        try await withServer { server, _ async throws in
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("part.bin")
            try TestHTTPServer.pattern(count: 70_000).write(to: file)
            let body: HTTPClient.Body
            switch kind {
            case "json": body = try .json(["name": "Notes", "size": "12"])
            case "form": body = .form([("user", "a b"), ("q", "x&y=z"), ("ü", "€")])
            case "multipart":
                var form = MultipartFormData(boundary: "XyZ")
                form.addField("cmisaction", "createDocument")
                try form.addFile("content", fileURL: file, filename: "part.bin")
                body = .multipart(form)
            default: body = .text("hello\nworld")
            }
            let response = try await makeClient().send(HTTPClient.Request(.post, url: server.url("/echo"), body: body))
            #expect(response.status == 200)
            let expected = try await bodyBytes(body)
            #expect(response.body == expected)
            #expect(response.headers["Content-Type"] == body.contentType)
            if kind == "form" { #expect(response.text == "user=a+b&q=x%26y%3Dz&%C3%BC=%E2%82%AC") }
            if kind == "multipart" {
                #expect(response.text.hasPrefix("--XyZ\r\nContent-Disposition: form-data; name=\"cmisaction\""))
                #expect(response.body.count > 70_000)
            }
        }
    }

    private func bodyBytes(_ body: HTTPClient.Body) async throws -> Data {
        var data = Data()
        for segment in body.segments {
            switch segment {
            case .data(let bytes): data.append(bytes)
            case .file(let url, _, _): data.append(try Data(contentsOf: url))
            }
        }
        return data
    }

    @Test("a status outside 2xx throws with the server's own message")
    func statusErrors() async throws {
        try await withServer { server, _ async throws in
            let client = makeClient()
            var request = HTTPClient.Request(url: server.url("/odata-error"), operation: "read material 4711")
            request.headers["Accept"] = "application/json"
            let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
            #expect(error?.code == .badRequest)
            #expect(error?.status == 400)
            #expect(error?.serverMessage == "Material 4711 does not exist; Check the material number")
            #expect(error?.description.contains("read material 4711") == true)
            #expect(error?.responseExcerpt?.contains("Material 4711") == true)

            let notFound = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(url: server.url("/status/404")))
            }
            #expect(notFound?.code == .notFound)
            #expect(notFound?.serverMessage == "status 404 as requested")

            var unvalidated = HTTPClient.Request(url: server.url("/status/409"))
            unvalidated.validatesStatus = false
            #expect(try await client.send(unvalidated).status == 409)
        }
    }

    @Test("redirects: followed, POST becomes GET on 303, loops end in an error, cookies set on the way are kept")
    func redirects() async throws {
        try await withServer { server, _ async throws in
            let client = makeClient()
            let followed = try await client.send(HTTPClient.Request(url: server.url("/redirect?to=/inspect%3Fafter=1")))
            #expect(try followed.decode(Inspection.self).query == "after=1")
            #expect(followed.url.path == "/inspect")

            let seeOther = try await client.send(
                HTTPClient.Request(.post, url: server.url("/redirect?status=303&to=/inspect"), body: .text("x"))
            )
            let inspection = try seeOther.decode(Inspection.self)
            #expect(inspection.method == "GET")
            #expect(inspection.bodyLength == 0)

            let kept = try await client.send(
                HTTPClient.Request(.post, url: server.url("/redirect?status=307&to=/inspect"), body: .text("keep"))
            )
            #expect(try kept.decode(Inspection.self).body == "keep")

            let loop = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(url: server.url("/redirect-loop")))
            }
            #expect(loop?.code == .tooManyRedirects)

            let cookies = try await client.send(HTTPClient.Request(url: server.url("/set-cookie")))
            let sent = try cookies.decode(Inspection.self).header("Cookie") ?? ""
            #expect(sent.contains("flavour=oatmeal") && sent.contains("session=abc123"))
            #expect(client.configuration.cookieJar.all.count == 2)
        }
    }

    @Test("attack: a redirect to another origin carries no credentials, token headers from auth providers included")
    func crossOriginRedirectDropsCredentials() async throws {
        try await withServer { server, _ async throws in
            let client = HTTPClient(
                configuration: HTTPClient.Configuration(retry: .never),
                auth: [
                    BasicAuth(user: "alice", password: "secret"),
                    HeaderTokenAuth(headerName: "X-Authentication-Token", token: "long-lived-token"),
                ])
            let same = try await client.send(HTTPClient.Request(url: server.url("/redirect?to=/inspect")))
            let sameInspection = try same.decode(Inspection.self)
            #expect(sameInspection.header("X-Authentication-Token") == "long-lived-token")
            #expect(sameInspection.header("Authorization") != nil)
            // 127.0.0.1 and localhost are two origins.
            let elsewhere = server.url("/inspect").absoluteString.replacingOccurrences(
                of: "127.0.0.1", with: "localhost")
            let query = elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? elsewhere
            let other = try await client.send(HTTPClient.Request(url: server.url("/redirect?to=\(query)")))
            let otherInspection = try other.decode(Inspection.self)
            #expect(other.url.host == "localhost")
            #expect(otherInspection.header("X-Authentication-Token") == nil)
            #expect(otherInspection.header("Authorization") == nil)
        }
    }

    @Test("an HTML login page where data was expected is an unauthorized error; asked-for HTML is data")
    func loginPageDetection() async throws {
        try await withServer { server, _ async throws in
            let client = makeClient()
            var request = HTTPClient.Request(url: server.url("/login-page"))
            request.headers["Accept"] = "application/json"
            let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
            #expect(error?.code == .unauthorized)
            #expect(error?.isAuthenticationFailure == true)
            #expect(error?.serverMessage == "Portal Logon")

            var html = HTTPClient.Request(url: server.url("/login-page"))
            html.headers["Accept"] = "text/html"
            #expect(try await client.send(html).text.contains("j_password"))

            var plain = HTTPClient.Request(url: server.url("/html"))
            plain.headers["Accept"] = "application/json"
            #expect(try await client.send(plain).status == 200)  // HTML, but no login form
        }
    }
}
