import Foundation
import SatchelTestSupport
import Testing

/// The one runner for child processes (peers, kill loops): a timeout stops only what is still running.
@Suite("Child processes")
struct ChildProcessTests {
    @Test("a timeout kills a process that runs too long, and leaves one that ends in time alone")
    func timeout() async throws {
        let start = ContinuousClock.now
        let stuck = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sleep"), ["30"], timeout: .milliseconds(300))
        #expect(stuck.signalled && ContinuousClock.now - start < .seconds(10))
        let quick = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "echo done; exit 3"], timeout: .seconds(30))
        #expect(!quick.signalled && quick.status == 3 && quick.output == "done\n")
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
        let here = try await ChildProcess.run(URL(fileURLWithPath: "/bin/pwd"), [], in: directory)
        #expect(here.output.trimmingCharacters(in: .newlines) == directory.path)
    }
}
