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

    static let shell = URL(fileURLWithPath: "/bin/sh")
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    /// A process that sleeps with `signals` back at their default action and unblocked, whatever the test
    /// runner's children inherit (a shell's background jobs start with SIGINT ignored, and a child inherits the
    /// signal mask of the thread that started it).
    static func sleeper(defaulting signals: [String]) -> [String] {
        let names = signals.map { "signal.\($0)" }.joined(separator: ", ")
        let reset = signals.map { "signal.signal(signal.\($0), signal.SIG_DFL)" }.joined(separator: "; ")
        return [
            "-c",
            "import signal, time; \(reset); signal.pthread_sigmask(signal.SIG_UNBLOCK, {\(names)}); time.sleep(30)",
        ]
    }

    @Test("input goes to standard input, standard error can be read apart, and an interrupt is Ctrl-C")
    func streams() async throws {
        let echo = try await ChildProcess.run(
            Self.shell, ["-c", "read line; echo \"out:$line\"; echo \"err:$line\" >&2"], capturingErrors: true,
            input: Data("hello\n".utf8))
        #expect(echo.output == "out:hello\n" && echo.errors == "err:hello\n")
        let environment = try await ChildProcess.run(
            Self.shell, ["-c", "echo \"${ONLY:-}${HOME:-none}\""], environment: ["ONLY": "x"],
            inheritingEnvironment: false)
        #expect(environment.output == "xnone\n")
        let start = ContinuousClock.now
        let interrupted = try await ChildProcess.run(
            Self.python, Self.sleeper(defaulting: ["SIGINT"]), interruptAfter: .milliseconds(300),
            timeout: .seconds(20))
        #expect(interrupted.signalled && interrupted.status == SIGINT)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a started process is stopped with SIGTERM, and with SIGKILL when it ignores SIGTERM, in bounded time")
    func startAndStop() async throws {
        let polite = try ChildProcess.start(Self.python, Self.sleeper(defaulting: ["SIGTERM"]))
        try await Task.sleep(for: .milliseconds(300))
        #expect(polite.isRunning && polite.pid > 0)
        await polite.stop(grace: .seconds(5))
        #expect(!polite.isRunning)
        let politeExit = await polite.waitForExit()
        #expect(politeExit == (SIGTERM, true), "\(politeExit)")

        // One process that ignores SIGTERM (a shell's child would keep its pipes, and so its exit, waiting).
        let stubborn = try ChildProcess.start(
            Self.python, ["-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(30)"])
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        await stubborn.stop(grace: .milliseconds(300))
        #expect(!stubborn.isRunning)
        let stubbornExit = await stubborn.waitForExit()
        #expect(stubbornExit == (SIGKILL, true), "\(stubbornExit)")
        #expect(ContinuousClock.now - start < .seconds(5))

        let quick = try ChildProcess.start(Self.shell, ["-c", "exit 4"])
        #expect(await quick.waitForExit() == (4, false))
    }
}
