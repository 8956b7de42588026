public import Foundation

/// A throwaway certificate authority and the certificates the TLS tests need, made with `openssl` in a folder of
/// their own: a server certificate for 127.0.0.1 and localhost, one for another host name, one that expired in
/// 2020, one signed by an authority nobody trusts, and a client certificate. Keys are P-256, readable by their
/// owner only.
public struct TestCertificates: Sendable {
    public let folder: URL
    /// The test authority (trust it to accept ``server``).
    public var authority: URL { folder.appendingPathComponent("ca.pem") }
    /// 127.0.0.1 and localhost, signed by ``authority``.
    public var server: (certificate: URL, key: URL) { pair("server") }
    /// `other.example.com` only, signed by ``authority``.
    public var wrongHost: (certificate: URL, key: URL) { pair("wronghost") }
    /// 127.0.0.1 and localhost, signed by ``authority``, valid only on 1 January 2020.
    public var expired: (certificate: URL, key: URL) { pair("expired") }
    /// 127.0.0.1 and localhost, signed by another authority.
    public var unknownAuthority: (certificate: URL, key: URL) { pair("unknown") }
    /// A client certificate (`alice`), signed by ``authority``.
    public var client: (certificate: URL, key: URL) { pair("client") }

    func pair(_ name: String) -> (certificate: URL, key: URL) {
        (folder.appendingPathComponent("\(name).pem"), folder.appendingPathComponent("\(name).key"))
    }

    /// Makes every certificate in a new temporary folder; fails loudly when `openssl` is missing.
    public static func make() async throws -> TestCertificates {
        let openssl = try Peers.systemTool("openssl", package: "openssl")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func run(_ arguments: [String]) async throws {
            let outcome = try await ChildProcess.run(
                openssl, arguments, timeout: .seconds(60), mergingErrors: true, in: folder)
            guard outcome.status == 0, !outcome.signalled else {
                throw PeerError(
                    message: "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(outcome.output)")
            }
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        func authority(_ name: String, subject: String) async throws {
            try await run(
                ["req", "-x509"] + key + [
                    "-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-days", "3", "-subj", subject,
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ])
        }
        try await authority("ca", subject: "/CN=Satchel Test CA")
        try await authority("otherca", subject: "/CN=Nobody Trusts This CA")
        let hosts = "subjectAltName=DNS:localhost,IP:127.0.0.1"
        func leaf(_ name: String, signer: String, names: String, usage: String) async throws {
            try Data("\(names)\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=\(usage)\n".utf8)
                .write(to: folder.appendingPathComponent("\(name).ext"))
            try await run(
                ["req"] + key + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
            try await run([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(signer).pem"), "-CAkey",
                path("\(signer).key"),
                "-CAcreateserial", "-out", path("\(name).pem"), "-days", "3", "-extfile", path("\(name).ext"),
            ])
        }
        try await leaf("server", signer: "ca", names: hosts, usage: "serverAuth")
        try await leaf("wronghost", signer: "ca", names: "subjectAltName=DNS:other.example.com", usage: "serverAuth")
        try await leaf("unknown", signer: "otherca", names: hosts, usage: "serverAuth")
        try await leaf("client", signer: "ca", names: "subjectAltName=DNS:alice", usage: "clientAuth")
        // Expired: `openssl ca` is the one that takes a start and an end date.
        try Data().write(to: folder.appendingPathComponent("index.txt"))
        try Data("1000\n".utf8).write(to: folder.appendingPathComponent("serial"))
        try Data(
            """
            [ca]
            default_ca = test
            [test]
            database = \(path("index.txt"))
            new_certs_dir = \(folder.path)
            serial = \(path("serial"))
            default_md = sha256
            policy = any
            [any]
            commonName = supplied
            [leaf]
            \(hosts)
            basicConstraints = CA:FALSE
            extendedKeyUsage = serverAuth

            """.utf8
        ).write(to: folder.appendingPathComponent("ca.cnf"))
        try await run(
            ["req"] + key + ["-keyout", path("expired.key"), "-out", path("expired.csr"), "-subj", "/CN=expired"])
        try await run([
            "ca", "-batch", "-config", path("ca.cnf"), "-cert", path("ca.pem"), "-keyfile", path("ca.key"),
            "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-extensions", "leaf", "-notext",
            "-in", path("expired.csr"), "-out", path("expired.pem"),
        ])
        for name in ["ca", "otherca", "server", "wronghost", "unknown", "client", "expired"] {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent("\(name).key").path)
        }
        return TestCertificates(folder: folder)
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}
