import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelRepository
@testable import SatchelServer
import Testing

extension Attacks {
    /// A Basic-auth client (or a page on another site riding a browser's cached Basic credentials) changes MyDocuments
    /// without the XSRF token by spelling the path so that the check and the handler read different repositories,
    /// or by sending a body type that only mentions JSON (`text/plain; x=json` is never preflighted).
    @Suite("XSRF bypasses", .serialized)
    struct XSRFBypass {
        static let server = Task { try await ServerHarness.start() }

        /// Paths that name alice's MyDocuments, each spelled differently.
        static let spellings = [
            "/nuxeo/api/v1/repo/mydocs-alice", "/nuxeo/api/v1/%72epo/mydocs-alice",
            "/nuxeo/api/v1/%72%65%70%6F/mydocs-alice", "/nuxeo/api/v1/repo/%6Dydocs-alice",
        ]

        static func entity(_ name: String) -> HTTPClient.Body {
            .text(#"{"entity-type":"document","type":"Folder","name":"\#(name)"}"#)
        }

        /// The names of the children of alice's MyDocuments root (read with her token, which reads need not carry).
        static func children(_ harness: ServerHarness) async throws -> [String] {
            let page = try await harness.send(.get, "/nuxeo/api/v1/repo/mydocs-alice/path/@children")
            #expect(page.status == 200)
            let entries = try page.json()["entries"]?.arrayValue ?? []
            return entries.compactMap { $0["title"]?.stringValue }
        }

        @Test("every change through an escaped repo segment needs the token", arguments: Self.spellings)
        func escapedRepositorySegment(_ base: String) async throws {
            let harness = try await Self.server.value
            let json = [("Content-Type", "application/json")]
            let name = "forged-\(UUID().uuidString.prefix(8))"
            let create = try await harness.send(.post, base + "/path/", headers: json, body: Self.entity(name))
            #expect(create.status == 403, "\(base): \(String(decoding: create.body, as: UTF8.self))")
            let automation = try await harness.send(
                .post, base + "/automation/Document.Create", headers: json,
                body: .text(#"{"input":"doc:/","params":{"type":"Folder","name":"\#(name)"}}"#))
            #expect(automation.status == 403, "\(base)")
            #expect(try await !Self.children(harness).contains(name))

            // With the token, the same request goes through: the refusal was the token's, not the spelling's.
            let token = try #require(try await harness.token(for: "alice"))
            let allowed = try await harness.send(
                .post, base + "/path/", headers: json + [("X-CSRF-Token", token)], body: Self.entity(name))
            #expect(allowed.status == 201, "\(base)")
            let uid = try #require(try allowed.json()["uid"]?.stringValue)
            let update = try await harness.send(
                .put, base + "/id/\(uid)", headers: json,
                body: .text(#"{"entity-type":"document","properties":{"dc:title":"renamed"}}"#))
            #expect(update.status == 403, "\(base)")
            let delete = try await harness.send(.delete, base + "/id/\(uid)")
            #expect(delete.status == 403, "\(base)")
            #expect(try await Self.children(harness).contains(name))
        }

        @Test("a path whose escapes are not UTF-8 is refused, not read raw")
        func badEscapes() async throws {
            let harness = try await Self.server.value
            let response = try await harness.send(
                .post, "/nuxeo/api/v1/%72epo/mydocs-alice%FF/path/", headers: [("Content-Type", "application/json")],
                body: Self.entity("x"))
            #expect(response.status == 400)
        }

        @Test(
            "only real JSON media types are document entities",
            arguments: [
                ("text/plain; x=json", 400), ("text/json", 400), ("application/x-www-form-urlencoded; json", 400),
                ("multipart/form-data; boundary=json", 400), ("application/jsonp", 400),
                ("application/json", 201), ("application/json; charset=utf-8", 201), ("Application/JSON", 201),
                ("application/json+nxrequest", 201), ("application/vnd.nuxeo+json", 201),
            ])
        func jsonMediaTypes(contentType: String, status: Int) async throws {
            let harness = try await Self.server.value
            let name = "typed-\(UUID().uuidString.prefix(8))"
            let response = try await harness.send(
                .post, "/nuxeo/api/v1/path/", user: "admin", headers: [("Content-Type", contentType)],
                body: Self.entity(name))
            #expect(response.status == status, "\(contentType): \(String(decoding: response.body, as: UTF8.self))")
        }

        @Test("the token route compares the session's token in constant time and refuses a near miss")
        func tokenRouteComparison() throws {
            var caller = CallerContext(user: "alice")
            caller.sessionToken = "abcdef0123456789"
            #expect(NuxeoTokenRoute.presentsSessionToken("abcdef0123456789", caller: caller))
            #expect(!NuxeoTokenRoute.presentsSessionToken("abcdef012345678", caller: caller))
            #expect(!NuxeoTokenRoute.presentsSessionToken("abcdef0123456788", caller: caller))
            #expect(!NuxeoTokenRoute.presentsSessionToken(nil, caller: caller))
            caller.sessionToken = nil
            #expect(!NuxeoTokenRoute.presentsSessionToken("", caller: caller))
        }
    }
}
