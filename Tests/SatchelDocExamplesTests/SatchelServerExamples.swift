import Foundation
import SatchelServer

enum SatchelServerExamples {
    /// GettingStarted.md: a users file with one administrator.
    static func writeUsers(to file: URL, password: String) throws {
        let hash = try PasswordHash.make(password: password)  // salted PBKDF2-SHA256
        let users = UsersFile(entries: ["alice": hash], administrators: ["alice"])
        try users.save(to: file)
    }

    /// GettingStarted.md: start a server in this process, then stop it.
    static func startAndStop(data: URL, users: URL) async throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 8099, dataDirectory: data, usersFile: users)
        configuration.store = .memory  // nothing is kept after the server stops
        let running = try await SatchelServerApp(configuration: configuration).start()
        print(running.baseURL)  // http://127.0.0.1:8099
        print(running.baseURL.absoluteString + MountPoints.cmisBrowser)  // the CMIS Browser binding
        await running.shutdown()  // requests in flight finish first
    }

    /// GettingStarted.md: a free port, and a server that does not start.
    static func startOnAFreePort(data: URL) async -> RunningServer? {
        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.port = 0  // the system picks one
        do {
            let running = try await SatchelServerApp(configuration: configuration).start()
            print("listening on port \(running.port)")
            if let demo = running.demoCredentials { print("created the user \(demo.user)") }
            return running
        } catch let error as ServerError {
            print("the server did not start: \(error.message)")  // the port is taken, the data folder in use, …
            return nil
        } catch {
            print("the server did not start: \(error)")
            return nil
        }
    }

    /// GettingStarted.md: run until SIGINT or SIGTERM, as `satchel serve` does.
    static func runUntilSignal(configuration: ServerConfiguration) async throws {
        try await SatchelServerApp(configuration: configuration).run { running in
            print("Satchel server listening on \(running.baseURL)")
        }
    }

    /// GettingStarted.md: HTTPS, a SQLite store, slower login guessing.
    static func productionConfiguration(data: URL, certificate: URL, key: URL) -> ServerConfiguration {
        var configuration = ServerConfiguration(host: "0.0.0.0", port: 8443, dataDirectory: data)
        configuration.store = .sqlite(path: data.appendingPathComponent("satchel.sqlite").path)
        configuration.tls = TLSFiles(certificateChain: certificate, privateKey: key)
        configuration.loginThrottling.perUser = LoginThrottling.Rule(
            freeFailures: 3, firstDelay: .seconds(2), maximumDelay: .seconds(120))
        configuration.connectionLimits.bodyTimeout = .seconds(60)  // slow mobile uploads
        configuration.xsrfPolicy = .strict
        return configuration
    }
}
