import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs password hashing (PBKDF2, about 150 ms of CPU each) on a few threads of its own, at a lower scheduling
/// priority than the threads that serve requests.
///
/// Hashing on the concurrency pool would let anyone who can reach the server occupy it with wrong passwords: on two
/// cores, four clients guessing passwords once made an authenticated `getObject` forty times slower. Here at most
/// ``width`` hashes run at once, the operating system prefers request threads over them, and no more than
/// ``maxWaiting`` verifications queue; past that, ``run(_:)`` throws ``Busy`` at once instead of queueing
/// without bound.
final class PasswordHasher: Sendable {
    /// The hasher is full: more verifications are waiting than it queues.
    struct Busy: Error {}

    /// How many hashes run at once.
    let width: Int
    /// How many verifications may wait for a thread.
    let maxWaiting: Int

    private struct Job {
        let work: @Sendable () -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        var stopped = false
        var waiting: Int { jobs.count - head }

        mutating func pop() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let queue = Mutex(Queue())
    private let condition = NSCondition()

    /// - Parameters:
    ///   - width: threads (default: half the processors, at least one).
    ///   - maxWaiting: verifications that may queue before ``Busy`` is thrown.
    init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), maxWaiting: Int = 64) {
        self.width = max(1, width)
        self.maxWaiting = max(1, maxWaiting)
        for index in 0..<self.width {
            let thread = Thread { [self] in workerLoop() }
            thread.name = "satchel.password-hasher.\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Runs `body` on a hashing thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = queue.withLock { queue -> Bool in
                guard !queue.stopped, queue.waiting < maxWaiting else { return false }
                queue.jobs.append(Job { continuation.resume(returning: body()) })
                return true
            }
            guard accepted else {
                continuation.resume(throwing: Busy())
                return
            }
            condition.lock()
            condition.signal()
            condition.unlock()
        }
    }

    /// Lets the threads end once the queue is empty (they hold the hasher until then).
    func stop() {
        queue.withLock { $0.stopped = true }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private func workerLoop() {
        lowerPriority()
        while true {
            condition.lock()
            var next: Job?
            while true {
                let (job, stopped) = queue.withLock { queue in (queue.pop(), queue.stopped) }
                if let job {
                    next = job
                    break
                }
                if stopped { break }
                condition.wait()
            }
            condition.unlock()
            guard let job = next else { return }
            job.work()
        }
    }

    /// Linux keeps a nice value per thread (`setpriority` with id 0 changes the calling thread only): a higher one
    /// here lets request threads run first when both want the processor.
    private func lowerPriority() {
        #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #else
            Thread.current.qualityOfService = .utility
        #endif
    }
}
