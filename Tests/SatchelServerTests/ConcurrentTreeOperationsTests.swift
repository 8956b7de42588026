import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

/// Many recursive deletes, moves and reads at once against a real `satchel serve` process on its default SQLite
/// store. On a machine with two cores Swift runs tasks on two cooperative threads; a read that waits on one of them
/// for a database connection that a suspended task holds stops the whole server (it once answered nothing, not
/// even `/health`). Every request here must finish well inside its bound.
@Suite("satchel serve under concurrent tree deletes, moves and reads", .serialized)
struct ConcurrentTreeOperationsTests {
    /// Far above what any of these requests needs; a stalled server never answers at all.
    static let bound: Duration = .seconds(10)

    @Test func concurrentDeleteTreesMovesAndReadsAllFinish() async throws {
        let sandbox = try ServerProcess.Sandbox("stall")
        defer { sandbox.remove() }
        let server = try await sandbox.start()
        try await withCleanup { () async throws in
            let client = HTTPClient()
            let base = server.url.appendingPathComponent("cmis/browser/shared/root")

            // Twelve trees to delete (a folder, three subfolders, four documents in each) and six folders to move.
            var trees: [String] = []
            for tree in 0..<12 {
                let top = try await ServerProcess.create(
                    client, base, action: "createFolder", name: "tree-\(tree)", type: "cmis:folder")
                trees.append(top)
                for sub in 0..<3 {
                    let folder = try await ServerProcess.create(
                        client, base, action: "createFolder", name: "sub-\(sub)", type: "cmis:folder", folderId: top)
                    for document in 0..<4 {
                        _ = try await ServerProcess.create(
                            client, base, action: "createDocument", name: "doc-\(document)", type: "cmis:document",
                            folderId: folder)
                    }
                }
            }
            let target = try await ServerProcess.create(
                client, base, action: "createFolder", name: "target", type: "cmis:folder")
            var moving: [String] = []
            for index in 0..<6 {
                moving.append(
                    try await ServerProcess.create(
                        client, base, action: "createFolder", name: "moving-\(index)", type: "cmis:folder"))
            }

            var requests: [(String, HTTPClient.Request)] = []
            func add(_ what: String, _ method: HTTPClient.Method, _ url: URL, form: [(String, String)]? = nil) {
                var request = HTTPClient.Request(method, url: url, body: form.map { .form($0) })
                request.headers["Authorization"] = ServerProcess.basic
                request.timeout = Self.bound * 2
                request.validatesStatus = false
                requests.append((what, request))
            }
            for tree in trees {
                add("deleteTree", .post, ServerProcess.url(base, objectId: tree), form: [("cmisaction", "deleteTree")])
                add(
                    "children", .get,
                    ServerProcess.url(
                        base, objectId: tree, extra: [("cmisselector", "children"), ("succinct", "true")]))
            }
            for folder in moving {
                add("object", .get, ServerProcess.url(base, objectId: folder, extra: [("cmisselector", "object")]))
                add(
                    "move", .post, ServerProcess.url(base, objectId: folder),
                    form: [("cmisaction", "move"), ("targetFolderId", target)])
                add("health", .get, server.url.appendingPathComponent("health"))
            }

            let outcomes = await withTaskGroup(of: (String, Int?, Duration).self) { group in
                for (what, request) in requests {
                    group.addTask {
                        let start = ContinuousClock.now
                        let status = try? await client.send(request).status
                        return (what, status, ContinuousClock.now - start)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == requests.count)
            for (what, status, elapsed) in outcomes {
                #expect(status != nil, "\(what) got no answer within \(elapsed)")
                #expect(elapsed < Self.bound, "\(what) took \(elapsed)")
                if let status { #expect(status < 500, "\(what) answered \(status)") }
            }
            try #require(outcomes.allSatisfy { $0.1 != nil }, "the server stalled")
            // Every tree is gone and the server still answers.
            for tree in trees {
                var request = HTTPClient.Request(
                    .get, url: ServerProcess.url(base, objectId: tree, extra: [("cmisselector", "object")]))
                request.headers["Authorization"] = ServerProcess.basic
                request.validatesStatus = false
                request.timeout = Self.bound
                #expect(try await client.send(request).status == 404)
            }
        } cleanup: {
            await server.stop()
        }
    }
}
