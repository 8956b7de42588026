import Synchronization
public import Foundation

/// Form-login single sign-on: POST the credentials to a login endpoint, then ride on the cookies it sets.
///
/// This is how SAP NetWeaver portals hand out the `MYSAPSSO2` ticket. The credentials go in the body of a POST,
/// never in a URL; the cookies land in the client's in-memory ``CookieJar``. When the session expires — a
/// `401`, or an HTML login page where data was expected — it logs in again with the stored credentials and the
/// request is sent once more. Concurrent requests that find the session expired share one login.
///
/// ```swift
/// let sso = FormLoginAuth(
///     loginURL: URL(string: "https://portal.example.com/irj/portal")!,
///     username: "alice", password: secret,
///     configuration: .init(usernameField: "j_username", passwordField: "j_password",
///                          sessionCookies: ["MYSAPSSO2"]))
/// let client = HTTPClient(auth: [sso])
/// ```
public final class FormLoginAuth: HTTPAuthProvider {
    /// How the login form is filled in and how a login is recognised.
    public struct Configuration: Sendable {
        /// The form field of the user name (`j_username` by default).
        public var usernameField: String
        /// The form field of the password (`j_password` by default).
        public var passwordField: String
        /// More form fields the login form expects (`login_submit=on`, …).
        public var extraFields: [(String, String)]
        /// Cookies that prove a login worked; when set, a login that does not yield one of them fails.
        public var sessionCookies: [String]

        /// A form of the given fields; by default `j_username` and `j_password`, no extra fields, and any login that
        /// does not fail counts.
        public init(
            usernameField: String = "j_username",
            passwordField: String = "j_password",
            extraFields: [(String, String)] = [],
            sessionCookies: [String] = []
        ) {
            self.usernameField = usernameField
            self.passwordField = passwordField
            self.extraFields = extraFields
            self.sessionCookies = sessionCookies
        }
    }

    private struct State {
        var loggedIn = false
        var login: Task<Void, any Error>?
        /// How many logins were done, for diagnostics and tests.
        var count = 0
    }

    /// Where the credentials are posted.
    public let loginURL: URL
    /// The form's fields and the cookies that prove a login.
    public let configuration: Configuration
    private let username: String
    private let password: String
    private let state = Mutex(State())

    /// Logs in at `loginURL` as `username`. Nothing is sent until the first request.
    public init(loginURL: URL, username: String, password: String, configuration: Configuration = Configuration()) {
        self.loginURL = loginURL
        self.username = username
        self.password = password
        self.configuration = configuration
    }

    /// How many times this provider has logged in.
    public var loginCount: Int { state.withLock { $0.count } }

    /// Logs in before the first request (and after a failed login). A login fails with `.unauthorized` when the
    /// endpoint answers an error status, sends the login form back, or sets none of the session cookies asked for.
    public func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws {
        if !state.withLock({ $0.loggedIn }) { try await logIn(context: context, sentCookies: nil) }
    }

    /// After a `401`, or an HTML login page where data was expected, logs in again and asks for a resend; when the
    /// cookies changed since the request was sent, another request already logged in, and the resend uses its session.
    public func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws
        -> Bool
    {
        guard response.status == 401 || LoginPage.isLoginPage(response, for: request) else { return false }
        try await logIn(context: context, sentCookies: request.headers["Cookie"], requestURL: request.url)
        return true
    }

    /// Logs in unless another request already did since `sentCookies` were sent; all callers share one login.
    private func logIn(context: HTTPAuthContext, sentCookies: String?, requestURL: URL? = nil) async throws {
        let task = state.withLock { state -> Task<Void, any Error>? in
            if let running = state.login { return running }
            if let requestURL, state.loggedIn, context.cookies.headerValue(for: requestURL) != sentCookies {
                return nil  // the cookies changed since the failed request: someone logged in meanwhile
            }
            let task = Task { try await self.performLogin(context: context) }
            state.login = task
            return task
        }
        guard let task else { return }
        do {
            try await task.value
            state.withLock {
                $0.loggedIn = true
                $0.login = nil
            }
        } catch {
            state.withLock {
                $0.loggedIn = false
                $0.login = nil
            }
            throw error
        }
    }

    private func performLogin(context: HTTPAuthContext) async throws {
        state.withLock { $0.count += 1 }
        let fields =
            [(configuration.usernameField, username), (configuration.passwordField, password)]
            + configuration.extraFields
        var request = HTTPClient.Request(
            .post, url: loginURL, body: .form(fields), operation: "log in at \(loginURL.host ?? "")")
        request.headers["Accept"] = "text/html,application/json;q=0.9,*/*;q=0.8"
        request.validatesStatus = false
        let response = try await context.send(request)
        let failure: String? =
            if response.status >= 400 {
                "the login endpoint answered \(response.status)"
            } else if LoginPage.containsPasswordForm(response) {
                "the login page came back: the user name or password is wrong"
            } else if !configuration.sessionCookies.isEmpty,
                !context.cookies.cookies(for: loginURL).contains(where: {
                    configuration.sessionCookies.contains($0.name)
                })
            {
                "no session cookie (\(configuration.sessionCookies.joined(separator: ", "))) came back"
            } else {
                nil
            }
        if let failure {
            var error = HTTPTransferError.status(response, body: response.body, request: request)
            error.code = .unauthorized
            error.message = "login failed: \(failure)"
            throw error
        }
    }
}

/// Recognises an HTML login page served where data was expected (an expired SSO session).
enum LoginPage {
    static func isLoginPage(_ response: HTTPClient.Response, for request: HTTPClient.Request) -> Bool {
        guard (200..<300).contains(response.status), !request.acceptsHTML, response.mediaType?.contains("html") == true
        else { return false }
        let path = response.url.path.lowercased()
        return containsPasswordForm(response) || ["login", "logon", "signin", "sso"].contains { path.contains($0) }
    }

    static func containsPasswordForm(_ response: HTTPClient.Response) -> Bool {
        guard response.mediaType?.contains("html") == true else { return false }
        let text = String(decoding: response.body.prefix(256 * 1024), as: UTF8.self).lowercased()
        return text.contains("type=\"password\"") || text.contains("type='password'") || text.contains("type=password")
            || text.contains("j_security_check")
    }
}
