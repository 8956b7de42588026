import Foundation
import Synchronization

/// A task executor with a fixed number of threads (two, as on a two-core machine's concurrency pool), which
/// measures how long each job holds its thread: code that blocks a thread (`fsync`, a synchronous database call, a
/// file copy) shows as a long job, and with every thread blocked nothing else on the executor runs.
///
/// Run code on it with `withTaskExecutorPreference(pool) { … }`; child tasks inherit the preference. Call
/// ``shutdown()`` when done.
public final class RestrictedPool: TaskExecutor, @unchecked Sendable {
    // @unchecked: the job queue is guarded by `condition`; `longest` is a Mutex.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private let longest = Mutex<(Duration, String)>((.zero, ""))
    private let label: String

    public init(threads: Int = 2, label: String = "restricted-pool") {
        self.label = label
        for index in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = "\(label).\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// The longest time one job held a thread since the last ``resetLongestJob()``.
    public var longestJob: Duration { longest.withLock { $0.0 } }

    public func resetLongestJob() { longest.withLock { $0 = (.zero, "") } }

    /// Lets the threads end once the queue is empty.
    public func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        let clock = ContinuousClock()
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            let start = clock.now
            job.runSynchronously(on: asUnownedTaskExecutor())
            let held = clock.now - start
            longest.withLock { if held > $0.0 { $0 = (held, label) } }
        }
    }
}

/// Measures how late a task that asks to wake every `interval` actually wakes, while other work runs on the same
/// executor: the latency a request would see.
public final class LatencyProbe: Sendable {
    private let worst = Mutex<Duration>(.zero)
    private let ticks = Mutex<Int>(0)
    private let running = Atomic<Bool>(true)

    public init() {}

    /// Ticks until ``stop()``; run it as a child task on the executor under test.
    public func run(interval: Duration = .milliseconds(5)) async {
        let clock = ContinuousClock()
        while running.load(ordering: .relaxed) {
            let asked = clock.now
            try? await Task.sleep(for: interval)
            let late = clock.now - asked - interval
            worst.withLock { $0 = max($0, late) }
            ticks.withLock { $0 += 1 }
        }
    }

    public func stop() { running.store(false, ordering: .relaxed) }

    /// The latest wake-up seen.
    public var worstDelay: Duration { worst.withLock { $0 } }
    /// How many times the probe woke.
    public var tickCount: Int { ticks.withLock { $0 } }
}
