import Foundation
import SatchelJSON

// JSONBenchmark: Satchel's JSON reader against Foundation and Python on the same OData V4 pages.
//
//   swift run -c release JSONBenchmark [--entities N] [--page-size N] [--runs N] [--python PATH] [--no-python]
//                                      [--only TEXT]   (only methods whose name contains TEXT, plus JSONDecoder)

var entityCount = 100_000
var pageSize = 1_000
var runs = 5
var python = "python3"
var runPython = true
var only: String?
var profiling = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--entities": entityCount = Int(arguments.next() ?? "") ?? entityCount
    case "--page-size": pageSize = Int(arguments.next() ?? "") ?? pageSize
    case "--runs": runs = Int(arguments.next() ?? "") ?? runs
    case "--python": python = arguments.next() ?? python
    case "--no-python": runPython = false
    case "--only": only = arguments.next()
    case "--profile":  // one method alone, for perf
        only = arguments.next()
        profiling = true
    default:
        print(
            "usage: JSONBenchmark [--entities N] [--page-size N] [--runs N] [--python PATH] [--no-python] [--only TEXT]"
        )
        exit(2)
    }
}

let pages = Pages.generate(entities: entityCount, pageSize: pageSize)
let datas = pages.map { Data($0) }
let totalBytes = pages.reduce(0) { $0 + $1.count }
print(
    "\(entityCount) entities in \(pages.count) pages, \(String(format: "%.1f", Double(totalBytes) / 1e6)) MB, "
        + "median of \(runs) runs")

// Every method must see the same data: check the decoders agree before timing them.
let isoDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}()
var satchelDecoder = SatchelJSONDecoder()
satchelDecoder.dateDecodingStrategy = .iso8601
do {
    let pulled = try ProductPage(json: pages[0])
    let codable = try satchelDecoder.decode(ProductPage.self, from: pages[0])
    let foundation = try isoDecoder.decode(ProductPage.self, from: datas[0])
    precondition(pulled.value == foundation.value && codable.value == foundation.value, "decoders disagree")
    precondition(pulled.nextLink == foundation.nextLink)
}

var results: [Result] = []
@MainActor func measure(_ method: String, note: String = "", _ body: () throws -> Void) rethrows {
    if let only, !method.localizedCaseInsensitiveContains(only),
        profiling || !method.hasPrefix("Foundation JSONDecoder")
    {
        return
    }
    let seconds = try Measure.median(runs: runs, body)
    results.append(Result(method: method, seconds: seconds, bytes: totalBytes, entities: entityCount, note: note))
    let last = results[results.count - 1]
    print(
        String(
            format: "  %-38@ %8.1f MB/s %12.0f entities/s", method as NSString, last.megabytesPerSecond,
            last.entitiesPerSecond))
}

try measure("Satchel tokenize only") {
    var tokens = 0
    for page in pages {
        try page.withUnsafeBytes { buffer in
            var tokenizer = try JSONTokenizer(unsafeBytes: buffer)
            while try tokenizer.next() != nil { tokens += 1 }
        }
    }
    consume(tokens)
}
try measure("Satchel JSONValue parse") {
    for page in pages { consume(try JSONValue(parsing: page)) }
}
try measure("Satchel pull decoding (JSONDecodable)") {
    for page in pages { consume(try ProductPage(json: page)) }
}
try measure("Satchel Codable (SatchelJSONDecoder)") {
    for page in pages { consume(try satchelDecoder.decode(ProductPage.self, from: page)) }
}
try measure("Satchel stream, 64 KiB chunks", note: "JSONDecodable") {
    for page in pages {
        var parser = JSONArrayStreamParser(path: ["value"])
        var count = 0
        var offset = 0
        while offset < page.count {
            let end = min(page.count, offset + 65_536)
            try parser.append(page[offset..<end]) { reader in
                consume(try Product(from: &reader))
                count += 1
            }
            offset = end
        }
        consume(try parser.finish())
        precondition(count == min(pageSize, entityCount))
    }
}
try measure("Foundation JSONSerialization") {
    for data in datas { consume(try JSONSerialization.jsonObject(with: data)) }
}
try measure("Foundation JSONDecoder") {
    for data in datas { consume(try isoDecoder.decode(ProductPage.self, from: data)) }
}

// Python reads the very same bytes from files.
if runPython && only == nil {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "satchel-json-bench-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for (number, page) in pages.enumerated() {
        try Data(page).write(to: folder.appendingPathComponent(String(format: "page-%05d.json", number)))
    }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("baseline.py")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [python, script.path, folder.path, "--runs", String(runs)]
    let output = Pipe()
    process.standardOutput = output
    do {
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus == 0, let json = try? JSONValue(parsing: data) {
            let version = json["python"]?.stringValue ?? "?"
            for key in ["json_loads", "json_objects", "orjson_loads", "orjson_objects"] {
                guard let entry = json[key], let seconds = entry["seconds"]?.doubleValue else { continue }
                let method = "Python \(version) " + key.replacingOccurrences(of: "_", with: " ")
                results.append(Result(method: method, seconds: seconds, bytes: totalBytes, entities: entityCount))
            }
        } else {
            print("  Python baseline failed (status \(process.terminationStatus))")
        }
    } catch {
        print("  Python baseline not run: \(error)")
    }
}

guard let foundation = results.first(where: { $0.method == "Foundation JSONDecoder" }) else { exit(0) }
print("")
print("| method | MB/s | entities/s | × JSONDecoder |")
print("|---|---:|---:|---:|")
for result in results {
    let ratio = result.entitiesPerSecond / foundation.entitiesPerSecond
    print(
        String(
            format: "| %@ | %.1f | %.0f | %.2f |", result.method as NSString, result.megabytesPerSecond,
            result.entitiesPerSecond, ratio))
}
if let rss = Measure.peakRSSMegabytes() { print(String(format: "\npeak RSS: %.0f MB", rss)) }
