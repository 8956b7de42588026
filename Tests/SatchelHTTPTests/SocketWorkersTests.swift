import Foundation
import Synchronization
import Testing

@testable import SatchelHTTP

/// The socket transport's reusable I/O threads: a finished thread takes the next job, every job still gets a
/// thread of its own when many run at once, and idle threads end after their timeout.
@Suite struct SocketWorkersTests {
    /// Runs `job` on `workers` and waits for it; returns the thread it ran on.
    private func runAndWait(_ workers: SocketWorkers, _ job: @escaping @Sendable () -> Void = {}) async -> String {
        await withCheckedContinuation { continuation in
            workers.run {
                job()
                continuation.resume(returning: "\(Unmanaged.passUnretained(Thread.current).toOpaque())")
            }
        }
    }

    @Test func aFinishedThreadRunsTheNextJob() async throws {
        let workers = SocketWorkers(maximumIdle: 4, idleTimeout: .seconds(30))
        let first = await runAndWait(workers)
        try await waitUntil { workers.idleCount == 1 }
        let second = await runAndWait(workers)
        #expect(first == second)
        try await waitUntil { workers.idleCount == 1 }
    }

    @Test func jobsThatBlockEachGetAThread() async throws {
        // Twenty jobs that can only finish once all twenty have started: they need twenty threads at once.
        let workers = SocketWorkers(maximumIdle: 4, idleTimeout: .seconds(30))
        let count = 20
        let started = Mutex(0)
        let allStarted = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let finished = Mutex(0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for _ in 0..<count {
                workers.run {
                    let now = started.withLock { value -> Int in
                        value += 1
                        return value
                    }
                    if now == count {
                        for _ in 0..<count { released.signal() }
                        allStarted.signal()
                    }
                    _ = released.wait(timeout: .now() + 10)
                    let done = finished.withLock { value -> Int in
                        value += 1
                        return value
                    }
                    if done == count { continuation.resume() }
                }
            }
        }
        #expect(allStarted.wait(timeout: .now()) == .success)
        #expect(finished.withLock { $0 } == count)
        // Only `maximumIdle` of the twenty threads stay.
        try await waitUntil { workers.idleCount == 4 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(workers.idleCount == 4)
    }

    @Test func idleThreadsEnd() async throws {
        let workers = SocketWorkers(maximumIdle: 4, idleTimeout: .milliseconds(200))
        _ = await runAndWait(workers)
        // The thread waits, finds no job within its timeout, and ends (counted, so a busy run cannot miss it).
        try await waitUntil { workers.endedCount == 1 }
        #expect(workers.idleCount == 0)
        // A job after that starts a new thread and still runs.
        let ran = Mutex(false)
        _ = await runAndWait(workers) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    private func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not become true within 30 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
