import Foundation
import Hummingbird
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Synchronization
import Testing

extension SatchelCLITests {
    /// `satchel offline` end to end against odatapy: open with a download, query with the service stopped or not,
    /// change, upload, check on the server.
    @Suite struct OfflineCommandTests {
        /// A new folder for a store, and the path of its configuration file in it.
        static func folder() throws -> (URL, String) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-cli-offline-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return (folder, folder.appendingPathComponent("shop.ini").path)
        }

        /// A malformed file is one line naming its line, exit 2, for a command that reads it first (`status`) and one
        /// that reads it inside its work (`open`); a key the client does not use is a warning, said once.
        @Test func configurationMistakesNameTheirLines() async throws {
            let (folder, config) = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try "[endpoint]\nurl = http://127.0.0.1:9/\n[a]\nquery = A\ntrack_deltas = often\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            for command in ["status", "open"] {
                let result = try await SatchelProcess.run(
                    ["offline", command, config], environment: ["SATCHEL_STORE_PASSPHRASE": "x"])
                #expect(result.status == 2, "\(command): \(result.stderr)")
                #expect(
                    result.stderr
                        == "satchel: error: \(config) line 5: track_deltas is AUTO, ALWAYS or NEVER, not often\n",
                    "\(command)")
            }
            try "[endpoint]\nurl = http://127.0.0.1:9/\nstroe = x\n[a]\nquery = A\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            let warned = try await SatchelProcess.run(
                ["offline", "status", config], environment: ["SATCHEL_STORE_PASSPHRASE": "x"])
            let warnings = warned.stderr.split(separator: "\n").filter { $0.hasPrefix("satchel: warning:") }
            #expect(
                warnings == [
                    "satchel: warning: \(config) line 3: unknown key stroe in [endpoint] (known: csrf, indexed_type, max_delta_resends, middle_tier, name, payload_format, repeatable_requests, sap_client, store, timeout, url, user)"
                ])
        }

        /// The commands that work on the store alone send nothing, even for a store whose first open failed before
        /// its `$metadata` was stored (they say so), or a store that does not exist.
        @Test func localCommandsSendNothing() async throws {
            let requests = Mutex(0)
            let server = try await TestHTTPServer.start { router in
                router.get("/odata/**") { _, _ -> Response in
                    requests.withLock { $0 += 1 }
                    return Response(status: .internalServerError)
                }
            }
            let (folder, config) = try Self.folder()
            try await withCleanup {
                try
                    "[endpoint]\nurl = \(server.url("/odata").absoluteString)\nstore = shop.store\n[p]\nquery = Products\n"
                    .write(toFile: config, atomically: true, encoding: .utf8)
                let environment = ["SATCHEL_STORE_PASSPHRASE": "x"]
                let missing = try await SatchelProcess.run(["offline", "status", config], environment: environment)
                #expect(missing.status != 0 && missing.stderr.contains("no offline store at"), "\(missing.stderr)")
                #expect(requests.withLock { $0 } == 0)
                let open = try await SatchelProcess.run(["offline", "open", config], environment: environment)
                #expect(open.status != 0, "\(open.stdoutText)")
                let sent = requests.withLock { $0 }
                #expect(sent > 0)
                for command in [["status"], ["query", "Products"], ["requests"]] {
                    let result = try await SatchelProcess.run(
                        ["offline", command[0], config] + command.dropFirst(), environment: environment)
                    #expect(result.status != 0, "\(command): \(result.stdoutText)")
                    #expect(result.stderr.contains("has no $metadata"), "\(command): \(result.stderr)")
                }
                #expect(requests.withLock { $0 } == sent, "a local command asked the service")
            } cleanup: {
                await server.stop()
                try? FileManager.default.removeItem(at: folder)
            }
        }

        @Test func openQueryChangeUpload() async throws {
            let server = try await ODataPyServer.start(maxPageSize: 20, timeout: .seconds(60))
            defer { server.stop() }
            let (folder, config) = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try """
            [endpoint]
            url = \(server.serviceURL.absoluteString)
            store = shop.store

            [products]
            query = Products?$filter=CategoryID le 3

            [categories]
            query = Categories
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let environment = ["SATCHEL_STORE_PASSPHRASE": "cli secret"]

            let open = try await SatchelProcess.run(["offline", "open", config], environment: environment)
            #expect(open.status == 0, "\(open.stderr)")
            #expect(open.stdoutText.contains("products: 150 Products"), "\(open.stdoutText)")

            let query = try await SatchelProcess.run(
                [
                    "offline", "query", config, "Products", "--filter", "Price gt 50 and CategoryID eq 2", "--orderby",
                    "Price desc", "--top", "3", "--select", "ID,Price",
                ], environment: environment)
            #expect(query.status == 0, "\(query.stderr)")
            let lines = query.stdoutText.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.contains("\"ID\"") && !$0.contains("\"Name\"") })
            // Each line starts with the store's id of the entity (what addresses one created offline without a key).
            #expect(lines.allSatisfy { $0.hasPrefix(#"{"@satchel.entityID":"#) }, "\(lines)")

            let update = try await SatchelProcess.run(
                ["offline", "update", config, "Products", "3", "--json", #"{"Stock": 4242}"#], environment: environment)
            #expect(update.status == 0, "\(update.stderr)")
            let requests = try await SatchelProcess.run(["offline", "requests", config], environment: environment)
            #expect(requests.stdoutText.contains("PATCH\tProducts"))
            // A queued change keeps the store from being removed without --force.
            let kept = try await SatchelProcess.run(["offline", "remove", config], environment: environment)
            #expect(kept.status != 0 && kept.stderr.contains("still queued"), "\(kept.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("shop.store").path))
            let upload = try await SatchelProcess.run(["offline", "upload", config], environment: environment)
            #expect(upload.stdoutText.contains("sent: 1, failed: 0"), "\(upload.stdoutText) \(upload.stderr)")
            let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
            #expect(try await service.entity("Products", key: .single(.int(3)))["Stock"]?.intValue == 4242)

            let wrongKey = try await SatchelProcess.run(
                ["offline", "status", config], environment: ["SATCHEL_STORE_PASSPHRASE": "not it"])
            #expect(wrongKey.status == 4, "\(wrongKey.stderr)")

            // The network unplugged: queries answer from the store.
            server.stop()
            let count = try await SatchelProcess.run(
                ["offline", "query", config, "Products", "--count", "--filter", "Stock eq 4242"],
                environment: environment)
            #expect(count.status == 0, "\(count.stderr)")
            #expect(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
            let status = try await SatchelProcess.run(["offline", "status", config], environment: environment)
            #expect(status.stdoutText.contains("encrypted: yes") && status.stdoutText.contains("pending requests: 0"))

            let remove = try await SatchelProcess.run(["offline", "remove", config], environment: environment)
            #expect(remove.status == 0)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("shop.store").path))
        }

        @Test func keyFileKeepsTheStoreKey() async throws {
            let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
            defer { server.stop() }
            let (folder, config) = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try """
            [endpoint]
            url = \(server.serviceURL.absoluteString)
            store = shop.store

            [categories]
            query = Categories
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let keys = folder.appendingPathComponent("keys").path
            let environment = ["SATCHEL_KEY_PASSCODE": "1234"]
            let open = try await SatchelProcess.run(
                ["offline", "open", config, "--key-file", keys], environment: environment)
            #expect(open.status == 0, "\(open.stderr)")
            let mode = try FileManager.default.attributesOfItem(atPath: keys)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // The kept key opens the store again, with no passphrase anywhere.
            let status = try await SatchelProcess.run(
                ["offline", "status", config, "--key-file", keys], environment: environment)
            #expect(status.status == 0 && status.stdoutText.contains("encrypted: yes"), "\(status.stderr)")
            // A wrong passcode opens neither the key file nor the store; without the passcode the command says so.
            let wrong = try await SatchelProcess.run(
                ["offline", "status", config, "--key-file", keys], environment: ["SATCHEL_KEY_PASSCODE": "4321"])
            #expect(wrong.status == 4, "\(wrong.stderr)")
            let none = try await SatchelProcess.run(["offline", "status", config, "--key-file", keys])
            #expect(none.status == 2 && none.stderr.contains("SATCHEL_KEY_PASSCODE"), "\(none.stderr)")
        }

        /// `get` (properties and media content), bindings to an entity created offline, transaction ids and upload
        /// categories from the command line, content changed offline, `indexed_type` and `track_deltas` in the
        /// file, and `close`; results checked on the server.
        @Test func getLinksCategoriesMediaClose() async throws {
            let server = try await ODataPyServer.start(maxPageSize: 20, timeout: .seconds(60))
            defer { server.stop() }
            let (folder, config) = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try """
            [endpoint]
            url = \(server.serviceURL.absoluteString)
            store = shop.store
            indexed_type = Satchel.Shop.Product: Price DESC, Name

            [products]
            query = Products?$filter=ID le 20
            track_deltas = NEVER

            [categories]
            query = Categories

            [documents]
            query = Documents
            streams = yes
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let environment = ["SATCHEL_STORE_PASSPHRASE": "cli secret"]
            func satchel(_ arguments: String...) async throws -> SatchelResult {
                let result = try await SatchelProcess.run(["offline"] + arguments, environment: environment)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result
            }
            let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
            _ = try await satchel("open", config)

            let got = try await satchel("get", config, "Products", "3", "--select", "Name")
            #expect(got.stdoutText.contains(#""Name":"Product 003""#) && !got.stdoutText.contains("Price"))
            let content = folder.appendingPathComponent("readme.txt")
            _ = try await satchel("get", config, "Documents", "1", "--media-to", content.path)
            #expect(try Data(contentsOf: content) == Data("Satchel test document one\n".utf8))

            // Categories and transactions.
            _ = try await satchel("update", config, "Products", "4", "--json", #"{"Stock": 44}"#, "--category", "now")
            _ = try await satchel("update", config, "Products", "5", "--json", #"{"Stock": 55}"#, "--transaction", "t1")
            _ = try await satchel(
                "create", config, "Products", "--json", #"{"ID": 9001, "Name": "in t1"}"#, "--transaction", "t1")
            let queued = try await satchel("requests", config)
            #expect(queued.stdoutText.contains("category=now"), "\(queued.stdoutText)")
            #expect(queued.stdoutText.components(separatedBy: "transaction=t1").count == 3, "\(queued.stdoutText)")
            let some = try await satchel("upload", config, "--category", "now")
            #expect(some.stdoutText.contains("sent: 1,"), "\(some.stdoutText)")
            #expect(try await service.entity("Products", key: .single(.int(4)))["Stock"]?.intValue == 44)
            #expect(try await service.entity("Products", key: .single(.int(5)))["Stock"]?.intValue != 55)

            // A category created offline (the server assigns its key) and a product linked to it.
            let created = try await satchel("create", config, "Categories", "--json", #"{"Name": "from the CLI"}"#)
            let id = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst()
            _ = try await satchel(
                "create", config, "Products", "--json", #"{"ID": 9002, "Name": "linked"}"#, "--bind",
                "Category=Categories(satchel_eid=\(id))")
            // Content changed offline.
            let notes = folder.appendingPathComponent("notes.txt")
            try Data("changed from the CLI\n".utf8).write(to: notes)
            _ = try await satchel(
                "update", config, "Documents", "2", "--media", notes.path, "--content-type", "text/plain")
            let rest = try await satchel("upload", config)
            #expect(rest.stdoutText.contains("sent: 5, failed: 0"), "\(rest.stdoutText)")
            #expect(try await service.entity("Products", key: .single(.int(5)))["Stock"]?.intValue == 55)
            let category = try await service.entity(
                ODataPath("Products").key(.single(.int(9002))).navigate("Category"))
            #expect(category["Name"] == .string("from the CLI"))
            #expect(try await service.rawValue(ODataPath("Documents").key(.single(.int(2)))) == Data(contentsOf: notes))

            let closed = try await satchel("close", config)
            #expect(closed.stdoutText.hasPrefix("closed: "), "\(closed.stdoutText)")
            let wal = folder.appendingPathComponent("shop.store-wal").path
            #expect(((try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0) == 0)

            // A bad indexed_type or track_deltas is refused with its line.
            try "[endpoint]\nurl = http://127.0.0.1:1/\nindexed_type = NoColon\n[q]\nquery = X\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            let bad = try await SatchelProcess.run(["offline", "status", config], environment: environment)
            #expect(bad.status != 0 && bad.stderr.contains("line 3"), "\(bad.stderr)")
        }
    }
}
