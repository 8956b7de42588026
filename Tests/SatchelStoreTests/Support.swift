import Foundation
import GRDB
import SatchelStore
import Testing

/// A fresh folder under the system's temp folder, removed when the value is released.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Every file in the folder and their bytes.
    func files() throws -> [(name: String, bytes: Data)] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted().map {
            ($0, try Data(contentsOf: url.appendingPathComponent($0)))
        }
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A key fast to derive (tests open many stores).
let testKey = try! StoreKey.raw(Data((0..<32).map { UInt8($0) }))
let otherKey = try! StoreKey.raw(Data((0..<32).map { UInt8(255 - $0) }))

/// Strings that must never be found on disk in the clear.
let marker = "MARKER-4d9c1e-plaintext"

func containsMarker(_ data: Data) -> Bool {
    data.range(of: Data(marker.utf8)) != nil || data.range(of: Data("CREATE TABLE".utf8)) != nil
        || data.range(of: Data("SQLite format 3".utf8)) != nil
}

func writeMarkers(_ db: Database, count: Int, from start: Int = 0) throws {
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS item(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    try db.execute(sql: "CREATE INDEX IF NOT EXISTS item_text ON item(text)")
    for i in start..<start + count {
        try db.execute(
            sql: "INSERT INTO item(id, text) VALUES (?, ?)",
            arguments: [i, "\(marker) \(i) " + String(repeating: "x", count: 200)])
    }
}

func expectStoreError(
    _ code: StoreError.Code, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
)
    -> StoreError?
{
    do {
        try body()
        Issue.record("expected \(code), nothing thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as StoreError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
