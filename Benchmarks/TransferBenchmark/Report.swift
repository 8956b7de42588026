import Foundation

/// One transfer as measured.
struct Sample {
    var seconds: Double
    var bytes: Int64
    /// Peak resident set of the process that did the transfer, in KiB.
    var peakKiB: Int

    var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
}

struct Method: Hashable {
    var name: String
    var label: String
}

/// The results table: median throughput per method and direction beside curl's, peak RSS, and the verdict.
struct Report {
    var samples: [String: [Sample]] = [:]
    var failures: [String: String] = [:]

    static func key(_ method: String, _ direction: String) -> String { "\(method) \(direction)" }

    mutating func add(_ sample: Sample, method: String, direction: String) {
        samples[Self.key(method, direction), default: []].append(sample)
    }

    mutating func fail(_ reason: String, method: String, direction: String) {
        failures[Self.key(method, direction)] = reason
    }

    func median(_ method: String, _ direction: String) -> Double? {
        guard let values = samples[Self.key(method, direction)]?.map(\.megabytesPerSecond).sorted(), !values.isEmpty
        else { return nil }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    func peakMiB(_ method: String, _ direction: String) -> Double? {
        samples[Self.key(method, direction)]?.map { Double($0.peakKiB) / 1024 }.max()
    }

    func render(methods: [Method], header: String) -> String {
        var lines = [header]
        let columns = ["method", "direction", "MB/s (median)", "× curl", "peak RSS MiB", "runs (MB/s)"]
        lines.append(row(columns))
        lines.append(row(columns.map { String(repeating: "-", count: $0.count) }))
        for direction in ["download", "upload"] {
            let curl = median("curl", direction)
            for method in methods {
                guard let speed = median(method.name, direction) else {
                    if let reason = failures[Self.key(method.name, direction)] {
                        lines.append(row([method.label, direction, "failed", "–", "–", String(reason.prefix(150))]))
                    }
                    continue
                }
                let ratio = curl.map { String(format: "%.2f", speed / $0) } ?? "–"
                let runs = samples[Self.key(method.name, direction)]!.map {
                    String(format: "%.0f", $0.megabytesPerSecond)
                }
                lines.append(
                    row([
                        method.label, direction, String(format: "%.0f", speed), ratio,
                        String(format: "%.1f", peakMiB(method.name, direction) ?? 0), runs.joined(separator: " "),
                    ])
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Targets of the issue: at least 70% of curl's throughput, peak RSS under 100 MiB, both directions.
    func verdict(for method: String, label: String) -> (text: String, passed: Bool) {
        var parts: [String] = []
        var passed = true
        for direction in ["download", "upload"] {
            guard let speed = median(method, direction), let curl = median("curl", direction),
                let peak = peakMiB(method, direction)
            else {
                passed = false
                continue
            }
            let ratio = speed / curl
            passed = passed && ratio >= 0.70 && peak < 100
            parts.append(String(format: "%@ %.2f× curl at %.0f MiB", direction, ratio, peak))
        }
        let outcome = passed ? "MEETS" : "MISSES"
        return (
            "verdict: \(label) \(parts.joined(separator: ", ")) → \(outcome) the targets"
                + " (≥ 0.70× curl, < 100 MiB)",
            passed
        )
    }

    private func row(_ cells: [String]) -> String {
        let widths = [22, 10, 14, 7, 13, 0]
        return zip(cells, widths).map { cell, width in
            cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0)
        }
        .joined(separator: " ")
    }
}
