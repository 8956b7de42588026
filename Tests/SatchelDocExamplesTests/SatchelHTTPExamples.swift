import Foundation
import SatchelHTTP

enum SatchelHTTPExamples {
    /// GettingStarted.md: a note as the service reads and writes it.
    struct Note: Codable, Sendable {
        var id: String?
        var title: String
    }

    /// GettingStarted.md: an OData V4 page of notes.
    struct NotePage: Decodable, Sendable {
        var value: [Note]
    }

    /// GettingStarted.md: a client with Basic credentials and the SAP Gateway CSRF handshake.
    static func makeClient(password: String) -> HTTPClient {
        let service = URL(string: "https://gw.example.com/sap/opu/odata4/sap/znotes/default/sap/znotes/0001/")!
        var configuration = HTTPClient.Configuration(baseURL: service)
        configuration.timeout = .seconds(60)
        configuration.headers["sap-client"] = "100"
        return HTTPClient(
            configuration: configuration,
            auth: [
                BasicAuth(user: "alice", password: password),  // on every request
                CSRFTokenAuth(fetchURL: service),  // fetched once, sent on changes
            ]
        )
    }

    /// GettingStarted.md: read and decode a page.
    static func listNotes(client: HTTPClient) async throws -> [Note] {
        var request = HTTPClient.Request(url: URL(string: "Notes?$top=10")!, operation: "list the notes")
        request.headers["Accept"] = "application/json"
        let response = try await client.send(request)
        print(response.status, response.mediaType ?? "")
        return try response.decode(NotePage.self).value
    }

    /// GettingStarted.md: create an entity; the CSRF token is fetched first.
    static func createNote(client: HTTPClient, title: String) async throws -> String? {
        let body = try HTTPClient.Body.json(Note(title: title))
        let request = HTTPClient.Request(.post, url: URL(string: "Notes")!, body: body, operation: "create a note")
        let response = try await client.send(request)
        return response.headers["Location"]
    }

    /// GettingStarted.md: download a file with progress.
    static func download(client: HTTPClient, from url: URL, to file: URL) async throws -> Int {
        let transfer = client.downloadTransfer(HTTPClient.Request(url: url, operation: "download the report"), to: file)
        for await progress in transfer.progress {
            if let fraction = progress.fraction { print("\(Int(fraction * 100)) %") }
        }
        let response = try await transfer.response  // the file is in place once this returns
        return response.status
    }

    /// GettingStarted.md: continue a download, progress through a closure.
    static func resume(client: HTTPClient, from url: URL, to file: URL) async throws {
        try await client.download(HTTPClient.Request(url: url), to: file, resume: true) { progress in
            print(progress)  // "received 1048576 of 10485760 bytes"
        }
    }

    /// GettingStarted.md: read a body chunk by chunk.
    static func firstBytes(client: HTTPClient, of url: URL) async throws -> Data {
        let response = try await client.stream(HTTPClient.Request(url: url), maximumBytes: 1 << 30)
        var start = Data()
        for try await chunk in response.body {
            start.append(chunk)
            if start.count >= 4096 { break }  // leaving the loop closes the connection
        }
        return start
    }

    /// GettingStarted.md: handle errors.
    static func describeFailure(client: HTTPClient) async -> String {
        do {
            let notes = try await listNotes(client: client)
            return "\(notes.count) notes"
        } catch let error as HTTPTransferError {
            switch error.code {
            case .unauthorized:
                return "sign in again: \(error.serverMessage ?? error.message)"
            case .timeout, .connection:
                return "the service cannot be reached: \(error)"
            default:
                return "failed: \(error)"  // no credentials in the description
            }
        } catch {
            return "failed: \(error)"
        }
    }

    /// GettingStarted.md: retries.
    static func patientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.retry = RetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(100))
        return configuration
    }

    /// GettingStarted.md: a client that answers from memory, for tests.
    static func testClient() async throws -> Int {
        let page = Data(#"{"value":[{"id":"1","title":"Buy milk"}]}"#.utf8)
        let transport = InMemoryTransport { _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: page)
        }
        let base = URL(string: "https://example.com/")!
        let client = HTTPClient(configuration: HTTPClient.Configuration(baseURL: base), transport: transport)
        let notes = try await listNotes(client: client)
        print(notes.map(\.title))  // ["Buy milk"]
        return transport.requests.count  // what the code sent, to check
    }
}
