import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SatchelHTTP
import SatchelTestSupport
import Synchronization
import Testing

@testable import SatchelOData

/// The service over real sockets: a small V2 service on 127.0.0.1 (port chosen at run time) that checks what
/// arrives on the wire — decoded query options, sap-client on every request, the CSRF handshake, If-Match.
@Suite("ODataService over loopback", .serialized)
struct LoopbackServiceTests {
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func start(log: Log) async throws -> TestHTTPServer {
        let token = HTTPField.Name("X-CSRF-Token")!
        return try await TestHTTPServer.start { router in
            router.get("/odata/StudentSet") { request, _ -> Response in
                let query = request.uri.queryParameters
                log.add("GET filter=\(query.get("$filter") ?? "-") client=\(query.get("sap-client") ?? "-")")
                if request.headers[token] == "Fetch" {
                    return json(#"{"d":{"results":[]}}"#, headers: [token: "tok-42"])
                }
                if query.get("$skiptoken") == "2" {
                    return json(#"{"d":{"results":[{"StudentId":"3","Gpa":"2.5"}]}}"#)
                }
                let next =
                    request.head.authority.map { "http://\($0)/odata/StudentSet?$skiptoken=2&sap-client=100" }
                    ?? "StudentSet?$skiptoken=2&sap-client=100"
                return json(
                    #"{"d":{"__count":"3","results":[{"StudentId":"1","Gpa":"3.5"},{"StudentId":"2","Gpa":"4.0"}],"__next":"\#(next)"}}"#
                )
            }
            router.post("/odata/StudentSet") { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 1 << 20)
                log.add("POST token=\(request.headers[token] ?? "-") body=\(String(buffer: body))")
                guard request.headers[token] == "tok-42" else {
                    return json(
                        #"{"error":{"code":"CSRF","message":"CSRF token validation failed"}}"#, status: .forbidden,
                        headers: [token: "Required"])
                }
                return json(#"{"d":{"StudentId":"9","Gpa":"1.5"}}"#, status: .created, headers: [.eTag: "W/\"1\""])
            }
            router.put("/odata/{entity}") { request, context -> Response in
                log.add("PUT \(context.parameters.get("entity") ?? "-") if-match=\(request.headers[.ifMatch] ?? "-")")
                return json(
                    #"{"error":{"code":"SY/530","message":{"lang":"en","value":"changed by someone else"}}}"#,
                    status: .preconditionFailed, headers: [.eTag: "W/\"2\""])
            }
        }
    }

    @Test func readPagesCreateAndConflict() async throws {
        let log = Log()
        let server = try await Self.start(log: log)
        let configuration = ODataService.Configuration(
            serviceURL: server.url("/odata"), version: .v2, sapClient: "100", auth: [CSRFTokenAuth()])
        let service = ODataService(configuration: configuration)
        do {
            let query = ODataQuery().filter(
                .property("LastName") == "O'Neil & Sons" && .property("Gpa") > .literal(.decimal(3)))
            let students = try await service.entities("StudentSet", query: query).collect()
            #expect(students.map { $0["StudentId"]?.stringValue } == ["1", "2", "3"])
            #expect(log.all.first == "GET filter=LastName eq 'O''Neil & Sons' and Gpa gt 3M client=100")
            #expect(log.all.filter { $0.hasSuffix("client=100") }.count == 2)

            let created = try await service.create("StudentSet", ODataEntity(properties: ["LastName": "Lovelace"]))
            #expect(created.entity?["StudentId"]?.stringValue == "9" && created.etag == "W/\"1\"")
            #expect(log.all.contains(#"POST token=tok-42 body={"LastName":"Lovelace"}"#))

            let error = try await #require(throws: ODataError.self) {
                try await service.update(
                    ODataPath("StudentSet").key("9"), with: ODataEntity(properties: ["LastName": "X"]),
                    method: .replace,
                    ifMatch: "W/\"1\"")
            }
            #expect(error.code == .preconditionFailed && error.currentETag == "W/\"2\"")
            #expect(error.message == "changed by someone else" && error.serviceCode == "SY/530")
            #expect(log.all.last == "PUT StudentSet('9') if-match=W/\"1\"")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
