import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelTestSupport
import Testing

/// Typed collection reads ask for the next page as soon as the current page's next link has arrived, while the
/// current page is still being decoded; what the caller sees does not change.
@Suite("ODataService reads the next page early")
struct PrefetchTests {
    typealias Flag = StreamingTests.Flag

    enum Read: String, CaseIterable, Sendable { case decodable, pullDecoding }

    /// Page `n` of `count`: three people, and a next link unless it is the last.
    static func page(_ n: Int, of count: Int) -> String {
        let people = StreamingTests.people("p\(n)-", 3).joined(separator: ",")
        let next = n + 1 < count ? #","@odata.nextLink":"People?page=\#(n + 1)""# : ""
        return #"{"@odata.context":"$metadata#People","value":[\#(people)]\#(next)}"#
    }

    static func ok(_ body: String) -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    static func page(of target: String) -> Int {
        target.components(separatedBy: "page=").last.flatMap { Int($0) } ?? 0
    }

    static func service(port: Int) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: URL(string: "http://127.0.0.1:\(port)/odata")!, version: .v4,
                http: .init(timeout: .seconds(10))),
            transport: SocketTransport())
    }

    /// Reads the people's names, calling `take` with each until it returns false.
    static func read(_ service: ODataService, _ read: Read, _ take: (String) async throws -> Bool) async throws {
        switch read {
        case .decodable:
            for try await person in service.entities("People", as: StreamingTests.Person.self) {
                guard try await take(person.UserName) else { return }
            }
        case .pullDecoding:
            for try await person in service.entities("People", pullDecoding: StreamingTests.PulledPerson.self) {
                guard try await take(person.userName) else { return }
            }
        }
    }

    /// Waits, without holding a thread, until `flag` is set or `seconds` have passed.
    static func wait(for flag: Flag, seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !flag.isSet, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return flag.isSet
    }

    @Test(
        "page 2 is asked for before page 1 has been decoded; every entity comes once, in order",
        arguments: Read.allCases)
    func nextPageIsRequestedEarly(read: Read) async throws {
        let secondRequested = Flag()
        let server = try ScriptedTCPServer { connection in
            while let request = connection.readRequest() {
                let n = Self.page(of: request.target)
                if n == 1 { secondRequested.set() }
                connection.write(Self.ok(Self.page(n, of: 3)))
            }
        }
        defer { server.stop() }
        var names: [String] = []
        var early = false
        try await Self.read(Self.service(port: server.port), read) { name in
            if names.isEmpty { early = try await Self.wait(for: secondRequested, seconds: 5) }
            names.append(name)
            return true
        }
        #expect(early, "page 2 was only asked for once page 1 had been decoded")
        // The early request waits for page 1's connection to be free, and goes out on it.
        #expect(server.acceptedConnections == 1)
        #expect(names == (0..<3).flatMap { n in (0..<3).map { "p\(n)-\($0)" } })
    }

    @Test("an error answer to the early request is thrown after the page before it", arguments: Read.allCases)
    func earlyRequestErrorComesInOrder(read: Read) async throws {
        let server = try ScriptedTCPServer { connection in
            while let request = connection.readRequest() {
                if Self.page(of: request.target) == 1 {
                    let body = #"{"error":{"code":"Gone","message":"page 2 is gone"}}"#
                    connection.write(
                        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
                } else {
                    connection.write(Self.ok(Self.page(0, of: 3)))
                }
            }
        }
        defer { server.stop() }
        var names: [String] = []
        let error = await #expect(throws: ODataError.self) {
            try await Self.read(Self.service(port: server.port), read) { name in
                names.append(name)
                return true
            }
        }
        #expect(names == ["p0-0", "p0-1", "p0-2"])
        #expect(error?.status == 404)
    }

    @Test("stopping early closes the connection of the page asked for early", arguments: Read.allCases)
    func stoppingClosesTheEarlyRequest(read: Read) async throws {
        let secondRequested = Flag()
        let secondClosed = Flag()
        let server = try ScriptedTCPServer { connection in
            while let request = connection.readRequest() {
                guard Self.page(of: request.target) == 1 else {
                    connection.write(Self.ok(Self.page(0, of: 3)))
                    continue
                }
                // Head and part of the body, then wait for the client to hang up.
                let body = Self.page(1, of: 3)
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                        + body.prefix(100))
                secondRequested.set()
                connection.waitForClose()
                secondClosed.set()
                return
            }
        }
        defer { server.stop() }
        var requested = false
        try await Self.read(Self.service(port: server.port), read) { _ in
            requested = try await Self.wait(for: secondRequested, seconds: 5)
            return false
        }
        #expect(requested)
        let closed = try await Self.wait(for: secondClosed, seconds: 5)
        #expect(closed, "the early request's connection stayed open")
    }
}
