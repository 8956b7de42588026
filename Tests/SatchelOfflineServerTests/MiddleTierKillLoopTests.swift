import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelServer
import SatchelStore
import SatchelTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `satchel serve --offline` as a child process, killed with SIGKILL at random moments while three clients upload
/// through it to odatapy, which ignores repeatability headers: whatever a client queued reaches the back-end exactly
/// once, or (a creation without its key whose outcome the middle tier cannot know) waits in that client's
/// ErrorArchive; nothing is created twice.
@Suite("Offline middle tier: killed while clients upload")
struct MiddleTierKillLoopTests {
    static let users = ["ada": "ada-secret", "bob": "bob-secret", "cy": "cy-secret"]

    @Test("50 kills of the middle tier during uploads: nothing lost, nothing applied twice")
    func killedDuringUploads() async throws {
        let satchel = try #require(
            BuiltExecutable.find("satchel"),
            "the satchel binary is not built next to the tests (swift build --build-tests)")
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-tier-kill-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ini = folder.appendingPathComponent("app.ini")
        try """
        [endpoint]
        name = shop
        backend_url = \(server.serviceURL.absoluteString)

        [defining_query]
        name = mine
        query = /Products?$filter=ID ge 8000000
        """.write(to: ini, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: ini.path)
        var entries: [String: PasswordHash] = [:]
        for (user, password) in Self.users { entries[user] = try PasswordHash.make(password: password, rounds: 1_000) }
        let usersFile = folder.appendingPathComponent("users.json")
        try UsersFile(entries: entries).save(to: usersFile)
        let data = folder.appendingPathComponent("data")
        let port = try LoopbackPort.free()
        let root = URL(string: "http://127.0.0.1:\(port)/offline/shop/")!

        /// Starts the middle tier on its port and data folder; returns once it answers.
        func startTier() async throws -> ChildProcess.Running {
            let running = try ChildProcess.start(
                satchel,
                [
                    "serve", "--host", "127.0.0.1", "--port", String(port), "--data", data.path, "--users",
                    usersFile.path, "--offline", ini.path,
                ])
            let health = HTTPClient(configuration: .init(timeout: .seconds(2), retry: .never))
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                if let answer = try? await health.send(
                    HTTPClient.Request(.get, url: URL(string: "http://127.0.0.1:\(port)/health")!)),
                    answer.status == 200
                {
                    return running
                }
                guard running.isRunning else { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            await running.stop(grace: .zero)
            throw ServerError("the middle tier did not answer /health on port \(port)")
        }

        var tier = try await startTier()
        var stores: [String: OfflineStore] = [:]
        for (index, user) in Self.users.keys.sorted().enumerated() {
            let service = ODataService(
                configuration: .init(
                    serviceURL: root, http: HTTPClient.Configuration(timeout: .seconds(10), retry: .never),
                    auth: [BasicAuth(user: user, password: Self.users[user]!)]))
            let store = OfflineStore(
                configuration: .init(
                    service: service, path: folder.appendingPathComponent("\(user).store").path,
                    definingQueries: [.init(name: "mine", query: "Products?$filter=ID ge 8000000")],
                    key: try StoreKey.raw(Data(repeating: UInt8(index + 1), count: 32)),
                    upload: .batch(maximumRequests: 4)))
            try await store.open()
            stores[user] = store
        }

        // Keyed creations count down from 8,000,000 per user (never where the back-end assigns keys); creations
        // without a key are categories named for the user and their number.
        var keyed: [String: [Int]] = [:]
        var unkeyed: [String: [String]] = [:]
        var counter = 0
        var kills = 0
        let deadline = ContinuousClock.now + .seconds(240)
        while kills < 50 {
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(kills) kills within 240 s")
                break
            }
            for (index, user) in Self.users.keys.sorted().enumerated() {
                let store = try #require(stores[user])
                for _ in 0..<2 {
                    counter += 1
                    let id = 8_000_000 + index * 100_000 + counter
                    _ = try await store.create(
                        "Products",
                        ODataEntity(properties: [
                            "ID": .int(Int64(id)), "Name": .string("\(user) \(id)"), "CategoryID": .int(1),
                        ]))
                    keyed[user, default: []].append(id)
                }
                counter += 1
                let name = "\(user)-category-\(counter)"
                _ = try await store.create("Categories", ODataEntity(properties: ["Name": .string(name)]))
                unkeyed[user, default: []].append(name)
            }
            let uploads = stores.values.map { store in Task { _ = try? await store.upload() } }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...250)))
            tier.signal(SIGKILL)
            _ = await tier.waitForExit()
            for upload in uploads { await upload.value }
            kills += 1
            tier = try await startTier()
        }

        // Each client uploads what is left with the middle tier running; then the back-end and the clients agree.
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        for (user, store) in stores {
            // A request whose outcome is unknown stays in the queue, held, beside its ErrorArchive entry.
            func pending() async throws -> [OfflineRequest] { try await store.requests().filter { !$0.failed } }
            for _ in 0..<5 where try await !pending().isEmpty {
                _ = try await store.upload()
            }
            #expect(try await pending().isEmpty, "\(user)'s queue still has requests to send")
            let held = try await store.requests().map(\.requestID)
            #expect(
                Set(held) == Set(try await store.errors().map(\.requestID)), "\(user): held requests without errors")
        }
        let created = try await direct.entities(
            "Products", query: ODataQuery().filter(.property("ID") >= .literal(.int(8_000_000)))
        )
        .collect()
        let createdIDs = created.compactMap { $0["ID"]?.intValue.map(Int.init) }
        #expect(Set(createdIDs).count == createdIDs.count)
        let categories = try await direct.entities("Categories").collect().compactMap { $0["Name"]?.stringValue }
        var archived = 0
        for (user, store) in stores {
            let errors = try await store.errors()
            // Keyed creations are never in doubt: the middle tier looks the key up. Every one is on the back-end.
            #expect(
                Set(createdIDs).isSuperset(of: keyed[user] ?? []),
                "\(user): missing \(Set(keyed[user] ?? []).subtracting(createdIDs).sorted())")
            for error in errors {
                #expect(error.entitySet == "Categories" && error.code == "satchel.outcomeUnknown", "\(user): \(error)")
            }
            archived += errors.count
            for name in unkeyed[user] ?? [] {
                let onBackend = categories.filter { $0 == name }.count
                #expect(onBackend <= 1, "\(name) was created \(onBackend) times")
                let inArchive = errors.contains { ($0.requestBody ?? "").contains(name) }
                #expect(onBackend == 1 || inArchive, "\(name) is neither on the back-end nor in the ErrorArchive")
            }
            try await store.close()
        }
        await tier.stop()
        print("middle tier kill loop: \(kills) kills, \(createdIDs.count) keyed creations, \(archived) in doubt")
    }
}
