import ArgumentParser
import SatchelHTTP
import Foundation

/// How to reach and log in to a server; maps onto `HTTPClient.Configuration` and SatchelHTTP's auth providers.
///
/// Passwords and tokens come from standard input or the environment, never from an argument value: arguments
/// show up in process lists and shell history.
struct ConnectionOptions: ParsableArguments, Sendable {
    enum AuthMode: String, CaseIterable, ExpressibleByArgument, Sendable {
        case basic
        case basicChallenge = "basic-challenge"
        case bearer
        case formLogin = "form-login"
    }

    @Option(help: ArgumentHelp("The server URL; relative request URLs resolve against it.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The user name.", valueName: "name"))
    var user: String?

    @Flag(help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    @Option(help: ArgumentHelp("The environment variable holding the password.", valueName: "NAME"))
    var passwordEnv = "SATCHEL_PASSWORD"

    /// Only here to refuse it with a helpful message instead of "unknown option".
    @Option(name: .customLong("password"), help: .hidden)
    var rejectedPassword: String?

    @Option(
        help: ArgumentHelp(
            "basic (sent up front), basic-challenge (after a 401), bearer or form-login."
                + " Default: basic with --user, bearer with --bearer-token-env.",
            valueName: "mode"
        )
    )
    var auth: AuthMode?

    @Option(help: ArgumentHelp("Where form-login posts j_username and j_password.", valueName: "url"))
    var loginURL: String?

    @Option(
        help: ArgumentHelp(
            "The environment variable holding the bearer token (default SATCHEL_TOKEN).",
            valueName: "NAME"))
    var bearerTokenEnv: String?

    @Flag(help: "Do the SAP Gateway CSRF handshake before modifying requests.")
    var csrf = false

    @Option(help: ArgumentHelp("The CSRF token header.", valueName: "name"))
    var csrfHeader = "X-CSRF-Token"

    @Option(help: ArgumentHelp("Where to fetch the CSRF token (default: the request URL).", valueName: "url"))
    var csrfFetchURL: String?

    @Option(
        name: [.customShort("H"), .long],
        help: ArgumentHelp(
            "A header to send, \"Name: value\"; repeatable.",
            valueName: "header"))
    var header: [String] = []

    @Option(help: ArgumentHelp("The User-Agent to send.", valueName: "agent"))
    var userAgent: String?

    @Option(
        help: ArgumentHelp(
            "Trust the certificate authorities in this PEM file besides the system's (https).", valueName: "file"))
    var caFile: String?

    @Flag(help: "Accept any server certificate, checking nothing (https): for throwaway test servers only.")
    var insecureSkipTlsVerify = false

    @Option(help: ArgumentHelp("Seconds to wait for the server to answer or send more bytes.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "Retries after connection failures, 429 and 503 (idempotent requests only).",
            valueName: "n"))
    var retries = 2

    func validate() throws {
        if rejectedPassword != nil {
            throw ValidationError(
                "--password is not accepted: arguments show up in process lists and shell history;"
                    + " pipe the password with --password-stdin or set \(passwordEnv)"
            )
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        for line in header where Self.parseHeader(line) == nil {
            throw ValidationError("--header needs \"Name: value\", got \"\(line.prefix(40))\"")
        }
        if loginURL != nil, resolvedAuth != .formLogin {
            throw ValidationError("--login-url goes with --auth form-login")
        }
        if resolvedAuth == .formLogin, loginURL == nil {
            throw ValidationError("--auth form-login needs --login-url")
        }
        if [.basic, .basicChallenge, .formLogin].contains(resolvedAuth), user == nil {
            throw ValidationError("--auth \(resolvedAuth?.rawValue ?? "") needs --user")
        }
    }

    /// The auth mode asked for, or the one the other options imply.
    var resolvedAuth: AuthMode? {
        auth ?? (user != nil ? .basic : bearerTokenEnv != nil ? .bearer : nil)
    }

    /// A client configured from these options.
    func makeClient() throws -> HTTPClient {
        var configuration = HTTPClient.Configuration(baseURL: try url.map { try Self.url($0, option: "--url") })
        configuration.headers = HTTPClient.Headers(header.compactMap(Self.parseHeader))
        if let userAgent { configuration.userAgent = userAgent }
        configuration.timeout = .milliseconds(Int64(timeout * 1000))
        configuration.retry.maximumAttempts = retries + 1
        return HTTPClient(configuration: configuration, transport: try transport(), auth: try authProviders())
    }

    /// The platform's transport, or (with `--ca-file` or `--insecure-skip-tls-verify`) one whose HTTPS trusts
    /// what these options say.
    func transport() throws -> any HTTPTransport {
        guard caFile != nil || insecureSkipTlsVerify else { return HTTPClient.defaultTransport() }
        #if os(Linux)
            let tls = NIOTransport.TLS(
                trustRoots: caFile.map { URL(fileURLWithPath: $0) },
                verification: insecureSkipTlsVerify ? .insecureNoVerification : .full)
            return AutomaticTransport(
                plain: SocketTransport(), secure: try NIOTransport(configuration: .init(tls: tls)))
        #else
            throw ValidationError(
                "--ca-file and --insecure-skip-tls-verify are for Linux; on Apple platforms, trust the authority in"
                    + " the system's keychain")
        #endif
    }

    /// Credentials first, then handshakes that need them (see `HTTPAuthProvider`).
    func authProviders() throws -> [any HTTPAuthProvider] {
        var providers: [any HTTPAuthProvider] = []
        switch resolvedAuth {
        case nil:
            break
        case .basic:
            providers.append(BasicAuth(user: user ?? "", password: try password()))
        case .basicChallenge:
            providers.append(BasicAuth(user: user ?? "", password: try password(), mode: .onChallenge))
        case .bearer:
            let name = bearerTokenEnv ?? "SATCHEL_TOKEN"
            guard let token = Terminal.environment(name), !token.isEmpty else {
                throw CLIError(.usage, "--auth bearer needs a token in the environment variable \(name)")
            }
            providers.append(
                BearerTokenAuth(token: token) {
                    throw CLIError(.authentication, "the server refused the bearer token from \(name)")
                }
            )
        case .formLogin:
            let loginURL = try Self.url(loginURL ?? "", option: "--login-url")
            providers.append(FormLoginAuth(loginURL: loginURL, username: user ?? "", password: try password()))
        }
        if csrf {
            let fetchURL = try csrfFetchURL.map { try Self.url($0, option: "--csrf-fetch-url") }
            providers.append(CSRFTokenAuth(headerName: csrfHeader, fetchURL: fetchURL))
        }
        return providers
    }

    private func password() throws -> String {
        if passwordStdin {
            guard let line = Terminal.readLine() else {
                throw CLIError(.usage, "--password-stdin: standard input ended before a password line")
            }
            return line
        }
        guard let password = Terminal.environment(passwordEnv) else {
            throw CLIError(
                .usage,
                "no password for \(user ?? "the user"): pipe it with --password-stdin or set \(passwordEnv)"
            )
        }
        return password
    }

    static func parseHeader(_ line: String) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    static func url(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), url.scheme != nil else {
            throw CLIError(.usage, "\(option) needs an absolute http or https URL, got \"\(Redaction.text(text))\"")
        }
        return url
    }
}
