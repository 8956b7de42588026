// GatewayBenchmark: what a gateway mount costs (issue 16). scripts/bench-gateway starts a back-end `satchel serve`,
// a second one mounting it as `docs`, and nginx as a plain reverse proxy in front of the back-end (what any extra
// hop costs on this machine), then runs this against the three with the same client and binding:
//
//   GatewayBenchmark DIRECT_URL GATEWAY_URL PROXY_URL USER PASSWORD COUNT RUNS GATEWAY_PID [CONTENT_MIB]
//
// - getObject: 500 sequential reads of one document, p50 latency, per run;
// - a listing of a folder of COUNT documents, pages of 1,000, per run;
// - CONTENT_MIB (1,024 by default) of content downloaded and uploaded through the gateway beside the same against
//   the back-end directly, with the gateway process's peak RSS during each transfer (its high-water mark is reset
//   before each, through /proc/PID/clear_refs).
//
// Medians of RUNS runs; direct and gateway alternate within each run, so both see the same machine.
import BenchmarkSupport
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let arguments = CommandLine.arguments
guard arguments.count >= 9, let count = Int(arguments[6]), let runs = Int(arguments[7]),
    let gatewayPID = Int(arguments[8])
else {
    print("usage: GatewayBenchmark DIRECT_URL GATEWAY_URL PROXY_URL USER PASSWORD COUNT RUNS GATEWAY_PID [CONTENT_MIB]")
    exit(2)
}
let contentMiB = arguments.count > 9 ? Int(arguments[9]) ?? 1024 : 1024
let (directURL, gatewayURL, proxyURL) = (arguments[1], arguments[2], arguments[3])
let (user, password) = (arguments[4], arguments[5])

func connect(_ url: String, repository: String) async throws -> CMISSession {
    guard let base = URL(string: url) else { throw BenchmarkError("not a URL: \(url)") }
    return try await CMISSession.connect(
        SessionParameters(
            url: base.appendingPathComponent("cmis/browser"), repositoryId: repository,
            auth: [BasicAuth(user: user, password: password)], pageSize: 1000, cacheTTL: .zero))
}

/// The gateway's peak RSS in MiB since the last ``resetPeak()``.
func peakMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(gatewayPID)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return -1 }
    return kib / 1024
}

func resetPeak() { try? "5".write(toFile: "/proc/\(gatewayPID)/clear_refs", atomically: false, encoding: .utf8) }

let direct = try await connect(directURL, repository: "shared")
let gateway = try await connect(gatewayURL, repository: "docs")
let proxied = try await connect(proxyURL, repository: "shared")

// Seed: a folder of `count` small documents, written to the back-end directly, 8 at a time.
let folder = try await direct.createFolder(
    named: "gateway-bench-\(UInt32.random(in: 0...UInt32.max))", in: direct.repositoryInfo.rootFolderId)
guard let folderId = folder.id else { throw BenchmarkError("the new folder has no id") }
let firstId = try await withThrowingTaskGroup(of: String?.self) { group in
    for worker in 0..<8 {
        group.addTask {
            var first: String?
            for index in stride(from: worker, to: count, by: 8) {
                let document = try await direct.createDocument(
                    named: "doc-\(index).txt", in: folderId,
                    content: .data(
                        Data("document \(index)\n".utf8), filename: "doc-\(index).txt", mimeType: "text/plain"))
                if index == 0 { first = document.id }
            }
            return first
        }
    }
    var first: String?
    for try await id in group where id != nil { first = id }
    return first
}
guard let documentId = firstId else { throw BenchmarkError("no document id") }

func getObjectP50(_ session: CMISSession) async throws -> Double {
    var samples: [Double] = []
    for _ in 0..<500 {
        let start = ContinuousClock.now
        _ = try await session.object(id: documentId, useCache: false)
        samples.append(seconds(ContinuousClock.now - start) * 1e6)
    }
    return median(samples)
}

func listing(_ session: CMISSession) async throws -> Double {
    let start = ContinuousClock.now
    var seen = 0
    for try await _ in session.children(of: folderId) { seen += 1 }
    guard seen == count else { throw BenchmarkError("listed \(seen) of \(count) documents") }
    return seconds(ContinuousClock.now - start)
}

var getDirect: [Double] = []
var getGateway: [Double] = []
var getProxy: [Double] = []
var listDirect: [Double] = []
var listGateway: [Double] = []
var listProxy: [Double] = []
for _ in 0..<runs {
    getDirect.append(try await getObjectP50(direct))
    getGateway.append(try await getObjectP50(gateway))
    getProxy.append(try await getObjectP50(proxied))
    listDirect.append(try await listing(direct))
    listGateway.append(try await listing(gateway))
    listProxy.append(try await listing(proxied))
}

// Content: a file of contentMiB, uploaded and downloaded both ways.
let work = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
let source = work.appendingPathComponent("source.bin")
_ = FileManager.default.createFile(atPath: source.path, contents: nil)
let handle = try FileHandle(forWritingTo: source)
var block = Data(count: 1 << 20)
for index in 0..<contentMiB {
    block.withUnsafeMutableBytes { bytes in
        for offset in stride(from: 0, to: bytes.count, by: 4096) {
            bytes[offset] = UInt8(truncatingIfNeeded: index &+ offset)
        }
    }
    try handle.write(contentsOf: block)
}
try handle.close()
let bytes = Double(contentMiB)

var upDirect: [Double] = []
var upGateway: [Double] = []
var downDirect: [Double] = []
var downGateway: [Double] = []
var downProxy: [Double] = []
var upPeak: [Double] = []
var downPeak: [Double] = []
for run in 0..<runs {
    var start = ContinuousClock.now
    let plain = try await direct.createDocument(
        named: "big-direct-\(run).bin", in: folderId, content: .file(source, mimeType: "application/octet-stream"))
    upDirect.append(bytes / seconds(ContinuousClock.now - start))

    resetPeak()
    start = ContinuousClock.now
    let through = try await gateway.createDocument(
        named: "big-gateway-\(run).bin", in: folderId, content: .file(source, mimeType: "application/octet-stream"))
    upGateway.append(bytes / seconds(ContinuousClock.now - start))
    upPeak.append(peakMiB())

    let target = work.appendingPathComponent("down.bin")
    start = ContinuousClock.now
    try await direct.downloadContent(of: plain.id ?? "", to: target)
    downDirect.append(bytes / seconds(ContinuousClock.now - start))
    try FileManager.default.removeItem(at: target)

    resetPeak()
    start = ContinuousClock.now
    try await gateway.downloadContent(of: through.id ?? "", to: target)
    downGateway.append(bytes / seconds(ContinuousClock.now - start))
    downPeak.append(peakMiB())
    let size = (try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
    guard size == contentMiB << 20 else { throw BenchmarkError("downloaded \(size) bytes of \(contentMiB << 20)") }
    try FileManager.default.removeItem(at: target)
    start = ContinuousClock.now
    try await proxied.downloadContent(of: plain.id ?? "", to: target)
    downProxy.append(bytes / seconds(ContinuousClock.now - start))
    try FileManager.default.removeItem(at: target)
    try await direct.delete(plain.id ?? "")
    try await direct.delete(through.id ?? "")
}

func percent(_ value: Double, _ base: Double, lowerIsBetter: Bool) -> String {
    String(format: "%+.0f %%", lowerIsBetter ? (value / base - 1) * 100 : (1 - value / base) * 100)
}

func cell(_ value: Double, _ base: Double, unit: String, lowerIsBetter: Bool) -> String {
    String(format: "%.1f", value) + " " + unit + " (" + percent(value, base, lowerIsBetter: lowerIsBetter) + ")"
}

func row(_ name: String, _ values: [Double], unit: String, lowerIsBetter: Bool) -> String {
    let direct = values[0]
    let others = values.dropFirst().map { cell($0, direct, unit: unit, lowerIsBetter: lowerIsBetter) }
    return "| \(name) | \(String(format: "%.1f", direct)) \(unit) | " + others.joined(separator: " | ") + " |"
}

print("| median of \(runs) runs | back-end directly | through the gateway | through nginx (a plain proxy) |")
print("|---|---|---|---|")
print(row("getObject, p50 of 500", [getDirect, getGateway, getProxy].map(median), unit: "µs", lowerIsBetter: true))
print(
    row(
        "list \(count) children, pages of 1,000", [listDirect, listGateway, listProxy].map { median($0) * 1000 },
        unit: "ms", lowerIsBetter: true))
print(
    row(
        "download \(contentMiB) MiB", [downDirect, downGateway, downProxy].map(median), unit: "MiB/s",
        lowerIsBetter: false))
print(row("upload \(contentMiB) MiB", [upDirect, upGateway].map(median), unit: "MiB/s", lowerIsBetter: false) + " – |")
let added = median(getGateway) - median(getDirect)
let hop = median(getProxy) - median(getDirect)
print(
    "getObject: the gateway adds \(String(format: "%.0f", added)) µs, a plain proxy hop \(String(format: "%.0f", hop)) µs."
        + " Gateway peak RSS: download \(String(format: "%.0f", median(downPeak))) MiB, upload "
        + "\(String(format: "%.0f", median(upPeak))) MiB")
