import Foundation
import SatchelCMIS
import Testing

@testable import SatchelRepository

@Suite("Engine: throughput")
struct ThroughputTests {
    /// getObject is one store read plus cached types, paths and ACEs: 5,000 reads of documents five folders deep in
    /// the shared repository must be quick even in a debug build.
    @Test func getObjectIsCheap() async throws {
        let f = try await EngineFixture()
        var parent = try await f.root(f.shared, f.alice)
        for level in 0..<5 { parent = try await f.folder("level\(level)", in: parent, f.shared, f.alice).requiredId }
        var ids: [String] = []
        for index in 0..<50 {
            ids.append(try await f.document("doc\(index)", in: parent, f.shared, f.alice, text: "x").requiredId)
        }
        let clock = ContinuousClock()
        var read = 0
        let elapsed = try await clock.measure {
            for round in 0..<5_000 {
                let object = try await f.get(f.shared, ids[round % ids.count], f.bob)
                if object.id != nil { read += 1 }
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("getObject: \(Int(Double(read) / seconds)) objects/s (debug build, memory store)")
        #expect(read == 5_000)
        #expect(seconds < 20)
    }
}
