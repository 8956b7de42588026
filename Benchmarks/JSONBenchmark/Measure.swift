import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One measured method: the median of several timed runs over all pages.
struct Result {
    var method: String
    var seconds: Double
    var bytes: Int
    var entities: Int
    var note = ""

    var megabytesPerSecond: Double { Double(bytes) / 1_000_000 / seconds }
    var entitiesPerSecond: Double { Double(entities) / seconds }
}

enum Measure {
    /// Runs `body` `runs` times (after one warm-up) and returns the median wall time in seconds.
    static func median(runs: Int, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// Peak resident set size of this process, in MB.
    static func peakRSSMegabytes() -> Double? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
                return kilobytes / 1024
            }
            return nil
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Double(usage.ru_maxrss) / 1_048_576  // bytes on Darwin
        #endif
    }
}

/// Keeps results alive so the optimizer cannot drop the work.
nonisolated(unsafe) var blackHole = 0

@inline(never)
func consume<T>(_ value: T) {
    withUnsafeBytes(of: value) { blackHole &+= $0.count }
}
