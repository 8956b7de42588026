import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

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
            defer { Task { await harness.stop() } }
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
        }

        @Test func anOversizedDeclaredBodyIsRefusedBeforeItIsSent() async throws {
            let harness = try await ServerHarness.start(limits: RequestLimits(maxContentBytes: 1 << 20))
            defer { Task { await harness.stop() } }
            let (interim, _) = try await Self.rawRequest(
                harness,
                "POST /cmis/browser/shared/root HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                    + ServerHarness.basic("alice") + "\r\nContent-Type: multipart/form-data; boundary=x\r\n"
                    + "Content-Length: \(10 << 20)\r\nExpect: 100-continue\r\n\r\n")
            #expect(interim.hasPrefix("HTTP/1.1 413"), "\(interim)")
        }

        @Test(arguments: ["/cmis/atom/shared/children?id=ROOT", "/cmis/browser/shared/root"])
        func aBodyEndingEarlyIsTheClientsFault(path: String) async throws {
            let harness = try await ServerHarness.start()
            defer { Task { await harness.stop() } }
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
        }
    }
}
