import Foundation
import SatchelNuxeo

/// Nuxeo REST answers (`NuxeoEntity(json:)`), by their `entity-type`.
///
/// - What cannot be read throws a ``NuxeoError`` of code `.invalidResponse` (or is the server's own exception,
///   read as `.exception`); never a trap.
/// - What reads, reads the same a second time.
enum NuxeoFuzzTarget {
    static let target = FuzzTarget(
        name: "nuxeo", summary: "Nuxeo REST answers: NuxeoEntity(json:)",
        seedFolders: ["Tests/SatchelNuxeoTests/Fixtures"], seedExtensions: ["json"], check: check)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("nuxeo", "\(message): \(bytes.excerpt())") }
        let data = Data(bytes)
        let entity: NuxeoEntity
        do {
            entity = try NuxeoEntity(json: data)
        } catch {
            guard error.code == .invalidResponse else {
                throw violation("a NuxeoError of code \(error.code), not .invalidResponse: \(error)")
            }
            return
        }
        guard (try? NuxeoEntity(json: data)) == entity else {
            throw violation("read twice, the answer gave two different entities")
        }
    }
}
