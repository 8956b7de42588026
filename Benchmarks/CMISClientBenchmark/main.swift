// CMISClientBenchmark: Satchel's CMIS client side of the client benchmark (issue 3). scripts/bench-cmis-client
// starts a `satchel serve`, runs `seed` once, then `run` for each binding beside cmislib_bench.py (cmislib 0.7.0)
// against the same server and binding, and prints the table.
//
//   CMISClientBenchmark seed URL USER PASSWORD COUNT OUT_DIR     → OUT_DIR/folder-id, OUT_DIR/ids (1,000 ids)
//   CMISClientBenchmark run URL USER PASSWORD browser|atom FOLDER_ID IDS_FILE RUNS
//   CMISClientBenchmark parse URL USER PASSWORD FOLDER_ID RUNS   → the Browser parser alone, µs per object
//
// `run` prints one JSON line like cmislib_bench.py: seconds per run for each job, items counted, peak RSS. It also
// times a third way of doing the fetch job that cmislib has no counterpart for: `objects(ids:)`, 8 requests at once.
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelText

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The page size both clients use to list the folder.
let pageSize = 1000

func connect(
    url: String, user: String, password: String, binding: SessionParameters.Binding
) async throws
    -> CMISSession
{
    guard let base = URL(string: url) else { throw BenchmarkError("not a URL: \(url)") }
    let parameters = SessionParameters(
        binding: binding, url: base, repositoryId: "shared", auth: [BasicAuth(user: user, password: password)],
        pageSize: pageSize, cacheTTL: .zero)
    return try await CMISSession.connect(parameters)
}

/// Creates a folder with `count` small documents, 8 at a time; writes the folder id and 1,000 document ids.
func seed(url: String, user: String, password: String, count: Int, output: URL) async throws {
    let session = try await connect(url: url, user: user, password: password, binding: .browser)
    let folder = try await session.createFolder(
        named: "bench-\(UInt32.random(in: 0...UInt32.max))", in: session.repositoryInfo.rootFolderId)
    guard let folderId = folder.id else { throw BenchmarkError("the new folder has no id") }
    let ids = try await withThrowingTaskGroup(of: [String].self) { group in
        let workers = 8
        for worker in 0..<workers {
            group.addTask {
                var ids: [String] = []
                for index in stride(from: worker, to: count, by: workers) {
                    let document = try await session.createDocument(
                        named: "doc-\(index).txt", in: folderId,
                        content: .data(
                            Data("document \(index)\n".utf8), filename: "doc-\(index).txt", mimeType: "text/plain"))
                    guard let id = document.id else { throw BenchmarkError("a new document has no id") }
                    ids.append(id)
                }
                return ids
            }
        }
        var all: [String] = []
        for try await part in group { all.append(contentsOf: part) }
        return all
    }
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    try Data(folderId.utf8).write(to: output.appendingPathComponent("folder-id"))
    let sample = ids.shuffled().prefix(1000).joined(separator: "\n") + "\n"
    try Data(sample.utf8).write(to: output.appendingPathComponent("ids"))
    print("seeded \(ids.count) documents in \(folderId)")
}

/// This process's peak resident set, in MiB.
func peakRSSMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return -1 }
    return (kib / 1024 * 10).rounded() / 10
}

func run(arguments: [String]) async throws {
    guard arguments.count == 7, let runs = Int(arguments[6]), runs > 0 else {
        throw BenchmarkError("usage: run URL USER PASSWORD browser|atom FOLDER_ID IDS_FILE RUNS")
    }
    let binding: SessionParameters.Binding
    switch arguments[3] {
    case "browser": binding = .browser
    case "atom": binding = .atomPub
    default: throw BenchmarkError("binding must be browser or atom, not \(arguments[3])")
    }
    let session = try await connect(url: arguments[0], user: arguments[1], password: arguments[2], binding: binding)
    let folderId = arguments[4]
    let ids = try String(contentsOfFile: arguments[5], encoding: .utf8).split(separator: "\n").map(String.init)
    var listSeconds: [Double] = []
    var fetchSeconds: [Double] = []
    var batchSeconds: [Double] = []
    var batchFetched = 0
    var listed = 0
    var fetched = 0
    let clock = ContinuousClock()
    for _ in 0..<runs {
        listed = 0
        let listTime = try await clock.measure {
            for try await child in session.children(of: folderId) where child.object.name != nil { listed += 1 }
        }
        listSeconds.append(listTime.timeInterval)
        fetched = 0
        let fetchTime = try await clock.measure {
            for id in ids where try await session.object(id: id, useCache: false).name != nil { fetched += 1 }
        }
        fetchSeconds.append(fetchTime.timeInterval)
        batchFetched = 0
        let batchTime = try await clock.measure {
            let objects = try await session.objects(ids: ids, useCache: false)
            batchFetched = objects.count { $0.name != nil }
        }
        batchSeconds.append(batchTime.timeInterval)
    }
    let result: [String: Any] = [
        "list_seconds": listSeconds, "listed": listed, "fetch_seconds": fetchSeconds, "fetched": fetched,
        "batch_seconds": batchSeconds, "batch_fetched": batchFetched,
        "peak_rss_mib": peakRSSMiB(),
    ]
    let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}

/// Parses one Browser-binding page of `PAGE` children (fetched once, succinct, typed with the server's type
/// definitions) `RUNS` times in memory, and prints the median time per object: the client's parsing cost alone.
func parse(url: String, user: String, password: String, folderId: String, runs: Int) async throws {
    let session = try await connect(url: url, user: user, password: password, binding: .browser)
    let document = try await session.typeDefinition(id: "cmis:document")
    let folder = try await session.typeDefinition(id: "cmis:folder")
    let client = HTTPClient(auth: [BasicAuth(user: user, password: password)])
    guard
        let pageURL = URL(
            string: "\(url)/shared/root?objectId=\(folderId)&cmisselector=children&maxItems=\(pageSize)&succinct=true")
    else { throw BenchmarkError("not a URL: \(url)") }
    let body = try await client.send(HTTPClient.Request(url: pageURL)).body
    let types = ["cmis:document": document, "cmis:folder": folder]
    var perObject: [Double] = []
    var count = 0
    let clock = ContinuousClock()
    for _ in 0..<runs {
        let time = try clock.measure {
            count = try BrowserParser.children(body) { types[$0] }.objects.count
        }
        perObject.append(time.timeInterval / Double(max(count, 1)) * 1e6)
    }
    let median = perObject.sorted()[perObject.count / 2]
    print(#"{"objects":\#(count),"bytes":\#(body.count),"microseconds_per_object":\#(median)}"#)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "seed":
        guard arguments.count == 6, let count = Int(arguments[4]) else {
            throw BenchmarkError("usage: seed URL USER PASSWORD COUNT OUT_DIR")
        }
        try await seed(
            url: arguments[1], user: arguments[2], password: arguments[3], count: count,
            output: URL(fileURLWithPath: arguments[5]))
    case "run":
        try await run(arguments: Array(arguments.dropFirst()))
    case "parse":
        guard arguments.count == 6, let runs = Int(arguments[5]) else {
            throw BenchmarkError("usage: parse URL USER PASSWORD FOLDER_ID RUNS")
        }
        try await parse(
            url: arguments[1], user: arguments[2], password: arguments[3], folderId: arguments[4], runs: runs)
    default:
        throw BenchmarkError("usage: CMISClientBenchmark seed|run|parse …")
    }
} catch {
    FileHandle.standardError.write(Data("CMISClientBenchmark: \(error)\n".utf8))
    exit(1)
}
