import Crypto
import Foundation
import Testing

@testable import SatchelRepository

/// The offline middle tier's upload ledger, the same cases against every store that keeps it
/// (docs/offline-server.md, "Uploads: the ledger"): a request is claimed once, a retry finds its entry, a
/// different request under the same id is told apart, users never share entries, old entries are forgotten.
@Suite("OfflineUploadLedger conformance")
struct OfflineUploadLedgerTests {
    static let backends = Backend.allCases

    func withLedger(_ backend: Backend, _ body: (any OfflineUploadLedger) async throws -> Void) async throws {
        try await withStore(backend) { store in
            try await body(try #require(store as? any OfflineUploadLedger, "\(backend) keeps no upload ledger"))
        }
    }

    static func request(_ id: String, user: String = "ada", body: String = "{}") -> OfflineLedgerRequest {
        OfflineLedgerRequest(
            key: OfflineLedgerKey(endpoint: "shop", user: user, requestID: id), method: "POST", target: "Products",
            bodyHash: Data(SHA256.hash(data: Data(body.utf8))))
    }

    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

    @Test("a request is claimed once; its retry finds the recorded answer", arguments: backends)
    func claimAndReplay(backend: Backend) async throws {
        try await withLedger(backend) { ledger in
            let request = Self.request("r1")
            #expect(try await ledger.claimUpload(request, at: Self.at(0)) == .new)
            let answer = OfflineLedgerAnswer(
                status: 201, headers: ["ETag": "W/\"1\"", "Location": "Products(7)"], body: Data("{\"ID\":7}".utf8))
            try await ledger.finishUpload(request.key, state: .done, answer: answer, at: Self.at(1))
            guard case .known(let entry) = try await ledger.claimUpload(request, at: Self.at(2)) else {
                Issue.record("a done request was claimed again")
                return
            }
            #expect(entry.state == .done && entry.answer == answer && entry.attempts == 1)
            #expect(entry.matches(request))
            // The same id with another body is not the same request.
            guard
                case .known(let other) = try await ledger.claimUpload(
                    Self.request("r1", body: "{\"x\":1}"), at: Self.at(3))
            else {
                Issue.record("a different request under a known id was claimed as new")
                return
            }
            #expect(!other.matches(Self.request("r1", body: "{\"x\":1}")))
            // Another user's request with the same id is another entry.
            #expect(try await ledger.claimUpload(Self.request("r1", user: "bob"), at: Self.at(4)) == .new)
        }
    }

    @Test("in-doubt and failed requests count their attempts and are sent again", arguments: backends)
    func attempts(backend: Backend) async throws {
        try await withLedger(backend) { ledger in
            let request = Self.request("r2")
            #expect(try await ledger.claimUpload(request, at: Self.at(0)) == .new)
            // The server died after claiming: the entry is still `sent` when the retry comes.
            guard case .known(let inDoubt) = try await ledger.claimUpload(request, at: Self.at(1)) else {
                Issue.record("an in-doubt request was claimed as new")
                return
            }
            #expect(inDoubt.state == .sent && inDoubt.attempts == 2)
            let failure = OfflineLedgerAnswer(status: 503, headers: [:], body: Data("busy".utf8))
            try await ledger.finishUpload(request.key, state: .failed, answer: failure, at: Self.at(2))
            guard case .known(let failed) = try await ledger.claimUpload(request, at: Self.at(3)) else {
                Issue.record("a failed request was claimed as new")
                return
            }
            #expect(failed.state == .failed && failed.attempts == 3 && failed.answer == failure)
            #expect(try await ledger.uploadEntry(request.key)?.state == .sent)
        }
    }

    @Test("finished entries are forgotten after their expiry; entries in doubt are kept", arguments: backends)
    func expiry(backend: Backend) async throws {
        try await withLedger(backend) { ledger in
            for id in ["a", "b", "c"] { _ = try await ledger.claimUpload(Self.request(id), at: Self.at(0)) }
            let answer = OfflineLedgerAnswer(status: 204, headers: [:], body: Data())
            try await ledger.finishUpload(Self.request("a").key, state: .done, answer: answer, at: Self.at(10))
            try await ledger.finishUpload(Self.request("b").key, state: .done, answer: answer, at: Self.at(100))
            #expect(try await ledger.forgetUploads(endpoint: "shop", finishedBefore: Self.at(50)) == 1)
            #expect(try await ledger.uploadEntry(Self.request("a").key) == nil)
            #expect(try await ledger.uploadEntry(Self.request("b").key)?.state == .done)
            #expect(try await ledger.uploadEntry(Self.request("c").key)?.state == .sent)
        }
    }
}
