import Testing

@testable import satchel

/// `ProgressRenderer` with made-up times.
@Suite struct ProgressRendererTests {
    static let mib: Int64 = 1 << 20
    static let gib: Int64 = 1 << 30

    @Test func barShowsPercentSizesRateAndETA() {
        var renderer = ProgressRenderer(style: .bar, barWidth: 10)
        #expect(renderer.update(bytes: 0, total: Self.gib, at: 0) == nil)
        #expect(renderer.update(bytes: 100 * Self.mib, total: Self.gib, at: 0.2) == nil, "nothing before 0.5 s")
        let line = renderer.update(bytes: 512 * Self.mib, total: Self.gib, at: 1.0)
        #expect(line == "\r[#####.....]  50%  512.0 MiB / 1.0 GiB  512.0 MiB/s  ETA 0:01")
        #expect(renderer.update(bytes: 520 * Self.mib, total: Self.gib, at: 1.05) == nil, "at most 10 redraws/s")
        let done = renderer.finish(bytes: Self.gib, total: Self.gib, at: 2.0)
        // Padded with spaces over the end of the longer line before it.
        #expect(
            done == "\r[##########] 100%  1.0 GiB / 1.0 GiB  512.0 MiB/s" + String(repeating: " ", count: 12) + "\n")
    }

    @Test func barWithUnknownTotalShowsBytesAndRate() {
        var renderer = ProgressRenderer(style: .bar)
        _ = renderer.update(bytes: 0, total: nil, at: 10)
        #expect(renderer.update(bytes: 3 * Self.mib, total: nil, at: 12) == "\r3.0 MiB  1.5 MiB/s")
        #expect(renderer.interrupt() == "\n")
    }

    @Test func plainLinesEveryTenPercentOrFewSeconds() {
        var renderer = ProgressRenderer(style: .plain)
        let total = 1000 * Self.mib
        var lines: [String] = []
        // 1 % per second for 25 s: the first line after 0.5 s, then at 10 % and 20 % and after 5 quiet seconds.
        for second in 0...25 {
            let bytes = Int64(second) * 10 * Self.mib
            if let text = renderer.update(bytes: bytes, total: total, at: Double(second)) { lines.append(text) }
        }
        #expect(lines.first == "progress: 1% (10.0 MiB of 1000.0 MiB, 10.0 MiB/s)\n")
        #expect(
            lines.map { String($0.prefix(13)) } == [
                "progress: 1% ", "progress: 6% ", "progress: 10%", "progress: 15%", "progress: 20%", "progress: 25%",
            ])
        #expect(lines.contains("progress: 10% (100.0 MiB of 1000.0 MiB, 10.0 MiB/s)\n"))
        #expect(
            renderer.finish(bytes: total, total: total, at: 100)
                == "progress: 100% (1000.0 MiB of 1000.0 MiB, 10.0 MiB/s)\n")
    }

    @Test func quickTransfersWriteNothing() {
        var renderer = ProgressRenderer(style: .plain)
        #expect(renderer.update(bytes: 10, total: 100, at: 0) == nil)
        #expect(renderer.update(bytes: 100, total: 100, at: 0.3) == nil)
        #expect(renderer.finish(bytes: 100, total: 100, at: 0.3) == nil)
    }

    @Test(arguments: [
        (Int64(0), "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (482_525_184, "460.2 MiB"), (1 << 30, "1.0 GiB"),
    ])
    func byteFormatting(_ bytes: Int64, _ text: String) {
        #expect(ProgressRenderer.bytes(bytes) == text)
    }

    @Test(arguments: [(1.2, "0:02"), (75, "1:15"), (3723, "1:02:03")])
    func etaFormatting(_ seconds: Double, _ text: String) {
        #expect(ProgressRenderer.duration(seconds) == text)
    }
}
