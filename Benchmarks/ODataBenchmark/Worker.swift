import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelText

/// One row measured in a process of its own, so that its peak RSS is its own: prints
/// `{"seconds": median, "entities": n, "rssMB": VmHWM}` on stdout.
enum Worker {
    static func run(kind: String, baseURL: String, pages: Int, pageSize: Int, runs: Int) async throws {
        let url = URL(string: baseURL + "/p\(pages)")!
        let seconds: Double
        var entities = 0
        switch kind {
        case "satchel-pull":
            let service = makeService(url)
            seconds = try await Measure.median(runs: runs) {
                var count = 0
                var checksum: Int64 = 0
                for try await product in service.entities("Products", pullDecoding: Product.self) {
                    count += 1
                    checksum &+= Int64(product.id)
                }
                consume(checksum)
                entities = count
            }
        case "satchel-dynamic":
            let service = makeService(url)
            seconds = try await Measure.median(runs: runs) {
                var count = 0
                for try await entity in service.entities("Products") {
                    count += 1
                    consume(entity)
                }
                entities = count
            }
        case "loopback-bytes":
            // The physical baseline: curl fetching the same pages over the same loopback, decoding nothing.
            var links = [baseURL + "/p\(pages)/Products"]
            links += (1..<max(1, pages)).map { baseURL + "/p\(pages)/Products?$skiptoken=\($0)" }
            seconds = try await Measure.median(runs: runs) { try curl(links) }
            entities = pages * pageSize
        case "satchel-pull-memory", "foundation-decoder", "foundation-serialization":
            let bodies = try await download(url, pages: pages)
            seconds = try await Measure.median(runs: runs) {
                entities = try decodeInMemory(kind, bodies)
            }
        case "offline-encrypted", "offline-plain":
            // The offline store's initial download: $metadata, every page, rows into the store (one secondary index).
            var storeBytes = 0
            seconds = try await Measure.median(runs: runs) {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-bench-\(UUID())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let path = folder.appendingPathComponent("bench.store").path
                let store = OfflineStore(
                    configuration: .init(
                        service: makeService(url), path: path, definingQueries: [.init(name: "all", query: "Products")],
                        key: kind == "offline-encrypted" ? StoreKey.random() : nil, indexes: ["Products": ["Name"]]))
                try await store.open()
                entities = try await store.count("Products")
                try await store.close()
                storeBytes = ["", "-wal"].reduce(0) { total, suffix in
                    total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
                }
            }
            print(
                String(
                    format: #"{"seconds": %.6f, "entities": %d, "rssMB": %.1f, "storeMB": %.1f}"#, seconds, entities,
                    Measure.peakRSSMegabytes() ?? 0, Double(storeBytes) / 1e6))
            return
        default:
            throw BenchmarkError("unknown worker kind \(kind)")
        }
        print(
            String(
                format: #"{"seconds": %.6f, "entities": %d, "rssMB": %.1f}"#, seconds, entities,
                Measure.peakRSSMegabytes() ?? 0))
    }

    static func makeService(_ url: URL) -> ODataService {
        ODataService(configuration: .init(serviceURL: url, version: .v4), transport: SocketTransport())
    }

    /// Fetches `links` with one curl process (one kept-alive connection), throwing the bytes away.
    static func curl(_ links: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "--silent", "--fail"] + links
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("curl failed (\(process.terminationStatus))") }
    }

    /// Every page's bytes, following the next links (not timed).
    static func download(_ url: URL, pages: Int) async throws -> [Data] {
        let client = HTTPClient(transport: SocketTransport())
        var bodies: [Data] = []
        var next: URL? = URL(string: url.absoluteString + "/Products")
        while let link = next {
            let body = try await client.send(HTTPClient.Request(url: link)).body
            bodies.append(body)
            let document = try JSONValue(parsing: body)
            next = document["@odata.nextLink"]?.stringValue.flatMap(URL.init(string:))
        }
        return bodies
    }

    static func decodeInMemory(_ kind: String, _ bodies: [Data]) throws -> Int {
        var count = 0
        for body in bodies {
            switch kind {
            case "satchel-pull-memory":
                var parser = JSONArrayStreamParser(path: ["value"])
                try parser.append(body) { reader in
                    consume(try Product(from: &reader))
                    count += 1
                }
                consume(try parser.finish())
            case "foundation-decoder":
                let page = try foundationDecoder.decode(FoundationPage.self, from: body)
                count += page.value.count
                consume(page)
            default:
                let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                let value = object?["value"] as? [[String: Any]] ?? []
                count += value.count
                consume(object?["@odata.nextLink"] as? String)
            }
        }
        return count
    }

    static let foundationDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        // ISO8601DateFormatter is thread-safe once configured; Foundation on Linux does not mark it Sendable.
        nonisolated(unsafe) let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        nonisolated(unsafe) let plain = ISO8601DateFormatter()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = plain.date(from: text) ?? fractional.date(from: text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
        }
        return decoder
    }()
}

/// The same entity for Foundation's `JSONDecoder`.
struct FoundationProduct: Decodable {
    var ID: Int32
    var Name: String
    var Description: String
    var Price: Decimal
    var Quantity: Int64
    var InStock: Bool
    var ReleaseDate: String
    var ModifiedAt: Date
    var ProductGuid: UUID
    var Discontinued: Date?
}

struct FoundationPage: Decodable {
    var value: [FoundationProduct]
    var nextLink: String?
    enum CodingKeys: String, CodingKey {
        case value
        case nextLink = "@odata.nextLink"
    }
}

enum Measure {
    /// Runs `body` `runs` times after one warm-up; the median wall time in seconds.
    static func median(runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
        try await body()
        var times: [Double] = []
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            try await body()
            let elapsed = ContinuousClock.now - start
            times.append(elapsed.timeInterval)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// Peak resident set size of this process (VmHWM), in MB.
    static func peakRSSMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
        }
        return nil
    }
}

/// Keeps results alive so the optimizer cannot drop the work.
nonisolated(unsafe) var blackHole = 0

@inline(never)
func consume<T>(_ value: T) {
    withUnsafeBytes(of: value) { blackHole &+= $0.count }
}
