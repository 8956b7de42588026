import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a program to completion with `posix_spawnp`, capturing its standard output.
struct ChildProcess {
    var status: Int32
    var output: String
    /// The last line of standard error, when captured.
    var error: String = ""

    /// Runs `arguments`; with `captureErrors`, standard error goes to a temporary file whose last line is kept.
    static func run(_ arguments: [String], captureErrors: Bool = false) throws -> ChildProcess {
        let errorFile = captureErrors ? "\(NSTemporaryDirectory())/bench-stderr-\(getpid())" : nil
        let pid = try spawn(arguments, captureOutput: true, errorFile: errorFile)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pid.output, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(pid.output)
        let status = wait(pid.pid)
        var errorText = ""
        if let errorFile {
            errorText = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: errorFile)
            if status != 0 { FileHandle.standardError.write(Data(errorText.utf8)) }
        }
        let lastLine = errorText.split(separator: "\n").last.map(String.init) ?? "exit status \(status)"
        return ChildProcess(status: status, output: String(decoding: output, as: UTF8.self), error: lastLine)
    }

    /// Starts `arguments` and returns its pid (and the read end of its standard output when captured).
    static func spawn(
        _ arguments: [String], captureOutput: Bool, errorFile: String? = nil
    ) throws
        -> (pid: pid_t, output: Int32)
    {
        var pipeEnds: [Int32] = [-1, -1]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if captureOutput {
            guard pipe(&pipeEnds) == 0 else { throw BenchmarkError("pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        }
        if let errorFile {
            posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        if captureOutput { close(pipeEnds[1]) }
        guard result == 0 else {
            if captureOutput { close(pipeEnds[0]) }
            throw BenchmarkError("cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return (pid, pipeEnds[0])
    }

    /// Waits for `pid`; returns its exit status (or 128 + signal).
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// The full path of a program on `PATH`, or nil.
    static func which(_ program: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(program)"
            if access(path, X_OK) == 0 { return path }
        }
        for directory in ["/usr/sbin", "/sbin"] where access("\(directory)/\(program)", X_OK) == 0 {
            return "\(directory)/\(program)"
        }
        return nil
    }
}
