import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelTestSupport
import Synchronization
import Testing

/// Collection reads decode while the page arrives: over a real socket, a server that pauses in the middle of a
/// page sees the client take the first entity before it sends the rest.
@Suite("ODataService streaming reads")
struct StreamingTests {
    enum Read: String, CaseIterable, Sendable { case dynamic, decodable, pullDecoding }

    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
        func wait(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !isSet, Date() < deadline { usleep(5000) }
            return isSet
        }
    }

    struct Person: Decodable, Sendable, Equatable {
        var UserName: String
        var Age: Int
    }

    struct PulledPerson: JSONDecodable, Sendable {
        var userName = ""
        init(from reader: inout JSONReader) throws {
            try reader.readObject { key, reader in
                switch key {
                case "UserName": userName = try reader.readString()
                default: try reader.skipValue()
                }
            }
        }
    }

    /// `{"value":[…]}` with `count` people named `prefix0`, `prefix1`…, each padded so the page is large.
    static func people(_ prefix: String, _ count: Int) -> [String] {
        (0..<count).map {
            #"{"UserName":"\#(prefix)\#($0)","Age":\#(20 + $0 % 50),"Notes":"\#(String(repeating: "x", count: 900))"}"#
        }
    }

    @Test("the first entity is decoded before the server has sent the rest of the page", arguments: Read.allCases)
    func decodesWhileThePageArrives(read: Read) async throws {
        let gotFirst = Flag()
        let sawFirstBeforeRest = Flag()
        let firstPage = Self.people("a", 600)  // about 560 KB: more than the transport's buffers
        let secondPage = Self.people("b", 3)
        let server = try ScriptedTCPServer { connection in
            while let request = connection.readRequest() {
                if request.target.contains("page=2") {
                    let body = #"{"value":[\#(secondPage.joined(separator: ","))]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)"
                            + "\r\n\r\n\(body)")
                    continue
                }
                let head = #"{"@odata.context":"$metadata#People","value":["#
                let tail = #"],"@odata.nextLink":"People?page=2"}"#
                let opening = head + firstPage[0] + "," + firstPage[1].prefix(40)
                let rest = firstPage[1].dropFirst(40) + "," + firstPage.dropFirst(2).joined(separator: ",") + tail
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(opening.utf8.count + rest.utf8.count)\r\n\r\n")
                connection.write(opening)
                if gotFirst.wait(seconds: 5) { sawFirstBeforeRest.set() }
                connection.write(String(rest))
            }
        }
        defer { server.stop() }
        let service = ODataService(
            configuration: .init(
                serviceURL: URL(string: "http://127.0.0.1:\(server.port)/odata")!, version: .v4,
                http: .init(timeout: .seconds(10))),
            transport: SocketTransport())
        var names: [String] = []
        func take(_ name: String) {
            names.append(name)
            gotFirst.set()
        }
        switch read {
        case .dynamic:
            for try await person in service.entities("People") { take(person["UserName"]?.stringValue ?? "?") }
        case .decodable:
            for try await person in service.entities("People", as: Person.self) { take(person.UserName) }
        case .pullDecoding:
            for try await person in service.entities("People", pullDecoding: PulledPerson.self) {
                take(person.userName)
            }
        }
        #expect(sawFirstBeforeRest.isSet, "the client waited for the whole page before decoding")
        #expect(names.count == 603)
        #expect(names.first == "a0" && names[599] == "a599" && names.last == "b2")
    }

    @Test("a page cut short fails with a connection error", arguments: Read.allCases)
    func pageCutShort(read: Read) async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            let body = #"{"value":[\#(Self.people("a", 50).joined(separator: ","))]}"#
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            connection.write(String(body.prefix(body.utf8.count / 2)))
        }
        defer { server.stop() }
        let service = ODataService(
            configuration: .init(
                serviceURL: URL(string: "http://127.0.0.1:\(server.port)/odata")!, version: .v4),
            transport: SocketTransport())
        var count = 0
        let error = await #expect(throws: ODataError.self) {
            switch read {
            case .dynamic: for try await _ in service.entities("People") { count += 1 }
            case .decodable: for try await _ in service.entities("People", as: Person.self) { count += 1 }
            case .pullDecoding:
                for try await _ in service.entities("People", pullDecoding: PulledPerson.self) { count += 1 }
            }
        }
        #expect(error?.code == .connection)
        #expect(count > 0 && count < 50)
    }
}
