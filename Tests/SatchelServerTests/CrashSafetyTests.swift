import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Synchronization
import Testing
import SatchelJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kills a real `satchel serve` process (SIGKILL) in the middle of a large upload, starts it again on the same data
/// folder, and checks that every earlier document is intact, that the half-sent one does not exist, and that no
/// temporary file is left behind.
@Suite("satchel serve survives SIGKILL during an upload", .serialized)
struct CrashSafetyTests {
    @Test func killDuringLargeUpload() async throws {
        let sandbox = try ServerProcess.Sandbox("crash")
        defer { sandbox.remove() }
        let directory = sandbox.directory, data = sandbox.data
        var server = try await sandbox.start()
        let client = HTTPClient()
        let base = server.url.appendingPathComponent("cmis/browser/shared/root")
        let folderId = try await ServerProcess.create(
            client, base, action: "createFolder", name: "kept", type: "cmis:folder")
        var kept: [String: Data] = [:]
        for index in 0..<3 {
            let bytes = Data((0..<(50_000 + index)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            let id = try await ServerProcess.create(
                client, base, action: "createDocument", name: "doc-\(index).bin", type: "cmis:document",
                folderId: folderId, content: bytes, directory: directory)
            kept[id] = bytes
        }

        // 256 MiB of content, streamed from disk; the server dies once 24 MiB have gone out.
        let big = directory.appendingPathComponent("big.bin")
        _ = FileManager.default.createFile(atPath: big.path, contents: nil)
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 256 << 20)
        try handle.close()
        var form = MultipartFormData()
        for (name, value) in ServerProcess.fields(action: "createDocument", name: "big.bin", type: "cmis:document") {
            form.addField(name, value)
        }
        try form.addFile("content", fileURL: big, filename: "big.bin")
        var request = HTTPClient.Request(
            .post, url: ServerProcess.url(base, objectId: folderId), body: .multipart(form), operation: "big upload")
        request.headers["Authorization"] = ServerProcess.basic
        let pid = server.pid
        let killed = Mutex(false)
        await #expect(throws: (any Error).self) {
            try await client.send(request) { progress in
                guard progress.bytesDone > 24 << 20 else { return }
                killed.withLock { done in
                    if !done { kill(pid, SIGKILL) }
                    done = true
                }
            }
        }
        #expect(killed.withLock { $0 }, "the upload finished before the server was killed")
        await server.waitUntilExit()

        // The same data folder, a new process.
        server = try await sandbox.start()
        try await withCleanup { () async throws in
            let restartedBase = server.url.appendingPathComponent("cmis/browser/shared/root")
            var children = HTTPClient.Request(
                .get,
                url: ServerProcess.url(
                    restartedBase, objectId: folderId, extra: [("cmisselector", "children"), ("succinct", "true")]))
            children.headers["Authorization"] = ServerProcess.basic
            let listing = try await client.send(children).json()
            let names = (listing["objects"]?.arrayValue ?? []).compactMap {
                $0["object"]?["succinctProperties"]?["cmis:name"]?.stringValue
            }
            #expect(names.sorted() == ["doc-0.bin", "doc-1.bin", "doc-2.bin"])
            for (id, bytes) in kept {
                var content = HTTPClient.Request(
                    .get, url: ServerProcess.url(restartedBase, objectId: id, extra: [("cmisselector", "content")]))
                content.headers["Authorization"] = ServerProcess.basic
                #expect(try await client.send(content).body == bytes)
            }
            let leftovers = try FileManager.default.contentsOfDirectory(
                atPath: data.appendingPathComponent("blobs/tmp").path)
            #expect(leftovers.isEmpty, "temporary upload files left: \(leftovers)")
        } cleanup: {
            await server.stop()
        }
    }
}
