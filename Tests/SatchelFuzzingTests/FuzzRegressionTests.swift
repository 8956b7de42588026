import Foundation
import SatchelFuzzing
import Testing

/// Every fuzz target's checks over its committed inputs: the seeds (`Fuzz/Corpus/<target>` and the fixtures it
/// names) and what fuzzing found (`Fuzz/Regressions/<target>`, each a minimised input that once broke a check and
/// was fixed). Runs in the ordinary build; `scripts/fuzz` is the coverage-guided run.
@Suite("Fuzz targets: the committed inputs pass every check")
struct FuzzRegressionTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("seeds and regressions", arguments: FuzzTargets.all.map(\.name))
    func committedInputs(_ name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let seeds = target.seeds(packageRoot: Self.packageRoot)
        #expect(!seeds.isEmpty, "no seeds for \(name)")
        for seed in seeds {
            #expect(throws: Never.self, "seed \(seed.name)") { try target.check(seed.bytes) }
        }
        for regression in target.regressions(packageRoot: Self.packageRoot) {
            #expect(throws: Never.self, "regression \(regression.name)") { try target.check(regression.bytes) }
        }
    }

    @Test("a check that fails throws a violation naming the target")
    func violationsAreReported() {
        let target = FuzzTarget(name: "demo", summary: "always fails") { bytes throws(FuzzViolation) in
            throw FuzzViolation("demo", "\(bytes.count) bytes")
        }
        #expect(throws: FuzzViolation.self) { try target.check([1, 2, 3]) }
        #expect(FuzzTargets.all.count == Set(FuzzTargets.all.map(\.name)).count)
    }
}
