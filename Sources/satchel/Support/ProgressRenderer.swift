import Foundation

/// Turns transfer progress into text: a bar redrawn in place on a terminal, or plain lines for logs.
///
/// It does no I/O and reads no clock — the caller passes the time in seconds from any fixed origin — so tests
/// drive it with made-up times. It returns the exact text to write, or nil when nothing should be written yet.
///
/// ```swift
/// var renderer = ProgressRenderer(style: .bar)
/// if let text = renderer.update(bytes: 482_525_184, total: 1 << 30, at: 0.9) { write(text) }
/// // "\r[#########...........]  45%  460.2 MiB / 1.0 GiB  512.3 MiB/s  ETA 0:01"
/// if let text = renderer.finish(bytes: 1 << 30, total: 1 << 30, at: 2.1) { write(text) }
/// ```
///
/// (The file has no dependency beyond Foundation, so the CLI tests compile it too.)
struct ProgressRenderer: Sendable {
    enum Style: Sendable { case bar, plain }

    /// When to write; the defaults keep short transfers silent and terminals calm.
    struct Timing: Sendable {
        /// Nothing is written for a transfer that ends sooner than this.
        var startDelay: Double = 0.5
        /// The fastest the bar is redrawn (10 times a second).
        var barInterval: Double = 0.1
        /// The longest between plain lines; a line is also written at every 10 %.
        var plainInterval: Double = 5
        /// The rate is measured over this many recent seconds.
        var rateWindow: Double = 3
    }

    let style: Style
    var timing: Timing
    /// What a plain line starts with ("progress", "upload").
    var label: String
    var barWidth: Int

    private var start: Double?
    private var lastWrite: Double?
    private var lastStep = 0
    private var lastLineWidth = 0
    private var samples: [(time: Double, bytes: Int64)] = []
    /// Whether anything was written; only then does `finish` write a last line.
    private(set) var hasWritten = false

    init(style: Style, label: String = "progress", barWidth: Int = 20, timing: Timing = Timing()) {
        self.style = style
        self.label = label
        self.barWidth = barWidth
        self.timing = timing
    }

    /// The text to write for `bytes` of `total` done at `time`, or nil when it is not time to write.
    mutating func update(bytes: Int64, total: Int64?, at time: Double) -> String? {
        record(bytes, at: time)
        guard let start, time - start >= timing.startDelay else { return nil }
        let percent = Self.percent(bytes, of: total)
        switch style {
        case .bar:
            if let lastWrite, time - lastWrite < timing.barInterval { return nil }
            return redraw(barLine(bytes: bytes, total: total, rate: rate(), eta: true), at: time)
        case .plain:
            let step = (percent ?? 0) / 10
            let due = lastWrite.map { time - $0 >= timing.plainInterval } ?? true
            guard due || step > lastStep else { return nil }
            lastStep = step
            lastWrite = time
            hasWritten = true
            return plainLine(bytes: bytes, total: total, rate: rate()) + "\n"
        }
    }

    /// The last text for a finished transfer: the bar at its end and a line break, or a closing plain line.
    mutating func finish(bytes: Int64, total: Int64?, at time: Double) -> String? {
        guard hasWritten else { return nil }
        let elapsed = time - (start ?? time)
        let average = elapsed > 0 ? Double(bytes) / elapsed : nil
        switch style {
        case .bar:
            return redraw(barLine(bytes: bytes, total: total ?? bytes, rate: average, eta: false), at: time) + "\n"
        case .plain:
            guard lastStep < 10 else { return nil }
            lastStep = 10
            return plainLine(bytes: bytes, total: total ?? bytes, rate: average) + "\n"
        }
    }

    /// Ends a bar line that is in the middle of being drawn, so an error message starts on a line of its own.
    mutating func interrupt() -> String? {
        guard style == .bar, hasWritten else { return nil }
        hasWritten = false
        return "\n"
    }

    // MARK: Lines

    /// `[#########...........]  45%  460.2 MiB / 1.0 GiB  512.3 MiB/s  ETA 0:01`; bytes and rate when the total
    /// is unknown.
    func barLine(bytes: Int64, total: Int64?, rate: Double?, eta: Bool) -> String {
        var parts: [String] = []
        if let total, let percent = Self.percent(bytes, of: total) {
            let filled = min(barWidth, barWidth * percent / 100)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
            let percentText = String(percent)
            parts.append("[\(bar)] " + String(repeating: " ", count: 3 - percentText.count) + percentText + "%")
            parts.append("\(Self.bytes(bytes)) / \(Self.bytes(total))")
        } else {
            parts.append(Self.bytes(bytes))
        }
        if let rate {
            parts.append(Self.rate(rate))
            if eta, let total, rate > 0, total >= bytes {
                parts.append("ETA " + Self.duration(Double(total - bytes) / rate))
            }
        }
        return parts.joined(separator: "  ")
    }

    /// `progress: 45% (460.2 MiB of 1.0 GiB, 512.3 MiB/s)`, or `progress: 460.2 MiB (512.3 MiB/s)`.
    func plainLine(bytes: Int64, total: Int64?, rate: Double?) -> String {
        let rateText = rate.map { Self.rate($0) }
        if let total, let percent = Self.percent(bytes, of: total) {
            let details = ["\(Self.bytes(bytes)) of \(Self.bytes(total))", rateText].compactMap { $0 }
            return "\(label): \(percent)% (\(details.joined(separator: ", ")))"
        }
        return "\(label): \(Self.bytes(bytes))" + (rateText.map { " (\($0))" } ?? "")
    }

    // MARK: Measuring

    private mutating func record(_ bytes: Int64, at time: Double) {
        if start == nil { start = time }
        samples.append((time, bytes))
        // Keep one sample older than the window as the reference point.
        while samples.count > 2, time - samples[1].time >= timing.rateWindow { samples.removeFirst() }
    }

    /// Bytes per second over the recent window, when there are two samples apart in time.
    func rate() -> Double? {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return nil }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }

    private mutating func redraw(_ line: String, at time: Double) -> String {
        let padding = String(repeating: " ", count: max(0, lastLineWidth - line.count))
        lastLineWidth = line.count
        lastWrite = time
        hasWritten = true
        return "\r" + line + padding
    }

    // MARK: Formatting

    static func percent(_ bytes: Int64, of total: Int64?) -> Int? {
        guard let total, total > 0 else { return nil }
        return Int(min(100, max(0, Double(bytes) * 100 / Double(total))))
    }

    /// Binary units with one decimal: `512 B`, `460.2 MiB`, `1.0 GiB`.
    static func bytes(_ count: Int64) -> String {
        guard count >= 1024 else { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// `0:02`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let tail = String(format: "%02d", secs)
        return hours > 0 ? "\(hours):" + String(format: "%02d", minutes) + ":\(tail)" : "\(minutes):\(tail)"
    }
}
