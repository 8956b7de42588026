public import Foundation

/// A TCP server on `127.0.0.1` that answers every request with the same raw bytes and closes the connection:
/// for responses no well-behaved HTTP server would send (malformed or oversized headers, bad status lines).
///
/// ```swift
/// let server = try RawTCPServer(response: Array("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n".utf8))
/// defer { server.stop() }
/// ```
public final class RawTCPServer: Sendable {
    private let server: ScriptedTCPServer

    public init(response: [UInt8]) throws {
        server = try ScriptedTCPServer { connection in
            // Read the request first, so the client is not reset while it is still sending.
            _ = connection.readRequest()
            connection.write(Data(response))
        }
    }

    public var port: Int { server.port }
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/raw")! }

    public func stop() { server.stop() }
}
