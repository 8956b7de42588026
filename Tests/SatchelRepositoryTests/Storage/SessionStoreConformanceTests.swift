import Foundation
import Testing

@testable import SatchelRepository

/// The same cases against every ``SessionStore``: memory, SQLite and PostgreSQL.
@Suite("SessionStore conformance")
struct SessionStoreConformanceTests {
    func withSessions(_ backend: Backend, _ body: (any SessionStore) async throws -> Void) async throws {
        try await withStore(backend) { store in
            try await body(try #require(store as? any SessionStore, "\(backend) keeps no sessions"))
        }
    }

    @Test("the first secret stored is everyone's", arguments: Backend.allCases)
    func secrets(backend: Backend) async throws {
        try await withSessions(backend) { (sessions) async throws in
            let first = try await sessions.sharedSecret(name: "xsrf", proposed: [1, 2, 3, 0, 255])
            #expect(first == [1, 2, 3, 0, 255])
            #expect(try await sessions.sharedSecret(name: "xsrf", proposed: [9, 9]) == first)
            #expect(try await sessions.sharedSecret(name: "other", proposed: [7]) == [7])
            try await sessions.replaceSecret(name: "xsrf", value: [4, 5])
            #expect(try await sessions.sharedSecret(name: "xsrf", proposed: [9]) == [4, 5])
        }
    }

    @Test(arguments: Backend.allCases)
    func sessions(backend: Backend) async throws {
        try await withSessions(backend) { (sessions) async throws in
            let alice = StoredSession(digest: "d-alice", user: "alice", expires: time(100))
            try await sessions.startSession(alice)
            try await sessions.startSession(StoredSession(digest: "d-bob", user: "bob", expires: time(50)))
            #expect(try await sessions.session(digest: "d-alice") == alice)
            #expect(try await sessions.session(digest: "nobody") == nil)
            try await sessions.extendSession(digest: "d-alice", until: time(200))
            #expect(try await sessions.session(digest: "d-alice")?.expires == time(200))
            #expect(try await sessions.expireSessions(before: time(60)) == 1)
            #expect(try await sessions.session(digest: "d-bob") == nil)
            #expect(try await sessions.endSession(digest: "d-alice"))
            #expect(try await !sessions.endSession(digest: "d-alice"))
            try await sessions.extendSession(digest: "d-alice", until: time(300))
            #expect(try await sessions.session(digest: "d-alice") == nil, "an ended session is not brought back")
        }
    }

    @Test("failed logins are counted, refused attempts are not, old counts start again", arguments: Backend.allCases)
    func loginFailures(backend: Backend) async throws {
        try await withSessions(backend) { (sessions) async throws in
            let keys = ["user:alice", "source:1.2.3.4"]
            for attempt in 1...3 {
                let (admitted, seen) = try await sessions.admitLogin(
                    keys: keys, at: time(Int64(attempt)), forgetBefore: time(0)
                ) { _ in true }
                #expect(admitted)
                #expect(seen["user:alice"]?.count == (attempt == 1 ? nil : attempt - 1))
            }
            // Refused: nothing counted, and the counts are answered.
            let refused = try await sessions.admitLogin(keys: keys, at: time(10), forgetBefore: time(0)) { _ in false }
            #expect(!refused.admitted)
            #expect(
                refused.failures == [
                    "user:alice": LoginFailures(count: 3, last: time(3)),
                    "source:1.2.3.4": LoginFailures(count: 3, last: time(3)),
                ])
            // A success clears the user's count and takes one back from the source's.
            try await sessions.settleLogin(clearing: ["user:alice"], takingBack: ["source:1.2.3.4"])
            let after = try await sessions.admitLogin(keys: keys, at: time(20), forgetBefore: time(0)) { _ in false }
            #expect(after.failures == ["source:1.2.3.4": LoginFailures(count: 2, last: time(3))])
            // A count whose last failure is older than the cutoff starts again at one.
            _ = try await sessions.admitLogin(keys: ["source:1.2.3.4"], at: time(30), forgetBefore: time(25)) { _ in
                true
            }
            let restarted = try await sessions.admitLogin(keys: keys, at: time(31), forgetBefore: time(0)) { _ in false
            }
            #expect(restarted.failures["source:1.2.3.4"] == LoginFailures(count: 1, last: time(30)))
            try await sessions.forgetLoginFailures(before: time(31))
            let forgotten = try await sessions.admitLogin(keys: keys, at: time(32), forgetBefore: time(0)) { _ in false
            }
            #expect(forgotten.failures.isEmpty)
        }
    }

    @Test("of many attempts at once, only as many as the rule allows are let through", arguments: Backend.allCases)
    func concurrentAttempts(backend: Backend) async throws {
        try await withSessions(backend) { (sessions) async throws in
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await sessions.admitLogin(
                            keys: ["user:alice", "source:10.0.0.\(index)"], at: time(1), forgetBefore: time(0)
                        ) { seen in (seen["user:alice"]?.count ?? 0) < 5 }.admitted
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(admitted == 5)
        }
    }
}
