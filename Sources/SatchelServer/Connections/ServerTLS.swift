import Foundation
import NIOSSL
import SatchelRepository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TLSFiles {
    /// The TLS 1.2 suites the server offers: forward secrecy (ECDHE) and authenticated encryption (GCM, ChaCha20)
    /// only, so no RSA key exchange and no CBC. TLS 1.3's suites are all of that kind already. They are equally
    /// strong, so which one a handshake picks does not weaken it (the TLS library takes the client's order among
    /// them: it has no switch for the server's).
    static let cipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server's TLS settings: TLS 1.2 and up with ``cipherSuites``, the certificate and key read now (a missing, malformed or
    /// mismatched file, or a key others can read, stops the server from starting with a message that says which),
    /// and client certificates required when authorities for them are given.
    func serverConfiguration() throws -> TLSConfiguration {
        guard let mode = PrivateFiles.access(of: privateKey)?.mode else {
            throw ServerError("cannot read the TLS key \(privateKey.path)")
        }
        guard mode & 0o077 == 0 else {
            throw ServerError(
                "the TLS key \(privateKey.path) may be read by others (mode \(String(mode, radix: 8))): chmod 600 it")
        }
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChain.path)
        } catch {
            throw ServerError("cannot read the TLS certificate \(certificateChain.path): \(error)")
        }
        guard !chain.isEmpty else { throw ServerError("the TLS certificate file \(certificateChain.path) holds none") }
        do {
            key = try NIOSSLPrivateKey(file: privateKey.path, format: .pem)
        } catch {
            throw ServerError("cannot read the TLS key \(privateKey.path): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = Self.cipherSuites
        if let authorities = clientCertificateAuthorities {
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authorities.path))
            } catch {
                throw ServerError("cannot read the client certificate authorities \(authorities.path): \(error)")
            }
            configuration.certificateVerification = .noHostnameVerification
        }
        return configuration
    }
}
