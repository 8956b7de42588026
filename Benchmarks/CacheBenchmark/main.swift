// CacheBenchmark: SatchelCache's side of the offline-cache benchmark (issue 15). scripts/bench-cache starts a
// `satchel serve`, runs `seed` once, then `load` over Nuxeo REST and over CMIS beside nuxeo_tree_bench.py (Nuxeo's
// Python client listing the same tree) and cmislib walking it, then `browse` and `blobs`, and prints the table.
//
//   CacheBenchmark seed URL USER PASSWORD FOLDERS PER_FOLDER          → prints the root's path
//   CacheBenchmark load nuxeo|cmis URL USER PASSWORD ROOT RUNS DIR    → a hierarchy loaded RUNS times (encrypted)
//   CacheBenchmark browse DIR                                         → children(of:) and node(path:) offline
//   CacheBenchmark blobs DIR COUNT BYTES RUNS                         → blob cache save/get beside a plain copy
//
// Each prints one JSON line.
import BenchmarkSupport
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelCache
import SatchelCacheCMIS
import SatchelCacheNuxeo
import SatchelHTTP
import SatchelNuxeo
import SatchelStore

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let key = try StoreKey.raw(Data(repeating: 0x42, count: 32))

func cmisSession(_ url: String, _ user: String, _ password: String) async throws -> CMISSession {
    guard let base = URL(string: url + "/cmis/browser") else { throw BenchmarkError("not a URL: \(url)") }
    return try await CMISSession.connect(
        SessionParameters(
            url: base, repositoryId: "shared", auth: [BasicAuth(user: user, password: password)], cacheTTL: .zero))
}

func peakRSSMiB() -> Double {
    var usage = rusage()
    #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return (Double(usage.ru_maxrss) / 1024 * 10).rounded() / 10  // KiB
    #else
        getrusage(RUSAGE_SELF, &usage)
        return (Double(usage.ru_maxrss) / 1_048_576 * 10).rounded() / 10  // bytes
    #endif
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// `/cache-bench-N` with FOLDERS folders of PER_FOLDER small documents, 8 created at a time.
func seed(_ url: String, _ user: String, _ password: String, folders: Int, perFolder: Int) async throws {
    let session = try await cmisSession(url, user, password)
    let name = "cache-bench-\(UInt32.random(in: 0...UInt32.max))"
    let root = try await session.createFolder(named: name, in: session.repositoryInfo.rootFolderId)
    for index in 0..<folders {
        let folder = try await session.createFolder(named: "folder-\(index)", in: root.id ?? "")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for document in 0..<perFolder {
                if document >= 8 { try await group.next() }
                group.addTask {
                    let bytes = Data("document \(index)/\(document)\n".utf8)
                    _ = try await session.createDocument(
                        named: "doc-\(document).txt", in: folder.id ?? "",
                        content: .data(bytes, filename: "doc-\(document).txt", mimeType: "text/plain"))
                }
            }
            try await group.waitForAll()
        }
    }
    print("/" + name)
}

func load(
    _ kind: String, _ url: String, _ user: String, _ password: String, root: String, runs: Int, folder: URL
)
    async throws
{
    let source: any HierarchySource
    if kind == "nuxeo" {
        guard let server = URL(string: url + "/nuxeo") else { throw BenchmarkError("not a URL: \(url)") }
        let session = NuxeoSession(
            configuration: .init(serverURL: server, auth: [BasicAuth(user: user, password: password)]))
        source = NuxeoHierarchySource(session: session, rootPath: root, pageSize: 1000)
    } else {
        source = CMISHierarchySource(
            session: try await cmisSession(url, user, password), rootPath: root, pageSize: 1000)
    }
    try? FileManager.default.removeItem(at: folder)
    let cache = try await ContentCache.open(at: folder, key: key)
    var seconds: [Double] = []
    var summary: HierarchySummary?
    for _ in 0..<runs {
        let start = ContinuousClock.now
        summary = try await cache.load("bench", from: source)
        let elapsed = ContinuousClock.now - start
        seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    try await cache.close()
    emit([
        "seconds": seconds, "documents": summary?.documents ?? 0, "folders": summary?.folders ?? 0,
        "peak_rss_mib": peakRSSMiB(),
    ])
}

/// Every folder's children, 20 rounds, each call timed; node(path:) for each document once.
func browse(folder: URL) async throws {
    let cache = try await ContentCache.open(at: folder, key: key)
    let hierarchy = try await cache.hierarchy("bench")
    let root = try await hierarchy.root()
    let folders = try await [root] + hierarchy.childrenOfRoot().filter(\.isFolder)
    var childrenMicros: [Double] = []
    var listed = 0
    for _ in 0..<20 {
        for folder in folders {
            let start = ContinuousClock.now
            let children = try await hierarchy.children(of: folder.id)
            let elapsed = ContinuousClock.now - start
            childrenMicros.append(
                Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
            listed += children.count
        }
    }
    var pathMicros: [Double] = []
    for folder in folders.dropFirst() {
        for document in try await hierarchy.documents(of: folder.id).prefix(20) {
            let start = ContinuousClock.now
            _ = try await hierarchy.node(path: document.path)
            let elapsed = ContinuousClock.now - start
            pathMicros.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
    }
    try await cache.close()
    emit([
        "children_p50_us": median(childrenMicros), "children_p99_us": percentile(childrenMicros, 0.99),
        "children_calls": childrenMicros.count, "children_listed": listed,
        "node_path_p50_us": median(pathMicros), "node_path_calls": pathMicros.count,
    ])
}

/// COUNT blobs of BYTES each: saved into (and read back from) an encrypted and a plain blob cache, beside copying
/// the same files with FileManager (the plain copy the cache would be replacing).
func blobs(folder: URL, count: Int, bytes: Int, runs: Int) async throws {
    try? FileManager.default.removeItem(at: folder)
    let sources = folder.appendingPathComponent("sources")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    var generator = SystemRandomNumberGenerator()
    for index in 0..<count {
        let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try data.write(to: sources.appendingPathComponent("\(index)"))
    }
    let total = Double(count * bytes) / 1_048_576
    var result: [String: Any] = ["mib": total, "count": count]
    for (name, cacheKey) in [("encrypted", Optional(key)), ("plain", nil)] {
        var save: [Double] = []
        var get: [Double] = []
        for run in 0..<runs {
            let place = folder.appendingPathComponent("\(name)-\(run)")
            let cache = try await ContentCache.open(
                at: place, key: cacheKey, blobLimits: BlobCache.Limits(maximumCount: nil))
            save.append(
                try await seconds {
                    for index in 0..<count {
                        try await cache.blobs.save("k\(index)", file: sources.appendingPathComponent("\(index)"))
                    }
                })
            let out = place.appendingPathComponent("out")
            get.append(
                try await seconds {
                    for index in 0..<count { _ = try await cache.blobs.write("k\(index)", to: out) }
                })
            try await cache.close()
            try FileManager.default.removeItem(at: place)
        }
        result["\(name)_save_mib_s"] = total / median(save)
        result["\(name)_get_mib_s"] = total / median(get)
    }
    var copy: [Double] = []
    for run in 0..<runs {
        let place = folder.appendingPathComponent("copy-\(run)")
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        copy.append(
            try seconds {
                for index in 0..<count {
                    try FileManager.default.copyItem(
                        at: sources.appendingPathComponent("\(index)"), to: place.appendingPathComponent("\(index)"))
                }
            })
        try FileManager.default.removeItem(at: place)
    }
    result["copy_mib_s"] = total / median(copy)
    try? FileManager.default.removeItem(at: folder)
    emit(result)
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "seed" where arguments.count == 7:
        try await seed(
            arguments[2], arguments[3], arguments[4], folders: Int(arguments[5]) ?? 100,
            perFolder: Int(arguments[6]) ?? 100)
    case "load" where arguments.count == 9:
        try await load(
            arguments[2], arguments[3], arguments[4], arguments[5], root: arguments[6], runs: Int(arguments[7]) ?? 3,
            folder: URL(fileURLWithPath: arguments[8]))
    case "browse" where arguments.count == 3:
        try await browse(folder: URL(fileURLWithPath: arguments[2]))
    case "blobs" where arguments.count == 6:
        try await blobs(
            folder: URL(fileURLWithPath: arguments[2]), count: Int(arguments[3]) ?? 100,
            bytes: Int(arguments[4]) ?? 1_048_576, runs: Int(arguments[5]) ?? 3)
    default:
        FileHandle.standardError.write(Data("usage: see the top of Benchmarks/CacheBenchmark/main.swift\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("CacheBenchmark: \(error)\n".utf8))
    exit(1)
}
