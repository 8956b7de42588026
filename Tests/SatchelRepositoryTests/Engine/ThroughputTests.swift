import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: repeated reads")
struct ThroughputTests {
    /// getObject is one store read plus cached types, paths and ACEs: 5,000 reads of documents five folders deep in
    /// the shared repository, by another user, all succeed from the caches (speed is measured by
    /// `scripts/bench-server`, not here).
    @Test func getObjectIsCheap() async throws {
        let f = try await EngineFixture()
        var parent = try await f.root(f.shared, f.alice)
        for level in 0..<5 { parent = try await f.folder("level\(level)", in: parent, f.shared, f.alice).requiredId }
        var ids: [String] = []
        for index in 0..<50 {
            ids.append(try await f.document("doc\(index)", in: parent, f.shared, f.alice, text: "x").requiredId)
        }
        var read = 0
        for round in 0..<5_000 {
            let object = try await f.get(f.shared, ids[round % ids.count], f.bob)
            if object.id != nil { read += 1 }
        }
        #expect(read == 5_000)
    }
}
