import BenchmarkSupport
import Foundation
import Logging
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelServer
import SatchelStore
import Synchronization

// The offline middle tier against today's direct open (scripts/bench-offline-tier): a back-end of 100,000 products
// without delta support; `satchel serve --offline` (in this process) in front of it.
//
// 1. First open: `OfflineStore.open()` directly against the back-end (entity by entity) beside the same open through
//    the middle tier, which answers a store built from its template of shared data (re-sealed under the client's
//    key on arrival). Median of --runs each.
// 2. Download after 100 rows changed: bytes of the middle tier's delta beside a full download's bytes (what a direct
//    download from this back-end transfers, having no delta to ask for).
// 3. --clients clients opening the shared query at once through the middle tier: the back-end's reads, the time.

var rows = 100_000
var runs = 3
var clients = 50
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows": rows = Int(arguments.next() ?? "") ?? rows
    case "--runs": runs = Int(arguments.next() ?? "") ?? runs
    case "--clients": clients = Int(arguments.next() ?? "") ?? clients
    default:
        FileHandle.standardError.write(Data("usage: OfflineTierBenchmark [--rows N] [--runs N] [--clients N]\n".utf8))
        exit(2)
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-bench-tier-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let backend = Backend(rows: rows)
try await backend.start()
let products = OfflineDefiningQuery(name: "products", query: "Products")

/// Opens a store at a new path and returns it open, with the bytes its open received and the seconds the open took.
func open(
    _ service: ODataService, middleTier: Bool, key: StoreKey
) async throws -> (store: OfflineStore, bytes: Int, path: String, seconds: Double) {
    let path = folder.appendingPathComponent("\(UUID()).store").path
    let store = OfflineStore(
        configuration: .init(
            service: service, path: path, definingQueries: [products], key: key, usesMiddleTier: middleTier))
    let (received, time) = try await receivedBytes(store) { try await store.open() }
    return (store, received, path, time)
}

/// The payload bytes `store` reports receiving while `body` runs, and the seconds `body` took.
func receivedBytes(_ store: OfflineStore, _ body: () async throws -> Void) async throws -> (Int, Double) {
    let bytes = Mutex(0)
    let stream = store.progress()
    let listener = Task {
        for await step in stream {
            if case .bytes(let received, _) = step { bytes.withLock { $0 = max($0, received) } }
        }
    }
    let time = try await seconds { try await body() }
    // The stream delivers the last steps a moment later (not timed).
    try await Task.sleep(for: .milliseconds(100))
    listener.cancel()
    return (bytes.withLock { $0 }, time)
}

func direct() -> ODataService {
    ODataService(
        configuration: .init(
            serviceURL: backend.serviceURL, http: HTTPClient.Configuration(timeout: .seconds(300), retry: .never)))
}

func close(_ store: OfflineStore, _ path: String) async throws {
    try await store.close()
    try StoreFile(path: path).destroy()
}

// The middle tier, with two endpoints over the same back-end: `shop` builds stores from a template of its shared
// query; `tracked` serves the same query without prebuilt stores, refreshed on every read (its deltas are the
// middle tier's own: the back-end has none).
let ini = """
    [endpoint]
    name = shop
    backend_url = \(backend.serviceURL.absoluteString)
    service_user = svc
    service_password_env = SVC_PASSWORD
    prepopulate_offline_db = Y
    prepopulate_offline_db_interval = 1440

    [defining_query]
    name = products
    query = /Products
    is_shared_data = Y
    refresh_interval = 1440

    [endpoint]
    name = tracked
    backend_url = \(backend.serviceURL.absoluteString)
    service_user = svc
    service_password_env = SVC_PASSWORD
    prepopulate_offline_db = N

    [defining_query]
    name = products
    query = /Products
    is_shared_data = Y
    refresh_interval = 0
    track_deltas = ALWAYS
    """
let application = try OfflineApplicationConfiguration(
    text: ini, name: "bench.ini", folder: folder, environment: ["SVC_PASSWORD": "svc-secret"])
let usersFile = folder.appendingPathComponent("users.json")
// One user per client (each user has one build at a time).
var users: [String: PasswordHash] = [:]
for client in 0...clients {
    users["user\(client)"] = try PasswordHash.make(password: "secret-\(client)", rounds: 1_000)
}
try UsersFile(entries: users).save(to: usersFile)
var configuration = ServerConfiguration(
    port: 0, dataDirectory: folder.appendingPathComponent("data"), usersFile: usersFile)
try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
configuration.offline = [application]
configuration.logLevel = .error
// Every client signs in from 127.0.0.1 at the same moment: a login being checked counts against its address until
// it succeeds, and 50 at once would pass the address's 10 free failures. Not what is measured here.
configuration.loginThrottling.perSource = .init(freeFailures: 1_000, firstDelay: .seconds(1), maximumDelay: .seconds(1))

nonisolated(unsafe) var server: RunningServer!

func tier(_ endpoint: String, client: Int = 0) -> ODataService {
    ODataService(
        configuration: .init(
            serviceURL: server.baseURL.appendingPathComponent("offline/\(endpoint)/"),
            http: HTTPClient.Configuration(timeout: .seconds(300), retry: .never),
            auth: [BasicAuth(user: "user\(client)", password: "secret-\(client)")]))
}

#if DEBUG
    let build = "DEBUG build (figures mean nothing: use scripts/bench-offline-tier)"
#else
    let build = "release build"
#endif
print("Offline middle tier: \(rows) products, back-end without delta support, \(build), \(runs) runs (median)")

// 1. First open.
var directTimes: [Double] = []
var directBytes = 0
for _ in 0..<runs {
    let (store, bytes, path, time) = try await open(direct(), middleTier: false, key: .random())
    directTimes.append(time)
    guard try await store.count("Products") == rows else { throw BenchmarkFailure("direct open: wrong count") }
    directBytes = bytes
    try await close(store, path)
}
// The middle tier starts once the direct opens are done (its template build would compete with them). Its first
// open waits for the template, built when the server starts; not timed.
let readsBeforeServer = backend.reads
let started = ContinuousClock.now
server = try await SatchelServerApp(configuration: configuration).start()
let (warm, _, warmPath, _) = try await open(tier("shop"), middleTier: true, key: .random())
let templateReady = seconds(ContinuousClock.now - started)
let templateReads = backend.reads - readsBeforeServer
try await close(warm, warmPath)
var tierTimes: [Double] = []
var storeBytes = 0
for run in 0..<runs {
    let key = StoreKey.random()
    let (store, bytes, path, time) = try await open(tier("shop"), middleTier: true, key: key)
    tierTimes.append(time)
    guard try await store.count("Products") == rows else { throw BenchmarkFailure("tier open: wrong count") }
    storeBytes = bytes
    try await store.close()
    if run == 0 {
        // Sealed under the client's key: it opens and checks with it, and not with another.
        guard try StoreFile(path: path).check(key: key).isSound,
            (try? StoreFile(path: path).check(key: .random())) == nil
        else { throw BenchmarkFailure("the store is not sealed under the client's key alone") }
    }
    try StoreFile(path: path).destroy()
}
let directMedian = median(directTimes)
let tierMedian = median(tierTimes)
func ms(_ value: Double) -> String { String(format: "%.0f ms", value * 1000) }
print("")
print("1. First open of \(rows) entities")
print(
    "   direct (entity by entity)        \(ms(directMedian))   runs: \(directTimes.map(ms).joined(separator: ", "))   \(directBytes) bytes received"
)
print(
    "   middle tier, prebuilt store      \(ms(tierMedian))   runs: \(tierTimes.map(ms).joined(separator: ", "))   \(storeBytes) bytes received"
)
print(String(format: "   speed-up                         %.1fx (target: at least 5x)", directMedian / tierMedian))
print(
    "   (template of shared data ready \(String(format: "%.1f", templateReady)) s after the server started; built ahead of time)"
)

// 2. A download after 100 rows changed.
let (tracked, fullBytes, trackedPath, _) = try await open(tier("tracked"), middleTier: false, key: .random())
let (plain, _, plainPath, _) = try await open(direct(), middleTier: false, key: .random())
backend.change(100)
let (deltaBytes, _) = try await receivedBytes(tracked) { try await tracked.download() }
let (directDownloadBytes, _) = try await receivedBytes(plain) { try await plain.download() }
let changedName = try await tracked.entities(
    "Products", query: ODataQuery().filter(.property("ID") == .literal(.int(1))))
guard changedName.first?["Name"]?.stringValue == "Product 1 (changed 1)" else {
    throw BenchmarkFailure("the delta did not bring the change: \(changedName)")
}
try await close(tracked, trackedPath)
try await close(plain, plainPath)
print("")
print("2. Download after 100 of \(rows) rows changed (the back-end has no delta links)")
print("   full download through the middle tier  \(fullBytes) bytes")
print("   direct download (reads everything)     \(directDownloadBytes) bytes")
print(
    String(
        format: "   middle tier's delta                    %d bytes = %.3f %% of a full download (target: under 1 %%)",
        deltaBytes, Double(deltaBytes) * 100 / Double(fullBytes)))

// 3. Many clients at once.
let readsBefore = backend.reads
let manyStart = ContinuousClock.now
let opened = try await withThrowingTaskGroup(of: Int.self) { group in
    for client in 1...clients {
        group.addTask {
            let (store, _, path, _) = try await open(tier("shop", client: client), middleTier: true, key: .random())
            let count = try await store.count("Products")
            try await close(store, path)
            return count
        }
    }
    var counts: [Int] = []
    for try await count in group { counts.append(count) }
    return counts
}
let manyTime = seconds(ContinuousClock.now - manyStart)
guard opened.count == clients, opened.allSatisfy({ $0 == rows }) else {
    throw BenchmarkFailure("not every client opened a whole store: \(opened)")
}
print("")
print("3. \(clients) clients opening the shared query at once through the middle tier")
print(
    "   back-end reads of Products: \(templateReads) for the template, \(backend.reads - readsBefore) during the opens")
print(
    String(format: "   all %d opens: %.1f s (%.0f ms per client)", clients, manyTime, manyTime * 1000 / Double(clients))
)

await server.shutdown()
await backend.stop()
