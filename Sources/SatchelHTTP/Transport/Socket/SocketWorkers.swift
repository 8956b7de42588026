import Foundation
import Synchronization
import SatchelText

/// Threads for the socket transport's blocking I/O, kept after an exchange and reused by the next one.
///
/// Every exchange still runs on a thread of its own, never on Swift's cooperative pool, so any number of slow
/// transfers can be under way at once. What changes is that a thread is not created and torn down per request:
/// starting a thread costs about as much as a small loopback request. A finished thread waits here for the next
/// job and ends after `idleTimeout` without one; at most `maximumIdle` threads wait at a time.
final class SocketWorkers: Sendable {
    /// The workers every ``SocketTransport`` shares.
    static let shared = SocketWorkers(maximumIdle: 16, idleTimeout: .seconds(30))

    private let maximumIdle: Int
    private let idleTimeout: Duration
    private let idle = Mutex<[Worker]>([])
    private let ended = Mutex(0)

    init(maximumIdle: Int, idleTimeout: Duration) {
        self.maximumIdle = max(0, maximumIdle)
        self.idleTimeout = idleTimeout
    }

    /// How many threads are waiting for work (for tests).
    var idleCount: Int { idle.withLock { $0.count } }

    /// How many threads have ended (for tests).
    var endedCount: Int { ended.withLock { $0 } }

    /// Runs `job` on a waiting thread, or on a new one when none waits. Returns at once.
    func run(_ job: @escaping @Sendable () -> Void) {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.hand(job)
            return
        }
        let worker = Worker()
        let thread = Thread { [self] in
            SocketPlatform.blockBrokenPipeSignalOnThisThread()
            var next: (@Sendable () -> Void)? = job
            while let current = next {
                current()
                next = park(worker)
            }
            ended.withLock { $0 += 1 }
        }
        thread.name = "satchel.http.socket"
        thread.start()
    }

    /// Puts `worker` on the idle list and waits for its next job; nil when the thread should end.
    private func park(_ worker: Worker) -> (@Sendable () -> Void)? {
        let parked = idle.withLock { idle -> Bool in
            guard idle.count < maximumIdle else { return false }
            idle.append(worker)
            return true
        }
        guard parked else { return nil }
        while true {
            if let job = worker.wait(timeout: idleTimeout) { return job }
            // Timed out: leave unless `run` took this worker off the list meanwhile (its job is on the way).
            let left = idle.withLock { idle -> Bool in
                guard let index = idle.firstIndex(where: { $0 === worker }) else { return false }
                idle.remove(at: index)
                return true
            }
            if left { return nil }
        }
    }

    /// One thread's mailbox: a job slot and a semaphore that wakes the thread when a job arrives.
    private final class Worker: Sendable {
        private let job = Mutex<(@Sendable () -> Void)?>(nil)
        private let signal = DispatchSemaphore(value: 0)

        func hand(_ newJob: @escaping @Sendable () -> Void) {
            job.withLock { $0 = newJob }
            signal.signal()
        }

        func wait(timeout: Duration) -> (@Sendable () -> Void)? {
            guard signal.wait(timeout: .now() + timeout.timeInterval) == .success else { return nil }
            return job.withLock { job in
                defer { job = nil }
                return job
            }
        }
    }
}
