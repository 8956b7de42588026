import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

#if os(Linux)
    /// `satchel serve --tls-cert` and the NIO transport's TLS, with certificates made for the test: a trusted
    /// authority works over both bindings; an unknown authority, another host's certificate and an expired one each
    /// give a clear error; the insecure switch accepts anything; a required client certificate is checked.
    @Suite("HTTPS: satchel serve over TLS, and the NIO transport's checks", .serialized)
    struct TLSTests {
        static let certificates = Task { try await TestCertificates.make() }

        static func server(
            _ pair: (certificate: URL, key: URL), clientAuthorities: URL? = nil
        ) async throws -> LiveServer {
            try await LiveServer.start(
                users: ["alice"],
                tls: TLSFiles(
                    certificateChain: pair.certificate, privateKey: pair.key,
                    clientCertificateAuthorities: clientAuthorities))
        }

        /// A GET of `/health` over a new NIO transport with `tls`; the transport is shut down after.
        static func health(_ server: LiveServer, tls: NIOTransport.TLS) async throws -> Int {
            let transport = try NIOTransport(configuration: .init(tls: tls))
            do {
                let client = HTTPClient(configuration: .init(retry: .never), transport: transport)
                let status = try await client.send(
                    HTTPClient.Request(url: server.baseURL.appendingPathComponent("health"))
                ).status
                try await transport.shutdown()
                return status
            } catch {
                try? await transport.shutdown()
                throw error
            }
        }

        @Test("the CMIS client over HTTPS, trusting the test authority, over both bindings")
        func trusted() async throws {
            let certificates = try await Self.certificates.value
            let server = try await Self.server(certificates.server)
            try await withCleanup { () async throws in
                #expect(server.baseURL.scheme == "https")
                let transport = try NIOTransport(configuration: .init(tls: .init(trustRoots: certificates.authority)))
                try await withCleanup { () async throws in
                    for binding in SessionParameters.Binding.allCases {
                        let session = try await CMISSession.connect(
                            SessionParameters(
                                binding: binding,
                                url: server.baseURL.appendingPathComponent(
                                    binding == .browser ? "cmis/browser" : "cmis/atom"),
                                repositoryId: "shared", auth: [BasicAuth(user: "alice", password: "pw-alice")],
                                transport: transport))
                        let folder = try await session.createFolder(
                            named: "over-tls-\(binding)", in: session.repositoryInfo.rootFolderId)
                        let document = try await session.createDocument(
                            named: "secret.txt", in: try #require(folder.id),
                            content: .data(Data("over TLS".utf8), filename: "secret.txt"))
                        #expect(try await session.content(of: try #require(document.id)) == Data("over TLS".utf8))
                    }
                } cleanup: {
                    try? await transport.shutdown()
                }
            } cleanup: {
                await server.stop()
            }
        }

        @Test(
            "a refused certificate is a clear TLS error",
            arguments: ["unknown authority", "another host", "expired"])
        func refused(_ kind: String) async throws {
            let certificates = try await Self.certificates.value
            let pair =
                switch kind {
                case "unknown authority": certificates.unknownAuthority
                case "another host": certificates.wrongHost
                default: certificates.expired
                }
            let server = try await Self.server(pair)
            try await withCleanup { () async throws in
                let error = await #expect(throws: HTTPTransferError.self) {
                    _ = try await Self.health(server, tls: .init(trustRoots: certificates.authority))
                }
                #expect(error?.code == .tls, "\(String(describing: error))")
                let expected =
                    switch kind {
                    case "unknown authority": "not signed by a trusted authority"
                    case "another host": "does not name this host"
                    default: "expired"
                    }
                #expect(error?.message.contains(expected) == true, "\(kind): \(error?.message ?? "")")
                // The loudly named switch accepts it anyway.
                let status = try await Self.health(server, tls: .init(verification: .insecureNoVerification))
                #expect(status == 200)
            } cleanup: {
                await server.stop()
            }
        }

        @Test("a required client certificate: the handshake fails without one and succeeds with it")
        func clientCertificate() async throws {
            let certificates = try await Self.certificates.value
            let server = try await Self.server(certificates.server, clientAuthorities: certificates.authority)
            try await withCleanup { () async throws in
                let error = await #expect(throws: HTTPTransferError.self) {
                    _ = try await Self.health(server, tls: .init(trustRoots: certificates.authority))
                }
                #expect(error?.code == .tls || error?.code == .connection, "\(String(describing: error))")
                let presented = NIOTransport.TLS(
                    trustRoots: certificates.authority, certificateChain: certificates.client.certificate,
                    privateKey: certificates.client.key)
                let status = try await Self.health(server, tls: presented)
                #expect(status == 200)
            } cleanup: {
                await server.stop()
            }
        }

        @Test("satchel serve refuses a TLS key others can read, and a certificate that is not PEM")
        func serverFiles() async throws {
            let certificates = try await Self.certificates.value
            let open = certificates.folder.appendingPathComponent("open.key")
            try FileManager.default.copyItem(at: certificates.server.key, to: open)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open.path)
            await #expect {
                _ = try await Self.server((certificates.server.certificate, open))
            } throws: { error in
                String(describing: error).contains("may be read by others")
            }
            await #expect {
                _ = try await Self.server((certificates.server.key, certificates.server.key))
            } throws: { error in
                String(describing: error).contains("cannot read the TLS certificate")
            }
        }

        /// A client that offers only weak TLS 1.2 suites (RSA key exchange, CBC with SHA-1) is refused; the strong
        /// ones are taken; and every answer over TLS carries HSTS.
        @Test(
            "TLS 1.2 offers forward-secret AEAD suites only, and answers carry HSTS",
            arguments: [
                // The test certificates are P-256: ECDSA suites.
                ("ECDHE-ECDSA-AES128-SHA", false), ("ECDHE-ECDSA-AES256-SHA", false),
                ("ECDHE-ECDSA-AES128-SHA256", false), ("ECDHE-ECDSA-AES128-GCM-SHA256", true),
                ("ECDHE-ECDSA-AES256-GCM-SHA384", true), ("ECDHE-ECDSA-CHACHA20-POLY1305", true),
            ])
        func cipherSuites(cipher: String, accepted: Bool) async throws {
            let certificates = try await Self.certificates.value
            let server = try await Self.server(certificates.server)
            try await withCleanup { () async throws in
                let outcome = try await ChildProcess.run(
                    URL(fileURLWithPath: "/usr/bin/openssl"),
                    [
                        "s_client", "-connect", "127.0.0.1:\(server.port)", "-tls1_2", "-cipher", cipher,
                        "-CAfile", certificates.authority.path, "-servername", "localhost",
                    ],
                    timeout: .seconds(20), mergingErrors: true, input: Data("Q\n".utf8))
                let text = outcome.output
                if accepted {
                    #expect(text.contains("Cipher is \(cipher)"), "\(cipher): \(text.suffix(600))")
                } else {
                    #expect(!text.contains("Cipher is \(cipher)"), "\(cipher): \(text.suffix(600))")
                    #expect(text.contains("alert") || text.contains("no cipher"), "\(cipher): \(text.suffix(600))")
                }
                let transport = try NIOTransport(configuration: .init(tls: .init(trustRoots: certificates.authority)))
                try await withCleanup { () async throws in
                    let client = HTTPClient(configuration: .init(retry: .never), transport: transport)
                    var request = HTTPClient.Request(url: server.baseURL.appendingPathComponent("cmis/browser"))
                    request.validatesStatus = false
                    let answer = try await client.send(request)
                    #expect(answer.status == 401)
                    #expect(answer.headers["Strict-Transport-Security"] == "max-age=31536000")
                } cleanup: {
                    try? await transport.shutdown()
                }
            } cleanup: {
                await server.stop()
            }
        }
    }
#endif
