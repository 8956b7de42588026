import Crypto
import Foundation
import Testing

@testable import SatchelRepository

/// The offline middle tier's row state, the same cases against every store that keeps it (docs/offline-server.md,
/// "Reads and deltas"): versions rise only when something changed, a delta carries only what changed, removals
/// are remembered until forgotten, scopes never see each other's rows.
@Suite("OfflineTierStore conformance")
struct OfflineTierStoreConformanceTests {
    static let backends = Backend.allCases

    func withTier(_ backend: Backend, _ body: (any OfflineTierStore) async throws -> Void) async throws {
        try await withStore(backend) { store in
            try await body(try #require(store as? any OfflineTierStore, "\(backend) keeps no offline tier"))
        }
    }

    static func row(_ key: String, _ text: String) -> OfflineRow {
        let body = Data(text.utf8)
        return OfflineRow(key: key, hash: Data(SHA256.hash(data: body)), body: body)
    }

    static let products = OfflineQueryID(endpoint: "shop", query: "products", scope: OfflineQueryID.shared)

    @Test(
        "full reads: versions rise only on change; a delta carries only the changed rows and the removed keys",
        arguments: backends)
    func fullReads(backend: Backend) async throws {
        try await withTier(backend) { tier in
            let query = Self.products
            #expect(try await tier.offlineState(query) == nil)
            let first = try await tier.applyFullRead(
                query, rows: (0..<1000).map { Self.row("k\($0)", "v\($0)") }, at: time(1), backendDeltaLink: nil)
            #expect(first.added == 1000 && first.changed == 0 && first.removed == 0)
            #expect(first.state.version == 1 && first.state.rows == 1000)
            #expect(first.state.bytes == Int64((0..<1000).map { "v\($0)".utf8.count }.reduce(0, +)))

            // The same read again: nothing changed, the version stays, only the refresh time moves.
            let same = try await tier.applyFullRead(
                query, rows: (0..<1000).map { Self.row("k\($0)", "v\($0)") }, at: time(2), backendDeltaLink: "d1")
            #expect(same.state.version == 1 && same.added + same.changed + same.removed == 0)
            #expect(same.state.refreshedAt == time(2) && same.state.backendDeltaLink == "d1")

            // 10 changed, 5 gone, 3 new.
            var rows = (0..<1000).map { Self.row("k\($0)", $0 < 10 ? "changed \($0)" : "v\($0)") }
            rows.removeAll { ["k500", "k501", "k502", "k503", "k504"].contains($0.key) }
            rows += (0..<3).map { Self.row("new\($0)", "n\($0)") }
            let second = try await tier.applyFullRead(query, rows: rows, at: time(3), backendDeltaLink: nil)
            #expect(second.added == 3 && second.changed == 10 && second.removed == 5)
            #expect(second.state.version == 2 && second.state.rows == 998)

            let delta = try await tier.offlineChanges(query, since: 1, after: nil, limit: 100)
            #expect(delta.version == 2 && delta.continuation == nil)
            #expect(Set(delta.rows.map(\.key)) == Set((0..<10).map { "k\($0)" } + ["new0", "new1", "new2"]))
            #expect(delta.rows.first { $0.key == "k3" }?.body == Data("changed 3".utf8))
            #expect(delta.removedKeys == ["k500", "k501", "k502", "k503", "k504"])
            // A client at the current version has nothing to fetch; one at 0 receives every live row.
            let none = try await tier.offlineChanges(query, since: 2, after: nil, limit: 100)
            #expect(none.rows.isEmpty && none.removedKeys.isEmpty && none.version == 2)

            // Paged: every change exactly once, whatever the page size.
            var seen: [String] = []
            var continuation: String?
            repeat {
                let page = try await tier.offlineChanges(query, since: 0, after: continuation, limit: 7)
                seen += page.rows.map(\.key) + page.removedKeys
                continuation = page.continuation
            } while continuation != nil
            #expect(seen.count == 1003 && Set(seen).count == 1003, "998 rows and 5 removals")

            // The current rows, in key order, paged.
            let firstPage = try await tier.offlineRows(query, after: nil, limit: 3)
            #expect(firstPage.map(\.key) == ["k0", "k1", "k10"])
            let next = try await tier.offlineRows(query, after: "k10", limit: 2)
            #expect(next.map(\.key) == ["k100", "k101"])
            await #expect(throws: OfflineTierError.self) {
                _ = try await tier.offlineChanges(query, since: 0, after: "not a continuation", limit: 5)
            }
        }
    }

    @Test(
        "back-end deltas; a removed row that comes back; removals forgotten make older tokens expire",
        arguments: backends)
    func deltasAndExpiry(backend: Backend) async throws {
        try await withTier(backend) { tier in
            let query = Self.products
            _ = try await tier.applyFullRead(
                query, rows: [Self.row("a", "1"), Self.row("b", "2"), Self.row("c", "3")], at: time(1),
                backendDeltaLink: "L1")
            // A delta: b changed, c removed, d added, an unknown key removed (ignored), a unchanged.
            let delta = try await tier.applyDelta(
                query, upserts: [Self.row("a", "1"), Self.row("b", "2b"), Self.row("d", "4")],
                removedKeys: ["c", "zz"], at: time(2), backendDeltaLink: "L2")
            #expect(delta.added == 1 && delta.changed == 1 && delta.removed == 1 && delta.state.version == 2)
            #expect(delta.state.backendDeltaLink == "L2" && delta.state.rows == 3)
            let changes = try await tier.offlineChanges(query, since: 1, after: nil, limit: 10)
            #expect(changes.rows.map(\.key).sorted() == ["b", "d"] && changes.removedKeys == ["c"])

            // c comes back: a client at version 2 receives it as a row again.
            let back = try await tier.applyDelta(
                query, upserts: [Self.row("c", "3 again")], removedKeys: [], at: time(3), backendDeltaLink: "L3")
            #expect(back.added == 1 && back.state.version == 3)
            let again = try await tier.offlineChanges(query, since: 2, after: nil, limit: 10)
            #expect(again.rows.map(\.key) == ["c"] && again.removedKeys.isEmpty)

            // d removed at version 4 (time 4); forgetting removals made before time 5 expires tokens older than 4.
            _ = try await tier.applyDelta(query, upserts: [], removedKeys: ["d"], at: time(4), backendDeltaLink: nil)
            #expect(try await tier.forgetRemovals(query, before: time(5)) == 1)
            #expect(try await tier.offlineState(query)?.oldestVersion == 4)
            await #expect(throws: OfflineTierError.self) {
                _ = try await tier.offlineChanges(query, since: 3, after: nil, limit: 10)
            }
            let fromFour = try await tier.offlineChanges(query, since: 4, after: nil, limit: 10)
            #expect(fromFour.rows.isEmpty && fromFour.removedKeys.isEmpty)
        }
    }

    @Test("a key read twice is stored as it came last", arguments: backends)
    func lastCopyWins(backend: Backend) async throws {
        try await withTier(backend) { tier in
            let query = OfflineQueryID(endpoint: "shop", query: "twice", scope: OfflineQueryID.shared)
            _ = try await tier.applyFullRead(
                query, rows: [Self.row("1", "older"), Self.row("1", "newer")], at: time(1), backendDeltaLink: nil)
            #expect(try await tier.offlineRows(query, after: nil, limit: 10).map(\.body) == [Data("newer".utf8)])
            _ = try await tier.applyDelta(
                query, upserts: [Self.row("1", "first"), Self.row("1", "last")], removedKeys: [], at: time(2),
                backendDeltaLink: nil)
            #expect(try await tier.offlineRows(query, after: nil, limit: 10).map(\.body) == [Data("last".utf8)])
        }
    }

    @Test("scopes and queries keep their rows apart", arguments: backends)
    func scopes(backend: Backend) async throws {
        try await withTier(backend) { tier in
            let alice = OfflineQueryID(endpoint: "shop", query: "orders", scope: OfflineQueryID.user("alice"))
            let bob = OfflineQueryID(endpoint: "shop", query: "orders", scope: OfflineQueryID.user("bob"))
            _ = try await tier.applyFullRead(
                alice, rows: [Self.row("1", "alice's")], at: time(1), backendDeltaLink: nil)
            _ = try await tier.applyFullRead(bob, rows: [Self.row("2", "bob's")], at: time(1), backendDeltaLink: nil)
            #expect(try await tier.offlineRows(alice, after: nil, limit: 10).map(\.key) == ["1"])
            #expect(try await tier.offlineChanges(bob, since: 0, after: nil, limit: 10).rows.map(\.key) == ["2"])
            // Bob's next full read removes only his own row.
            let empty = try await tier.applyFullRead(bob, rows: [], at: time(2), backendDeltaLink: nil)
            #expect(empty.removed == 1 && empty.state.rows == 0)
            #expect(try await tier.offlineState(alice)?.rows == 1)
            #expect(try await tier.offlineRows(Self.products, after: nil, limit: 10).isEmpty)
            // Shared rows are under their own scope, stored as it is: no other scope text reaches them (a scope with
            // a NUL byte was cut short by SQLite and read back as "").
            let shared = OfflineQueryID(endpoint: "shop", query: "orders", scope: OfflineQueryID.shared)
            _ = try await tier.applyFullRead(
                shared, rows: [Self.row("3", "everyone's")], at: time(3), backendDeltaLink: nil)
            for other in ["", OfflineQueryID.user("shared"), "user:"] {
                #expect(
                    try await tier.offlineState(OfflineQueryID(endpoint: "shop", query: "orders", scope: other)) == nil,
                    "\(other.debugDescription)")
            }
            #expect(try await tier.offlineRows(shared, after: nil, limit: 10).map(\.key) == ["3"])
        }
    }

    @Test("sync points: the last version each client received, listed with every query's state", arguments: backends)
    func syncPoints(backend: Backend) async throws {
        try await withTier(backend) { tier in
            let ada = OfflineQueryID(endpoint: "shop", query: "orders", scope: OfflineQueryID.user("ada"))
            _ = try await tier.applyFullRead(
                Self.products, rows: [Self.row("1", "a")], at: time(0), backendDeltaLink: nil)
            _ = try await tier.applyFullRead(
                Self.products, rows: [Self.row("1", "b")], at: time(1000), backendDeltaLink: "https://b/delta")
            _ = try await tier.applyFullRead(ada, rows: [Self.row("7", "x")], at: time(2000), backendDeltaLink: nil)
            try await tier.recordSyncPoint(Self.products, client: "bob", version: 1, at: time(500))
            try await tier.recordSyncPoint(Self.products, client: "ada", version: 1, at: time(600))
            try await tier.recordSyncPoint(Self.products, client: "ada", version: 2, at: time(1500))
            try await tier.recordSyncPoint(ada, client: "ada", version: 1, at: time(2500))
            let overview = try await tier.offlineOverview()
            // In order of endpoint, query and scope: orders before products.
            #expect(overview.map(\.query) == [ada, Self.products])
            #expect(overview[1].state.version == 2 && overview[1].state.rows == 1)
            #expect(overview[1].state.backendDeltaLink == "https://b/delta")
            #expect(
                overview[1].syncPoints == [
                    OfflineSyncPoint(client: "ada", version: 2, at: time(1500)),
                    OfflineSyncPoint(client: "bob", version: 1, at: time(500)),
                ])
            #expect(overview[0].syncPoints == [OfflineSyncPoint(client: "ada", version: 1, at: time(2500))])
        }
    }
}
