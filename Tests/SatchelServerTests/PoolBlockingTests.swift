import Foundation
import SatchelCache
import SatchelRepository
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blocking work (file reads and copies, hashing, `fsync`, synchronous SQLite calls, closing a database) runs on
/// dispatch threads or the database's own queues, never on the concurrency pool. Each test runs the calls on a
/// pool of two threads (``RestrictedPool``, what a two-core machine has) beside a latency probe.
@Suite("Blocking work stays off the concurrency pool")
struct PoolBlockingTests {
    /// Two blob caches each save a file that is a FIFO: reading it blocks until someone writes. A save that read on
    /// a pool thread would hold both threads, and the task that feeds the FIFOs, on the same pool, could never run
    /// (a watchdog outside the pool ends that wait, and the test fails). Off the pool, the feeder runs.
    @Test("a blob-cache save blocked on its source leaves the pool free")
    func blobCacheSavesDoNotHoldThePool() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-pool-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let caches = [
            try await ContentCache.open(at: folder.appendingPathComponent("one"), key: .random()),
            try await ContentCache.open(at: folder.appendingPathComponent("two"), key: .random()),
        ]
        let fifos = (0..<2).map { folder.appendingPathComponent("fifo-\($0)") }
        for fifo in fifos { #expect(mkfifo(fifo.path, 0o600) == 0) }
        let payloads = (0..<2).map { Data("content of the blob number \($0), fed through a FIFO".utf8) }

        let flags = Flags()
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(20))
            guard !flags.finished.load(ordering: .relaxed) else { return }
            flags.rescued.store(true, ordering: .relaxed)
            for fifo in fifos { _ = Self.feed(fifo, Data()) }  // end-of-file: the blocked reads return
        }
        let pool = RestrictedPool(threads: 2)
        defer { pool.shutdown() }
        let probe = LatencyProbe()
        try await withTaskExecutorPreference(pool) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await probe.run() }
                for index in 0..<2 {
                    group.addTask { try await caches[index].blobs.save("k\(index)", file: fifos[index]) }
                }
                group.addTask {
                    for (fifo, payload) in zip(fifos, payloads) {
                        // Open without blocking (ENXIO until the reader has it open), then write.
                        while !Self.feed(fifo, payload) { try await Task.sleep(for: .milliseconds(5)) }
                    }
                }
                // The two saves and the feeder; then the probe.
                for _ in 0..<3 { try await group.next() }
                probe.stop()
                try await group.waitForAll()
            }
        }
        flags.finished.store(true, ordering: .relaxed)
        watchdog.cancel()
        let rescued = flags.rescued.load(ordering: .relaxed)
        #expect(!rescued, "a save held a pool thread until the watchdog ended its read")
        for index in 0..<2 {
            #expect(try await caches[index].blobs.data(for: "k\(index)") == payloads[index])
            try await caches[index].close()
        }
        #expect(probe.tickCount > 0)
        print(
            "blob-cache saves on a 2-thread pool: probe worst delay \(probe.worstDelay), longest job \(pool.longestJob)"
        )
    }

    /// Uploads (written in network-sized chunks, then made durable), whole-blob puts, appends, reads of a large
    /// hierarchy and closing the cache, all at once on two threads: no job holds a thread for long, and the probe
    /// keeps waking. Run on the pool, each of these calls holds its thread for hundreds of milliseconds (hashing
    /// and writing 48 MB, decoding 40,000 rows).
    @Test("uploads, appends, hierarchy reads and closing run beside a responsive pool")
    func storageWorkLeavesThePoolResponsive() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-pool-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try BlobStore(directory: folder.appendingPathComponent("blobs"))
        let cache = try await ContentCache.open(at: folder.appendingPathComponent("cache"), key: nil)
        let width = 40_000
        var nodes = [
            HierarchyNode(id: "root", parentID: nil, path: "/r", name: "r", type: "Folder", isFolder: true)
        ]
        for index in 0..<width {
            nodes.append(
                HierarchyNode(
                    id: "d\(index)", parentID: "root", path: "/r/d\(index)", name: "d\(index)", type: "File",
                    isFolder: false, content: .init(key: "k\(index)")))
        }
        try await cache.load("wide", from: PagedSource(pages: [Array(nodes.prefix(1)), Array(nodes.dropFirst())]))
        let hierarchy = try await cache.hierarchy("wide")
        let big = Data(repeating: 0x5a, count: 48 << 20)
        let chunk = [UInt8](repeating: 0x33, count: 64 << 10)
        let first = try await blobs.put(Data("the beginning".utf8))

        let pool = RestrictedPool(threads: 2)
        defer { pool.shutdown() }
        let probe = LatencyProbe()
        let started = ContinuousClock.now
        try await withTaskExecutorPreference(pool) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await probe.run() }
                for _ in 0..<2 {
                    group.addTask {
                        let lease = try await blobs.put(big)
                        #expect(lease.length == Int64(big.count))
                    }
                }
                group.addTask {
                    let writer = try blobs.makeWriter()
                    for _ in 0..<(48 << 20) / chunk.count {
                        try chunk.withUnsafeBytes { try writer.write($0) }
                        await Task.yield()  // chunks arrive one by one from the network
                    }
                    let lease = try await writer.finish()
                    #expect(lease.length == 48 << 20)
                }
                group.addTask {
                    let tail = try await blobs.put(big)
                    let combined = try await blobs.append(tail.reference, to: first.reference)
                    #expect(combined.length == 13 + (48 << 20))
                }
                for _ in 0..<3 {
                    group.addTask {
                        let children = try await hierarchy.children(of: "root")
                        #expect(children.count == width)
                    }
                }
                for _ in 0..<6 { try await group.next() }
                try await cache.close()
                probe.stop()
                try await group.waitForAll()
            }
        }
        let elapsed = ContinuousClock.now - started
        print(
            "storage work on a 2-thread pool: \(elapsed) in all, probe worst delay \(probe.worstDelay) over "
                + "\(probe.tickCount) ticks, longest job \(pool.longestJob)")
        #expect(probe.tickCount > 0)
        // Each call, had it run on the pool, would hold a thread for far longer than this.
        #expect(pool.longestJob < .milliseconds(100), "a job held a pool thread for \(pool.longestJob)")
    }

    /// Opens `fifo` for writing without waiting for a reader and writes `data`; false when no reader has it open.
    static func feed(_ fifo: URL, _ data: Data) -> Bool {
        let descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        return true
    }
}

private final class Flags: Sendable {
    let finished = Atomic<Bool>(false)
    let rescued = Atomic<Bool>(false)
}

/// A hierarchy given page by page.
private struct PagedSource: HierarchySource {
    var pages: [[HierarchyNode]]
    var description: String { "paged" }

    func nodes() -> AsyncThrowingStream<[HierarchyNode], any Error> {
        AsyncThrowingStream { continuation in
            for page in pages { continuation.yield(page) }
            continuation.finish()
        }
    }

    func download(_ node: HierarchyNode, to file: URL) async throws {
        throw CocoaError(.fileReadNoSuchFile)
    }
}
