// TransferBenchmark: 1 GiB over loopback through nginx, curl beside SatchelHTTP's transports.
// See docs/transfer-benchmark.md; run it with scripts/bench-transfer.
import Foundation

do {
    let options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
    if let worker = options.worker {
        exit(await Worker.run(worker))
    }
    let passed = try Orchestrator(options: options).run()
    exit(passed ? 0 : 3)
} catch {
    FileHandle.standardError.write(Data("TransferBenchmark: \(error)\n".utf8))
    exit(1)
}
