import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing
import SatchelCMIS
import SatchelCMISCore

extension Attacks {
    /// HTTP edges a strict client or an attacker reaches: `Expect: 100-continue` (answered at once, or refused before
    /// an oversized body is sent), and a body that ends before its declared length (the client's fault: 400).
    @Suite("Protocol edges")
    struct ProtocolEdges {
        static func rawRequest(
            _ harness: ServerHarness, _ head: String, body: String? = nil
        ) async throws -> (interim: String, final: String) {
            let client = try RawTCPClient(port: harness.running.port)
            try client.send(head)
            var interim = ""
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                _ = client.poll()
                interim = String(decoding: client.received, as: UTF8.self)
                if interim.contains("\r\n\r\n") { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            if let body, interim.hasPrefix("HTTP/1.1 100") { try client.send(body) }
            _ = await client.waitUntilClosed(within: .seconds(5))
            return (interim, String(decoding: client.received, as: UTF8.self))
        }

        @Test func expectContinueIsAnsweredAtOnce() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let form =
                    "cmisaction=createFolder&propertyId[0]=cmis:name&propertyValue[0]=continued"
                    + "&propertyId[1]=cmis:objectTypeId&propertyValue[1]=cmis:folder"
                let (interim, final) = try await Self.rawRequest(
                    harness,
                    "POST /cmis/browser/shared/root HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                        + ServerHarness.basic("alice") + "\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: \(form.utf8.count)\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
                    body: form)
                #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
                #expect(final.contains("HTTP/1.1 201"), "\(final)")
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func anOversizedDeclaredBodyIsRefusedBeforeItIsSent() async throws {
            let harness = try await ServerHarness.start(limits: RequestLimits(maxContentBytes: 1 << 20))
            try await withCleanup { () async throws in
                let (interim, _) = try await Self.rawRequest(
                    harness,
                    "POST /cmis/browser/shared/root HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                        + ServerHarness.basic("alice") + "\r\nContent-Type: multipart/form-data; boundary=x\r\n"
                        + "Content-Length: \(10 << 20)\r\nExpect: 100-continue\r\n\r\n")
                #expect(interim.hasPrefix("HTTP/1.1 413"), "\(interim)")
            } cleanup: {
                await harness.stop()
            }
        }

        @Test(arguments: ["/cmis/atom/shared/children?id=ROOT", "/cmis/browser/shared/root"])
        func aBodyEndingEarlyIsTheClientsFault(path: String) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let root = try await harness.session("alice", binding: .browser).repositoryInfo.rootFolderId
                let isAtom = path.contains("atom")
                let body =
                    isAtom
                    ? #"<?xml version="1.0"?><entry xmlns="http://www.w3.org/2005/Atom"><title>x</title></entry>"#
                    : "cmisaction=createFolder&propertyId[0]=cmis:name"
                let client = try RawTCPClient(port: harness.running.port)
                try client.send(
                    "POST \(path.replacingOccurrences(of: "ROOT", with: root)) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Authorization: \(ServerHarness.basic("alice"))\r\nContent-Type: "
                        + (isAtom ? "application/atom+xml;type=entry" : "application/x-www-form-urlencoded")
                        + "\r\nContent-Length: \(body.utf8.count + 100)\r\n\r\n" + body)
                client.closeWrite()
                _ = await client.waitUntilClosed(within: .seconds(5))
                let answer = String(decoding: client.received, as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            } cleanup: {
                await harness.stop()
            }
        }

        /// An empty document's content once stopped the whole server (a range of 0...-1).
        @Test(arguments: [
            "/cmis/browser/shared/root?objectId=DOC&cmisselector=content", "/cmis/atom/shared/content?id=DOC",
        ])
        func emptyContentIsServed(path: String) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let alice = try await harness.session("alice", binding: .browser)
                let empty = try #require(
                    try await alice.createDocument(
                        named: "empty.txt", in: alice.repositoryInfo.rootFolderId,
                        content: .data(Data(), filename: "empty.txt", mimeType: "text/plain")
                    ).id)
                for headers in [[], [("Range", "bytes=0-")], [("Range", "bytes=-5")]] {
                    let response = try await harness.send(
                        .get, path.replacingOccurrences(of: "DOC", with: empty), headers: headers)
                    #expect(response.status == 200 && response.body.isEmpty, "\(headers): \(response.status)")
                }
                #expect(try await harness.send(.get, "/health").status == 200)
            } cleanup: {
                await harness.stop()
            }
        }

        /// Guesses sent all at once once each passed the throttle before the first failure was counted.
        @Test func guessesSentTogetherAreCountedTogether() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for attempt in 0..<20 {
                        group.addTask {
                            var request = HTTPClient.Request(
                                .get, url: harness.url("/cmis/browser/shared?cmisselector=repositoryInfo"))
                            request.headers["Authorization"] =
                                "Basic " + Data("bob:guess\(attempt)".utf8).base64EncodedString()
                            request.validatesStatus = false
                            return try await HTTPClient(configuration: ServerHarness.noRetries).send(request).status
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == 401 }.count == 5, "\(statuses.sorted())")
                #expect(statuses.filter { $0 == 429 }.count == 15)
            } cleanup: {
                await harness.stop()
            }
        }

        /// A client opening many connections at once sends the same right credential on each: it is checked once,
        /// counted once, and every request gets in (a browser opens six).
        @Test func oneCredentialSentTogetherIsCheckedOnce() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<12 {
                        group.addTask {
                            var request = HTTPClient.Request(
                                .get, url: harness.url("/cmis/browser/shared?cmisselector=repositoryInfo"))
                            request.headers["Authorization"] = ServerHarness.basic("bob")
                            request.validatesStatus = false
                            return try await HTTPClient(configuration: ServerHarness.noRetries).send(request).status
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 12), "\(statuses.sorted())")
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
