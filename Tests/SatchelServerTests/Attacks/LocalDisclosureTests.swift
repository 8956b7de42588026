import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Attacks {
    /// Another account on the same machine, and whoever reads the server's log: the data folder and everything in
    /// it are the owner's only, whatever the umask, and the demo user's password never reaches standard error.
    @Suite("Local disclosure")
    struct LocalDisclosure {
        @Test func dataFolderIsPrivateAndTheDemoPasswordStaysOutOfTheLog() async throws {
            let binary = try ServerProcess.satchelBinary()
            let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-disclosure-\(UUID())")
            try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: sandbox) }
            let data = sandbox.appendingPathComponent("data")
            let log = sandbox.appendingPathComponent("stderr.log")
            // The usual umask, and no users file: a demo user is created.
            let server = try await ServerProcess.start(
                binary, arguments: ["--data", data.path], launcher: ["/bin/sh", "-c", "umask 022; exec \"$0\" \"$@\""],
                standardError: log)
            try await withCleanup { () async throws in
                let passwordFile = data.appendingPathComponent("demo-password")
                let password = try String(contentsOf: passwordFile, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(password.count == 20)
                // The password works, and writes a document (so blobs and the SQLite WAL exist).
                var form = MultipartFormData()
                let fields = ServerProcess.fields(action: "createDocument", name: "a.txt", type: "cmis:document")
                for (name, value) in fields {
                    form.addField(name, value)
                }
                try form.addData("content", data: Data("secret".utf8), filename: "a.txt", contentType: "text/plain")
                var request = HTTPClient.Request(
                    .post, url: server.url.appendingPathComponent("cmis/browser/shared/root"), body: .multipart(form))
                request.headers["Authorization"] = "Basic " + Data("demo:\(password)".utf8).base64EncodedString()
                #expect(try await HTTPClient().send(request).status == 201)
                _ = try await HTTPClient().send(
                    HTTPClient.Request(.get, url: server.url.appendingPathComponent("health")))

                let stderr = try String(contentsOf: log, encoding: .utf8)
                #expect(stderr.contains("Created user demo"))
                #expect(stderr.contains(passwordFile.path))
                #expect(!stderr.contains(password), "the demo password is in the server's standard error")

                var modes: [String: mode_t] = [:]
                let enumerator = FileManager.default.enumerator(atPath: data.path)
                while let relative = enumerator?.nextObject() as? String { modes[relative] = Self.mode(data, relative) }
                modes["."] = Self.mode(data, ".")
                #expect(modes.keys.contains("satchel.sqlite") && modes.keys.contains("satchel.sqlite-wal"))
                #expect(modes.keys.contains { $0.hasPrefix("blobs/objects/") && $0.split(separator: "/").count == 4 })
                for (path, mode) in modes {
                    var isFolder: ObjCBool = false
                    _ = FileManager.default.fileExists(
                        atPath: data.appendingPathComponent(path).path, isDirectory: &isFolder)
                    #expect(mode & 0o077 == 0, "\(path) has mode \(String(mode, radix: 8))")
                    #expect(mode == (isFolder.boolValue ? 0o700 : 0o600), "\(path) has mode \(String(mode, radix: 8))")
                }
            } cleanup: {
                await server.stop()
            }
        }

        static func mode(_ folder: URL, _ relative: String) -> mode_t {
            var info = stat()
            guard stat(folder.appendingPathComponent(relative).path, &info) == 0 else { return 0o7777 }
            return info.st_mode & 0o7777
        }
    }
}
