import Foundation
import SatchelGateway
import SatchelJSON
import SatchelServer
import SatchelTestSupport
import Testing
import SatchelHTTP

/// Real CMIS clients against a live `satchel serve` (SQLite store): cmislib 0.7.0 over both bindings, cmissh's
/// `cmis-tck` over AtomPub, and libcmis's `cmis-client` over AtomPub. Each asserts what the peer reports. The CMIS
/// peers run three times: against the server's own repository, against a second server mounted through the first
/// as a gateway (`docs`, each user passed through), and against the server over HTTPS (`--tls-cert`, a certificate
/// from a test authority the Python peers trust through `REQUESTS_CA_BUNDLE`), where they must pass the same way.
@Suite("Real CMIS clients against satchel serve", .serialized)
struct PeerInteropTests {
    /// Where a peer runs: the local store, a gateway mount, or the local store over HTTPS.
    enum Setup: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case local, gateway, https
        var testDescription: String { rawValue }
    }

    /// The certificates of the HTTPS runs, made once.
    static let certificates = Task { try await TestCertificates.make() }

    /// The server a peer talks to, and the repository it uses there.
    struct Target {
        let server: ServerHarness
        let backend: ServerHarness?
        let repository: String
        /// Over HTTPS: the authority that signed the server's certificate.
        var authority: URL? = nil

        /// What a Python peer needs in its environment: over HTTPS, to trust the test authority.
        var pythonEnvironment: [String: String] {
            authority.map { ["REQUESTS_CA_BUNDLE": $0.path] } ?? [:]
        }

        /// The local store; over HTTPS; or (`gateway`) a second server's shared repository mounted as `docs` over
        /// `backendBinding`, users passed through.
        static func start(
            _ setup: Setup, backendBinding: GatewayConfiguration.Binding = .browser
        ) async throws
            -> Target
        {
            switch setup {
            case .local:
                return Target(server: try await ServerHarness.start(sqlite: true), backend: nil, repository: "shared")
            case .https:
                let certificates = try await PeerInteropTests.certificates.value
                let server = try await ServerHarness.start(sqlite: true) {
                    $0.tls = TLSFiles(
                        certificateChain: certificates.server.certificate, privateKey: certificates.server.key)
                }
                return Target(
                    server: server, backend: nil, repository: "shared", authority: certificates.authority)
            case .gateway:
                break
            }
            let backend = try await ServerHarness.start(sqlite: true)
            let path = backendBinding == .browser ? "/cmis/browser" : "/cmis/atom"
            let mount = GatewayConfiguration.Mount(
                id: "docs", url: backend.url(path), binding: backendBinding, repositoryId: "shared",
                users: .passThrough)
            do {
                let server = try await ServerHarness.start(sqlite: true) {
                    $0.gateway = GatewayConfiguration(mounts: [mount])
                }
                return Target(server: server, backend: backend, repository: "docs")
            } catch {
                await backend.stop()
                throw error
            }
        }

        func stop() async {
            await server.stop()
            await backend?.stop()
        }

        /// Through a gateway, that the peer's changes reached the back-end: its change log is no longer empty.
        func expectBackendChanged() async throws {
            guard let backend else { return }
            let response = try await backend.send(.get, "/cmis/browser/shared?cmisselector=repositoryInfo")
            let info = try JSONValue(parsing: response.body)
            let token = info["shared"]?["latestChangeLogToken"]?.stringValue.flatMap { Int($0) }
            #expect((token ?? 0) > 0, "the back-end saw no change: \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    @Test(
        "cmislib 0.7.0: repositories, info, children, folder, document CRUD with content, query, versioning",
        arguments: ["browser", "atom"], Setup.allCases)
    func cmislib(binding: String, setup: Setup) async throws {
        let python = try Peers.python()
        let script = Peers.packageRoot.appendingPathComponent("Tests/Peers/cmislib_check.py")
        // Through the gateway, the back-end is reached over the other binding.
        let target = try await Target.start(setup, backendBinding: binding == "browser" ? .atomPub : .browser)
        try await withCleanup { () async throws in
            let url = target.server.url(binding == "browser" ? "/cmis/browser" : "/cmis/atom").absoluteString
            #expect(url.hasPrefix(setup == .https ? "https://" : "http://"))
            let result = try await Peers.run(
                python, [script.path, url, "alice", "pw-alice", binding, target.repository],
                environment: target.pythonEnvironment)
            #expect(result.status == 0, "cmislib over \(binding):\n\(result.output)")
            #expect(result.output.contains("ok create document"), "\(result.output)")
            try await target.expectBackendChanged()
            #expect(result.output.contains("0 failed"), "\(result.output)")
        } cleanup: {
            await target.stop()
        }
    }

    @Test(
        "Nuxeo's Python client 7.1.0: root, create, get by path and uid, children, NXQL with paging, update, Automation, upload, tokens, current user, permissions, move, locks, trash, delete"
    )
    func nuxeoPython() async throws {
        let python = try Peers.python()
        let script = Peers.packageRoot.appendingPathComponent("Tests/Peers/nuxeo_check.py")
        let server = try await ServerHarness.start(sqlite: true)
        try await withCleanup { () async throws in
            let result = try await Peers.run(
                python, [script.path, server.url("/nuxeo/").absoluteString, "admin", "pw-admin"])
            #expect(result.status == 0, "nuxeo (Python):\n\(result.output)")
            #expect(result.output.contains("ok query with paging"), "\(result.output)")
            #expect(result.output.contains("ok automation"), "\(result.output)")
            #expect(result.output.contains("ok upload, plain and chunked"), "\(result.output)")
            #expect(result.output.contains("ok token authentication"), "\(result.output)")
            for step in [
                "current user and server info", "permissions", "move", "lock and unlock", "trash and untrash",
                "has permission",
            ] {
                #expect(result.output.contains("ok \(step)"), "\(result.output)")
            }
            #expect(result.output.contains("0 failed"), "\(result.output)")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("cmissh's cmis-tck passes every suite over AtomPub", arguments: Setup.allCases)
    func cmisTCK(setup: Setup) async throws {
        let tck = try Peers.venvTool("cmis-tck")
        let target = try await Target.start(setup)
        try await withCleanup { () async throws in
            // The TCK takes the first repository listed: a gateway lists its mounts first.
            let result = try await Peers.run(
                tck, ["-u", "alice", "-p", "pw-alice", target.server.url("/cmis/atom").absoluteString],
                environment: target.pythonEnvironment)
            #expect(result.status == 0, "cmis-tck:\n\(result.output)")
            #expect(result.output.contains("Failed:  0"), "\(result.output)")
            #expect(!result.output.contains("Passed:  0"), "\(result.output)")
            try await target.expectBackendChanged()
        } cleanup: {
            await target.stop()
        }
    }

    @Test(
        "libcmis cmis-client: list repositories, create a folder and a document, get its content, delete",
        arguments: Setup.allCases)
    func libcmis(setup: Setup) async throws {
        let client = try Peers.systemTool("cmis-client", package: "cmis-client")
        let target = try await Target.start(setup)
        let server = target.server
        try await withCleanup { () async throws in
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("libcmis-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let base = [
                "--url", server.url("/cmis/atom").absoluteString, "-u", "alice", "-p", "pw-alice", "-r",
                target.repository,
            ]
            func run(_ arguments: [String], checkingCertificate: Bool = false) async throws -> ChildProcess.Outcome {
                // libcurl, under libcmis, trusts only the system's authorities and takes none from the environment:
                // over HTTPS it is told not to check, after the check below shows that it would refuse the test one.
                let trust = setup == .https && !checkingCertificate ? ["--no-ssl-check"] : []
                return try await Peers.run(client, trust + base + arguments, in: work, timeout: .seconds(60))
            }

            if setup == .https {
                let refused = try await run(["list-repos"], checkingCertificate: true)
                #expect(refused.status != 0, "\(refused.output)")
                #expect(refused.output.contains("Invalid SSL certificate"), "\(refused.output)")
            }

            let repositories = try await run(["list-repos"])
            #expect(repositories.status == 0, "\(repositories.output)")
            #expect(repositories.output.contains(target.repository), "\(repositories.output)")

            let root = try await run(["show-by-path", "/"])
            #expect(root.status == 0, "\(root.output)")
            let rootId = try #require(Self.value(of: "Id", in: root.output), "no Id in:\n\(root.output)")

            let folder = try await run(["create-folder", rootId, "libcmis-folder"])
            #expect(folder.status == 0, "\(folder.output)")
            let folderId = try #require(Self.value(of: "Id", in: folder.output), "no Id in:\n\(folder.output)")
            try await target.expectBackendChanged()

            let text = "hello from libcmis\n"
            let input = work.appendingPathComponent("input.txt")
            try Data(text.utf8).write(to: input)
            let document = try await run([
                "--input-file", input.path, "--input-type", "text/plain", "--input-name", "hello.txt",
                "create-document", folderId, "hello.txt",
            ])
            #expect(document.status == 0, "\(document.output)")
            let documentId = try #require(Self.value(of: "Id", in: document.output), "no Id in:\n\(document.output)")

            let content = try await run(["get-content", documentId])
            #expect(content.status == 0, "\(content.output)")
            let saved = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0 != "input.txt" }
            let downloaded = saved.compactMap {
                try? String(contentsOf: work.appendingPathComponent($0), encoding: .utf8)
            }
            #expect(downloaded.contains(text), "saved files: \(saved)\n\(content.output)")

            let deleted = try await run(["delete", documentId, folderId])
            #expect(deleted.status == 0, "\(deleted.output)")
            let gone = try await run(["show-by-id", folderId])
            #expect(gone.status != 0 || gone.output.localizedCaseInsensitiveContains("not found"), "\(gone.output)")
        } cleanup: {
            await target.stop()
        }
    }

    /// `Id: 42` (cmis-client prints `Key: value` lines).
    static func value(of key: String, in output: String) -> String? {
        for line in output.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("\(key):") {
                let value = trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
                if !value.isEmpty { return value }
            }
        }
        return nil
    }
}
