import ArgumentParser
import Foundation
import Logging
import SatchelGateway
import SatchelObjectStore
import SatchelOfflineServer
import SatchelServer

/// `satchel serve [run]`: starts the server and runs until SIGINT or SIGTERM.
struct ServeRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Start the server (the default subcommand).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: ArgumentHelp("The data folder: blobs, users file, database.", valueName: "folder"))
    var data = "./satchel-data"

    @Option(help: ArgumentHelp("The users file (JSON).", valueName: "file"))
    var users: String?

    @Flag(help: "Keep metadata in memory only: everything is gone when the server stops.")
    var memory = false

    @Option(help: ArgumentHelp("Store metadata in PostgreSQL.", valueName: "url"))
    var postgres: String?

    @Option(
        help: ArgumentHelp(
            "Keep content in an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL[&region=R][&credentials=FILE]"
                + " (keys from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the owner-only FILE; docs/server.md).",
            valueName: "s3-url"))
    var blobs: String?

    @Option(
        help: ArgumentHelp(
            "How long a blob nothing refers to is kept, in seconds (default: 0 alone, 600 with --postgres or --blobs;"
                + " longer than the longest upload any node sharing the blobs receives).",
            valueName: "seconds"))
    var blobGrace: Int?

    @Flag(
        help: ArgumentHelp(
            "Draw a new XSRF secret: every XSRF token given before, by any server sharing the store, is refused."))
    var newXsrfSecret = false

    @Flag(help: "Require the XSRF token on every change, also for Basic clients of the shared repository.")
    var strictXsrf = false

    @Flag(
        help: "Keep the CMIS 1.1 new-type capability elements in AtomPub repository info (cmislib 0.7.0 fails on them)."
    )
    var fullCapabilities = false

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "An IP address whose X-Forwarded-For/-Host/-Proto headers are believed (repeat for several).",
            valueName: "address"))
    var trustedProxies: [String] = []

    @Option(
        help: ArgumentHelp(
            "Mount back-end CMIS repositories beside the local ones, as this JSON file describes (docs/gateway.md).",
            valueName: "file"))
    var gateway: String?

    @Option(
        help: ArgumentHelp(
            "Serve the offline middle tier for this SAP application configuration file (repeatable;"
                + " docs/offline-server.md).", valueName: "file.ini"))
    var offline: [String] = []

    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert (readable by its owner only).", valueName: "file"))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Require client certificates signed by these PEM certificate authorities (with --tls-cert).",
            valueName: "file"))
    var tlsClientCa: String?

    @Flag(name: .shortAndLong, help: "Log more (-v debug, -vv trace).")
    var verbose: Int

    func validate() throws {
        if memory && postgres != nil { throw ValidationError("--memory and --postgres cannot be combined") }
        if memory && blobs != nil { throw ValidationError("--memory and --blobs cannot be combined") }
        if let blobGrace, blobGrace < 0 { throw ValidationError("--blob-grace cannot be negative") }
        if let blobGrace, blobGrace < 60, postgres != nil || blobs != nil {
            // Another node may have stored a blob it has not committed yet: a grace shorter than that step removes it.
            throw ValidationError("--blob-grace must be at least 60 seconds with --postgres or --blobs")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if tlsClientCa != nil && tlsCert == nil { throw ValidationError("--tls-client-ca needs --tls-cert") }
    }

    func run() async throws {
        let level: Logger.Level = verbose >= 2 ? .trace : verbose == 1 ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = ServerLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let dataDirectory = URL(fileURLWithPath: data, isDirectory: true).standardizedFileURL
        var configuration = ServerConfiguration(
            host: host, port: port, dataDirectory: dataDirectory,
            usersFile: users.map { URL(fileURLWithPath: $0) },
            store: ServeDefaults.store(memory: memory, postgres: postgres, data: dataDirectory),
            xsrfPolicy: strictXsrf ? .strict : .standard, omitNewTypeCapabilities: !fullCapabilities,
            trustedProxies: TrustedProxies(Set(trustedProxies)), logLevel: level)
        configuration.logLevel = level
        configuration.blobGrace = blobGrace.map { .seconds($0) }
        configuration.newXSRFSecret = newXsrfSecret
        if let blobs {
            do {
                configuration.blobs = .s3(try S3BlobBackend.Configuration(url: blobs))
            } catch {
                Terminal.writeError("satchel serve: --blobs: \(error)\n")
                throw ExitCode(SatchelExitCode.usage.rawValue)
            }
        }
        if let tlsCert, let tlsKey {
            configuration.tls = TLSFiles(
                certificateChain: URL(fileURLWithPath: tlsCert), privateKey: URL(fileURLWithPath: tlsKey),
                clientCertificateAuthorities: tlsClientCa.map { URL(fileURLWithPath: $0) })
        }
        if let gateway {
            do {
                configuration.gateway = try GatewayConfiguration.load(from: URL(fileURLWithPath: gateway))
            } catch {
                Terminal.writeError("satchel serve: \(error)\n")
                throw ExitCode(SatchelExitCode.usage.rawValue)
            }
        }
        for file in offline {
            do {
                let application = try OfflineApplicationConfiguration(contentsOf: file)
                for warning in application.warnings { Terminal.writeError("satchel serve: warning: \(warning)\n") }
                configuration.offline.append(application)
            } catch {
                Terminal.writeError("satchel serve: error: \(error)\n")
                throw ExitCode(SatchelExitCode.usage.rawValue)
            }
        }
        let settings = configuration
        let app = SatchelServerApp(configuration: settings)
        do {
            try await app.run { running in
                let demo = running.demoCredentials.map { ServeBanner.handOver($0, configuration: settings) }
                Terminal.writeError(ServeBanner.text(running: running, configuration: settings, demo: demo))
            }
        } catch {
            Terminal.writeError("satchel serve: \(error)\n")
            throw ExitCode(SatchelExitCode.failure.rawValue)
        }
    }
}

/// Store defaults in one place.
enum ServeDefaults {
    static func store(memory: Bool, postgres: String?, data: URL) -> ServerConfiguration.Store {
        if let postgres { return .postgres(url: postgres) }
        if memory { return .memory }
        return .sqlite(path: data.appendingPathComponent("satchel.sqlite").path)
    }
}

/// What `satchel serve` prints once it listens.
enum ServeBanner {
    /// Where the demo user's password went.
    enum DemoPassword {
        case file(URL, alsoOnTerminal: Bool)
        case nowhere(String)
    }

    /// Gives the demo password to the person who started the server, never to standard error, where the access
    /// log goes: into `<data>/demo-password`, readable by its owner only, and onto the controlling terminal when
    /// there is one (a server started by a service manager has none).
    static func handOver(
        _ demo: (user: String, password: String), configuration: ServerConfiguration
    ) -> DemoPassword {
        let file = configuration.dataDirectory.appendingPathComponent("demo-password")
        do {
            try Terminal.writePrivateFile(file, demo.password + "\n")
        } catch {
            return .nowhere("cannot write \(file.path): \(error.localizedDescription)")
        }
        let shown = Terminal.writeToControllingTerminal("Password of \(demo.user): \(demo.password)\n")
        return .file(file, alsoOnTerminal: shown)
    }

    static func text(running: RunningServer, configuration: ServerConfiguration, demo: DemoPassword? = nil) -> String {
        let base = running.baseURL.absoluteString
        var lines = [
            "Satchel server listening on \(base)",
            "  Mobile Documents  Browser  \(base)\(MountPoints.mobileDocumentsBrowser)",
            "                    AtomPub  \(base)\(MountPoints.mobileDocumentsAtom)",
            "  CMIS 1.1          Browser  \(base)\(MountPoints.cmisBrowser)",
            "                    AtomPub  \(base)\(MountPoints.cmisAtom)",
            "  Nuxeo REST        API      \(base)\(NuxeoRoutes.apiRoot)",
            "  Discovery                  \(base)/cmis-endpoints.json",
            "  Data                       \(configuration.dataDirectory.path)",
        ]
        for mount in configuration.gateway?.mounts ?? [] {
            lines.append("  Gateway mount              \(mount.id) (a repository of every API above)")
        }
        for application in configuration.offline {
            for endpoint in application.endpoints {
                let queries = endpoint.definingQueries.map(\.name).joined(separator: ", ")
                lines.append(
                    "  "
                        + "Offline OData".padding(toLength: 18, withPad: " ", startingAt: 0)
                        + endpoint.name.padding(toLength: max(9, endpoint.name.count + 1), withPad: " ", startingAt: 0)
                        + "\(base)/offline/\(endpoint.name)/"
                        + " → \(endpoint.backendURL.absoluteString) (\(queries))")
            }
        }
        switch configuration.store {
        case .memory: lines.append("  Store                      memory (nothing is kept after the server stops)")
        case .sqlite(let path): lines.append("  Store                      SQLite \(path)")
        case .postgres: lines.append("  Store                      PostgreSQL")
        }
        if case .s3(let settings) = configuration.blobs {
            lines.append(
                "  Blobs                      s3://\(settings.bucket)/\(settings.prefix) at \(settings.endpoint.absoluteString)"
            )
        }
        if let user = running.demoCredentials?.user, let demo {
            lines.append("")
            lines.append(
                "Created user \(user), an administrator (stored hashed in \(configuration.effectiveUsersFile.path)).")
            switch demo {
            case .file(let file, let shown):
                lines.append(
                    "Its password is \(shown ? "shown on your terminal and " : "")in \(file.path) (readable by you only):"
                        + " note it, then delete the file.")
            case .nowhere(let reason):
                lines.append(
                    "Its password could not be handed over (\(reason)): delete the users file and start again.")
            }
        }
        lines.append("Press Ctrl-C to stop.")
        return lines.joined(separator: "\n") + "\n"
    }
}
