import Foundation
import SatchelJSON

// ODataBenchmark: reading an OData V4 collection (100,000 entities of 10 properties in pages of 1,000 with
// next links) from a loopback server, with Satchel (generated-style type, dynamic entities), Foundation, Python
// json/orjson and python-odata. Each row runs in a child process of its own, so its peak RSS is its own.
//
//   swift run -c release ODataBenchmark [--entities N] [--page-size N] [--runs N] [--large-pages N]
//                                       [--python PATH] [--no-python] [--only TEXT]
//   ODataBenchmark --serve                      (only the server, for profiling; prints its base URL)
//   ODataBenchmark --offline-query --entities 1000000   (local queries on an encrypted offline store)
//   ODataBenchmark --offline-upload --changes 10000 --runs 3   (the offline upload, $batch and one by one,
//                                              beside the same creations sent online one by one)
//   ODataBenchmark --worker KIND --url URL --pages N --page-size N --runs N

var entityCount = 100_000
var pageSize = 1_000
var runs = 5
var largePages = 400
var python =
    ProcessInfo.processInfo.environment["SATCHEL_PEERS_VENV"].map { $0 + "/bin/python" }
    ?? FileManager.default.currentDirectoryPath + "/.venv-peers/bin/python"
var runPython = true
var only: String?
var worker: String?
var workerURL = ""
var workerPages = 100
var serveOnly = false
var offlineQuery = false
var offlineUpload = false
var changeCount = 10_000
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--entities": entityCount = Int(arguments.next() ?? "") ?? entityCount
    case "--page-size": pageSize = Int(arguments.next() ?? "") ?? pageSize
    case "--runs": runs = Int(arguments.next() ?? "") ?? runs
    case "--large-pages": largePages = Int(arguments.next() ?? "") ?? largePages
    case "--python": python = arguments.next() ?? python
    case "--no-python": runPython = false
    case "--only": only = arguments.next()
    case "--worker": worker = arguments.next()
    case "--url": workerURL = arguments.next() ?? ""
    case "--pages": workerPages = Int(arguments.next() ?? "") ?? workerPages
    case "--serve": serveOnly = true
    case "--offline-query": offlineQuery = true
    case "--offline-upload": offlineUpload = true
    case "--changes": changeCount = Int(arguments.next() ?? "") ?? changeCount
    default:
        print(
            "usage: ODataBenchmark [--entities N] [--page-size N] [--runs N] [--large-pages N] [--python PATH]"
                + " [--no-python] [--only TEXT]")
        exit(2)
    }
}

if let worker {
    do {
        try await Worker.run(kind: worker, baseURL: workerURL, pages: workerPages, pageSize: pageSize, runs: runs)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("worker \(worker) failed: \(error)\n".utf8))
        exit(1)
    }
}

if offlineUpload {
    try await OfflineUploadBenchmark.run(changes: changeCount, runs: runs, only: only)
    exit(0)
}

let pageCount = max(1, entityCount / pageSize)
let pages = Pages(distinctPages: pageCount, pageSize: pageSize)
let server = try LoopbackServer(pages: pages)
let pageBytes = pages.entityBlocks.reduce(0) { $0 + $1.count }
if offlineQuery {
    try await OfflineQueryBenchmark.run(baseURL: server.baseURL, pages: pageCount, pageSize: pageSize)
    exit(0)
}
if serveOnly {
    // Unbuffered, so that a script reading the pipe gets it at once.
    FileHandle.standardOutput.write(Data((server.baseURL + "\n").utf8))
    while true { sleep(3600) }
}
print(
    "\(pageCount * pageSize) entities in \(pageCount) pages of \(pageSize), "
        + String(format: "%.1f MB", Double(pageBytes) / 1e6) + "; median of \(runs) runs; server \(server.baseURL)")
print("load average: " + ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").prefix(20))

struct Row {
    var name: String
    var pages: Int
    var note: String
    var command: [String]
}

let me = CommandLine.arguments[0]
let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("baseline.py").path
@MainActor func workerRow(_ name: String, _ kind: String, pages: Int, note: String) -> Row {
    Row(
        name: name, pages: pages, note: note,
        command: [
            me, "--worker", kind, "--url", server.baseURL, "--pages", "\(pages)", "--page-size", "\(pageSize)",
            "--runs", "\(runs)",
        ])
}
@MainActor func pythonRow(_ name: String, _ mode: String, note: String) -> Row {
    Row(
        name: name, pages: pageCount, note: note,
        command: [
            python, script, "--mode", mode, "--url", server.baseURL, "--pages", "\(pageCount)", "--runs", "\(runs)",
        ])
}

var rows: [Row] = [
    workerRow("Satchel pullDecoding → generated Product", "satchel-pull", pages: pageCount, note: "streamed over HTTP"),
    workerRow(
        "Satchel pullDecoding → generated Product", "satchel-pull", pages: largePages, note: "streamed over HTTP"),
    workerRow("Satchel dynamic ODataEntity", "satchel-dynamic", pages: pageCount, note: "streamed over HTTP"),
    workerRow("Satchel dynamic ODataEntity", "satchel-dynamic", pages: largePages, note: "streamed over HTTP"),
    workerRow("Satchel pull decoding, in memory", "satchel-pull-memory", pages: pageCount, note: "decode only"),
    workerRow("curl: bytes over loopback, no decoding", "loopback-bytes", pages: pageCount, note: "transfer only"),
    workerRow("Foundation JSONDecoder", "foundation-decoder", pages: pageCount, note: "decode only"),
    workerRow("Foundation JSONSerialization", "foundation-serialization", pages: pageCount, note: "decode only"),
    workerRow(
        "Satchel offline store, encrypted", "offline-encrypted", pages: pageCount,
        note: "initial download into a store, one secondary index"),
    workerRow(
        "Satchel offline store, plaintext", "offline-plain", pages: pageCount,
        note: "initial download into a store, one secondary index"),
]
if runPython {
    rows += [
        pythonRow("Python json + objects", "json", note: "decode only"),
        pythonRow("Python orjson + objects", "orjson", note: "decode only"),
        pythonRow("python-odata 0.8.1 (V4)", "odata", note: "over HTTP (requests)"),
    ]
}
if let only { rows = rows.filter { $0.name.localizedCaseInsensitiveContains(only) } }

struct Outcome {
    var seconds: Double
    var entities: Int
    var rss: Double
    var storeMB: Double?
}

@MainActor func runChild(_ command: [String]) -> Outcome? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    let output = Pipe()
    process.standardOutput = output
    do {
        try process.run()
    } catch {
        print("  cannot run \(command[0]): \(error)")
        return nil
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
        let json = try? JSONValue(parsing: Data(line.utf8)),
        let seconds = json["seconds"]?.doubleValue, let entities = json["entities"]?.doubleValue,
        let rss = json["rssMB"]?.doubleValue
    else {
        print("  \(command.dropFirst(1).prefix(3).joined(separator: " ")) failed (status \(process.terminationStatus))")
        return nil
    }
    return Outcome(seconds: seconds, entities: Int(entities), rss: rss, storeMB: json["storeMB"]?.doubleValue)
}

var table: [(Row, Outcome)] = []
for row in rows {
    guard let outcome = runChild(row.command) else { continue }
    table.append((row, outcome))
    print(
        String(
            format: "  %-44@ %4d pages %10.0f entities/s %7.1f MB peak RSS", row.name as NSString, row.pages,
            Double(outcome.entities) / outcome.seconds, outcome.rss)
            + (outcome.storeMB.map {
                String(format: ", store %.1f MB for %.1f MB of JSON", $0, Double(pageBytes) / 1e6)
            }
                ?? ""))
}

print("")
print("| method | pages | entities | entities/s | peak RSS (MB) | what is timed |")
print("|---|---:|---:|---:|---:|---|")
for (row, outcome) in table {
    print(
        String(
            format: "| %@ | %d | %d | %.0f | %.0f | %@ |", row.name as NSString, row.pages, outcome.entities,
            Double(outcome.entities) / outcome.seconds, outcome.rss, row.note as NSString))
}
print("load average after: " + ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").prefix(20))
