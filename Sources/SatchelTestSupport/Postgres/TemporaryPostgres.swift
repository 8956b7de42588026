import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a temporary folder, a server on
/// 127.0.0.1 on a free port (its unix socket in the same folder), databases made on demand.
///
/// ```swift
/// let postgres = try await TemporaryPostgres.start()
/// let url = try postgres.createDatabase()   // postgres://satchel@127.0.0.1:54012/satchel_1
/// …
/// await postgres.stop()
/// ```
///
/// The server runs under a small shell that waits on a pipe from this process: when the process ends, even by a
/// crash, the pipe closes and the shell stops the server and removes the folder, so no cluster outlives its tests.
/// As root (initdb refuses to run as root) every binary runs as the `postgres` system user through `runuser`.
public final class TemporaryPostgres: Sendable {
    /// The folder holding the cluster (`data/`) and the unix socket.
    public let folder: String
    /// The TCP port the server listens on (127.0.0.1).
    public let port: Int
    /// The superuser (trust authentication, no password).
    public let user = "satchel"
    private let binaries: String
    private let runAs: String?
    private let supervisor: Process
    private let lifeline: Pipe
    private let state = Mutex<(databases: Int, stopped: Bool)>((0, false))

    private init(folder: String, port: Int, binaries: String, runAs: String?, supervisor: Process, lifeline: Pipe) {
        self.folder = folder
        self.port = port
        self.binaries = binaries
        self.runAs = runAs
        self.supervisor = supervisor
        self.lifeline = lifeline
    }

    /// The URL of database `name` over TCP.
    public func url(database name: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/\(name)" }

    /// The URL of database `name` over the unix socket in ``folder``.
    public func socketURL(database name: String) -> String {
        "postgres://\(user)@localhost:\(port)/\(name)?host=\(folder)"
    }

    /// Starts a PostgreSQL 15 cluster; waits until it accepts connections.
    ///
    /// - Throws: ``TemporaryPostgresError`` when the binaries are missing (install them with
    ///   `apt-get install postgresql`), or initdb or the server fail.
    public static func start(timeout: Duration = .seconds(60)) async throws -> TemporaryPostgres {
        let binaries = try findBinaries()
        let runAs: String? = geteuid() == 0 ? "postgres" : nil
        var template = Array((NSTemporaryDirectory() + "/satchel-postgres-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TemporaryPostgresError(message: "cannot create a temporary folder: errno \(errno)")
        }
        let folder = String(cString: created)
        if let runAs {
            guard let account = getpwnam(runAs) else {
                try? FileManager.default.removeItem(atPath: folder)
                throw TemporaryPostgresError(
                    message: "running as root, but there is no '\(runAs)' user to run PostgreSQL as "
                        + "(apt-get install postgresql creates it)")
            }
            guard chown(folder, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                try? FileManager.default.removeItem(atPath: folder)
                throw TemporaryPostgresError(message: "cannot hand \(folder) to \(runAs): errno \(errno)")
            }
        }
        do {
            try run(
                binaries + "/initdb",
                ["-D", folder + "/data", "-U", "satchel", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                runAs: runAs)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        let port = try LoopbackPort.free()
        // The shell starts the server, then waits for this process to close its stdin.
        let script = """
            "$1/postgres" -D "$2/data" -k "$2" -h 127.0.0.1 -p "$3" -c fsync=off -c synchronous_commit=off \
            -c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB >"$2/server.log" 2>&1 &
            server=$!
            cat >/dev/null
            kill -INT "$server" 2>/dev/null
            wait "$server"
            rm -rf "$2"
            """
        let supervisor = Process()
        let lifeline = Pipe()
        var arguments = ["sh", "-c", script, "satchel-postgres", binaries, folder, String(port)]
        if let runAs { arguments = ["runuser", "-u", runAs, "--"] + arguments }
        supervisor.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        supervisor.arguments = arguments
        supervisor.standardInput = lifeline
        supervisor.standardOutput = FileHandle.nullDevice
        supervisor.standardError = FileHandle.nullDevice
        do {
            try supervisor.run()
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw TemporaryPostgresError(message: "cannot start the PostgreSQL server: \(error)")
        }
        let postgres = TemporaryPostgres(
            folder: folder, port: port, binaries: binaries, runAs: runAs, supervisor: supervisor, lifeline: lifeline)
        do {
            try await postgres.waitUntilReady(timeout: timeout)
        } catch {
            await postgres.stop()
            throw error
        }
        return postgres
    }

    /// Creates a new, empty database and returns its TCP URL.
    public func createDatabase(named name: String? = nil) throws -> String {
        let name =
            name
            ?? state.withLock { state in
                state.databases += 1
                return "satchel_\(state.databases)"
            }
        try Self.run(binaries + "/createdb", ["-h", folder, "-p", String(port), "-U", user, name], runAs: runAs)
        return url(database: name)
    }

    /// Stops the server and removes the folder. Safe to call more than once.
    public func stop() async {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        try? lifeline.fileHandleForWriting.close()
        // Fast shutdown takes well under a second; give up waiting after 30 s.
        for _ in 0..<300 where supervisor.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if supervisor.isRunning { supervisor.terminate() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func waitUntilReady(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        let pidFile = folder + "/data/postmaster.pid"
        while ContinuousClock.now < deadline {
            // The eighth line of postmaster.pid says "ready" once the server accepts connections.
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                text.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "ready" })
            {
                return
            }
            guard supervisor.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
        throw TemporaryPostgresError(message: "the PostgreSQL server did not become ready: \(log.suffix(2000))")
    }

    private static func findBinaries() throws -> String {
        var candidates = ["/usr/lib/postgresql/15/bin"]
        if let path = ProcessInfo.processInfo.environment["PATH"] {
            candidates += path.split(separator: ":").map(String.init)
        }
        let names = ["initdb", "postgres", "createdb"]
        for folder in candidates {
            let resolved = URL(fileURLWithPath: folder + "/initdb").resolvingSymlinksInPath()
                .deletingLastPathComponent().path
            if names.allSatisfy({ FileManager.default.isExecutableFile(atPath: resolved + "/" + $0) }) {
                return resolved
            }
        }
        throw TemporaryPostgresError(
            message: "PostgreSQL is not installed (no initdb, postgres and createdb in /usr/lib/postgresql/15/bin "
                + "or on the PATH): apt-get install postgresql")
    }

    /// Runs a binary to completion (as `runAs` when set); throws with its output when it fails.
    private static func run(_ executable: String, _ arguments: [String], runAs: String?) throws {
        let process = Process()
        if let runAs {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["runuser", "-u", runAs, "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        // runuser keeps the working directory, which the postgres user may not be allowed into.
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        do {
            try process.run()
        } catch {
            throw TemporaryPostgresError(message: "cannot run \(executable): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: data, as: UTF8.self)
            throw TemporaryPostgresError(
                message: "\(executable) failed with status \(process.terminationStatus): \(text.suffix(2000))")
        }
    }

}

/// Why a ``TemporaryPostgres`` could not start.
public struct TemporaryPostgresError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(message: String) { self.message = message }

    public var description: String { "TemporaryPostgres: \(message)" }
}
