import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelText

/// `ODataBenchmark --offline-upload --changes 10000`: the offline store's upload of N queued creations in `$batch`
/// requests of 100 (each creation its own changeset) and one by one, beside the same creations sent online one by
/// one through `ODataService.create`, against the benchmark's loopback server (which answers at next to no cost, so
/// the client is what is measured). Medians of `--runs` runs. The queueing itself is not timed.
///
/// (The test peers are not used here: both copy their whole store for every changeset, so that it can be rolled
/// back — about 100 ms a changeset for odatapy.)
enum OfflineUploadBenchmark {
    static func run(changes: Int, runs: Int, only: String?) async throws {
        let server = try LoopbackServer(pages: Pages(distinctPages: 1, pageSize: 1))
        print("\(changes) creations of a Product; loopback server; median of \(runs) runs")
        var rates: [String: [Double]] = [:]
        let methods = ["online, one by one", "offline upload, $batch of 100", "offline upload, one by one"].filter {
            only == nil || $0.localizedCaseInsensitiveContains(only ?? "")
        }
        for run in 1...runs {
            for method in methods {
                let seconds = try await measure(
                    method, changes: changes, serviceURL: URL(string: server.baseURL + "/p1")!)
                let rate = Double(changes) / seconds
                rates[method, default: []].append(rate)
                print("  run \(run): \(method): \(Int(rate)) changes/s (\(String(format: "%.2f", seconds)) s)")
            }
        }
        print("")
        print("| method | changes/s (median) |")
        print("|---|---:|")
        for method in methods {
            let sorted = (rates[method] ?? []).sorted()
            print("| \(method) | \(Int(sorted[sorted.count / 2])) |")
        }
    }

    static func product(_ id: Int) -> ODataEntity {
        ODataEntity(properties: [
            "ID": .int(Int64(id)), "Name": .string("uploaded \(id)"), "Description": .string("queued offline"),
            "Price": .decimal(Decimal(id % 100) + 0.5), "Quantity": .int(Int64(id % 50)), "InStock": .bool(true),
            "ReleaseDate": .date("2026-11-26"), "ModifiedAt": .dateTimeOffset(Date(), offsetMinutes: 0),
            "ProductGuid": .guid(UUID()),
        ])
    }

    static func measure(_ method: String, changes: Int, serviceURL: URL) async throws -> Double {
        let service = ODataService(
            configuration: .init(
                serviceURL: serviceURL, http: HTTPClient.Configuration(timeout: .seconds(120), retry: .never)))
        let first = 100_000
        if method.hasPrefix("online") {
            let start = ContinuousClock.now
            for id in first..<first + changes { _ = try await service.create("Products", product(id)) }
            return start.duration(to: .now).timeInterval
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-upload-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("u.store").path,
                definingQueries: [.init(name: "all", query: "Products")], key: .random(),
                upload: method.contains("$batch") ? .batch(maximumRequests: 100) : .oneByOne))
        try await store.open()
        for id in first..<first + changes { try await store.create("Products", product(id)) }
        let start = ContinuousClock.now
        let result = try await store.upload()
        let elapsed = start.duration(to: .now).timeInterval
        precondition(result.sent == changes && result.failed == 0, "upload: \(result)")
        try await store.close()
        return elapsed
    }

}
