import Foundation
import Testing

/// Reads the OpenCMIS InMemory captures copied into the test bundle (`.copy("Fixtures")`).
enum Fixture {
    struct Missing: Error, CustomStringConvertible {
        let name: String
        let looked: String
        var description: String { "fixture \(name) is missing (looked in \(looked))" }
    }

    /// The bytes of `Fixtures/cmis-opencmis/<name>`; throws (failing the test) when the file is missing.
    static func data(_ name: String) throws -> Data {
        guard let base = Bundle.module.resourceURL else { throw Missing(name: name, looked: "<no resource URL>") }
        let url = base.appendingPathComponent("Fixtures/cmis-opencmis/\(name)")
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("fixture \(name) is missing at \(url.path)")
            throw Missing(name: name, looked: url.path)
        }
        return try Data(contentsOf: url)
    }
}
