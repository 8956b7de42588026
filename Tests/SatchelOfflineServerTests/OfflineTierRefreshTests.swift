import Foundation
import SatchelHTTP
import SatchelOffline
import SatchelOfflineServer
import SatchelRepository
import SatchelTestSupport
import Synchronization
import Testing

/// `refresh_interval` on the middle tier's own clock: within it every read is served from the row state, past it
/// the next read goes to the back-end; concurrent first reads share one back-end read.
@Suite("Offline middle tier: refresh interval")
struct OfflineTierRefreshTests {
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: Double) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    @Test("a 1-minute refresh_interval: one back-end read within the minute, the next one after it")
    func interval() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let proxy = try FaultyTCPProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        let ini = """
            [endpoint]
            name = shop
            backend_url = \(proxy.url.absoluteString)/odata
            service_user = svc
            service_password_env = SVC

            [defining_query]
            name = categories
            query = /Categories
            is_shared_data = Y
            refresh_interval = 1
            """
        let application = try OfflineApplicationConfiguration(
            text: ini, name: "app.ini", folder: FileManager.default.temporaryDirectory, environment: ["SVC": "x"])
        let clock = Clock()
        let tier = try OfflineTier(
            applications: [application], store: MemoryMetadataStore(), clock: { clock.now.withLock { $0 } })
        let reads = { proxy.requestHeads.filter { $0.hasPrefix("GET /odata/Categories") }.count }
        func read(_ user: String) async -> OfflineTierResponse {
            await tier.handle(
                endpoint: "shop",
                OfflineTierRequest(
                    method: "GET", path: "Categories", user: user, password: "pw",
                    root: "http://127.0.0.1/offline/shop/"))
        }
        // Ten users at once: one back-end read.
        let answers = await withTaskGroup(of: Int.self) { group in
            for index in 0..<10 { group.addTask { await read("user\(index)").status } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0 == 200 }, "\(answers)")
        #expect(reads() == 1)
        clock.advance(30)
        #expect(await read("ada").status == 200)
        #expect(reads() == 1, "within the interval: served from the row state")
        clock.advance(31)
        let later = await read("bob")
        #expect(later.status == 200 && String(decoding: later.body, as: UTF8.self).contains("@odata.deltaLink"))
        #expect(reads() == 2, "past the interval: read again")
    }

    @Test("requests the middle tier cannot serve get OData errors: an unknown endpoint, a back-end down, no password")
    func refusals() async throws {
        let ini = """
            [endpoint]
            name = shop
            backend_url = http://127.0.0.1:9/odata

            [defining_query]
            name = products
            query = /Products
            """
        let application = try OfflineApplicationConfiguration(
            text: ini, name: "app.ini", folder: FileManager.default.temporaryDirectory)
        let tier = try OfflineTier(applications: [application], store: MemoryMetadataStore())
        let unknown = await tier.handle(
            endpoint: "nope",
            OfflineTierRequest(
                method: "GET", path: "Products", user: "ada", password: "pw", root: "http://h/offline/nope/"))
        #expect(unknown.status == 404 && String(decoding: unknown.body, as: UTF8.self).contains("shop"))
        // The back-end is down: a 502 naming the endpoint, not a hang or a crash.
        let down = await tier.handle(
            endpoint: "shop",
            OfflineTierRequest(
                method: "GET", path: "Products", user: "ada", password: "pw", root: "http://h/offline/shop/"))
        #expect(down.status >= 500 && String(decoding: down.body, as: UTF8.self).contains("shop"), "\(down.status)")
        // Signed in without a password (a cookie or a token): the back-end needs the user's own credentials.
        let noPassword = await tier.handle(
            endpoint: "shop",
            OfflineTierRequest(
                method: "GET", path: "Products", user: "eve", password: nil, root: "http://h/offline/shop/"))
        #expect(noPassword.status == 401, "\(noPassword.status)")
    }

    @Test("ledger entries are kept for local_change_expiry hours after they are done, then removed")
    func ledgerExpiry() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let ini = """
            [endpoint]
            name = shop
            backend_url = \(server.serviceURL.absoluteString)
            local_change_expiry = 2

            [defining_query]
            name = products
            query = /Products
            """
        let application = try OfflineApplicationConfiguration(
            text: ini, name: "app.ini", folder: FileManager.default.temporaryDirectory)
        let clock = Clock()
        let store = MemoryMetadataStore()
        let tier = try OfflineTier(applications: [application], store: store, clock: { clock.now.withLock { $0 } })
        func post(_ id: String, _ key: Int) async -> Int {
            await tier.handle(
                endpoint: "shop",
                OfflineTierRequest(
                    method: "POST", path: "Products",
                    headers: [
                        "Repeatability-Request-ID": id, "Repeatability-First-Sent": "Sat, 28 Nov 2026 10:00:00 GMT",
                        "Content-Type": "application/json",
                    ],
                    body: Data(#"{"ID":\#(key),"Name":"n","CategoryID":1}"#.utf8), user: "ada", password: "pw",
                    root: "http://127.0.0.1/offline/shop/")
            ).status
        }
        let first = OfflineLedgerKey(endpoint: "shop", user: "ada", requestID: "e1")
        #expect(await post("e1", 9400) == 201)
        clock.advance(3600 + 1)
        #expect(await post("e2", 9401) == 201)
        #expect(try await store.uploadEntry(first)?.state == .done, "one hour old: kept")
        clock.advance(3600 + 1)
        #expect(await post("e3", 9402) == 201)
        #expect(try await store.uploadEntry(first) == nil, "over two hours old: removed")
        #expect(try await store.uploadEntry(OfflineLedgerKey(endpoint: "shop", user: "ada", requestID: "e3")) != nil)
    }
}
