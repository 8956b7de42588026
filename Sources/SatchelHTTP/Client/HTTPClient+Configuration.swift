public import Logging
public import Foundation

extension HTTPClient {
    /// How a client behaves; every knob has a default.
    ///
    /// ```swift
    /// var configuration = HTTPClient.Configuration(baseURL: URL(string: "https://gw.example.com/sap/opu/odata/")!)
    /// configuration.userAgent = "NotesApp/2.0"
    /// configuration.timeout = .seconds(60)
    /// configuration.headers["sap-client"] = "100"
    /// ```
    public struct Configuration: Sendable {
        /// Relative request URLs resolve against this.
        public var baseURL: URL?
        /// Headers sent on every request unless the request sets them.
        public var headers: HTTPClient.Headers
        /// Some portals reject unknown agents: set what they expect.
        public var userAgent: String
        /// The longest a request waits for the server to answer or to send more bytes.
        public var timeout: Duration
        /// When a failed request is sent again (`RetryPolicy.default`).
        public var retry: RetryPolicy
        /// Redirects followed per request (10 by default); one more throws `.tooManyRedirects`, and with 0 any redirect
        /// does.
        public var maximumRedirects: Int
        /// The largest body read into memory; larger answers fail with `.responseTooLarge` (download them instead).
        public var maximumInMemoryResponseBytes: Int
        /// Cookies live here, in memory only.
        public var cookieJar: CookieJar
        /// Where requests are logged (`satchel.http`): one line per exchange at debug level, headers (redacted) at
        /// trace.
        public var logger: Logger

        /// A configuration whose defaults are: no base URL or extra headers, Satchel's user agent, 30-second timeouts,
        /// `RetryPolicy.default`, 10 redirects, 64 MiB in memory, a new cookie jar.
        public init(
            baseURL: URL? = nil,
            headers: HTTPClient.Headers = [:],
            userAgent: String = Configuration.defaultUserAgent,
            timeout: Duration = .seconds(30),
            retry: RetryPolicy = .default,
            maximumRedirects: Int = 10,
            maximumInMemoryResponseBytes: Int = 64 * 1024 * 1024,
            cookieJar: CookieJar = CookieJar(),
            logger: Logger = Logger(label: "satchel.http")
        ) {
            self.baseURL = baseURL
            self.headers = headers
            self.userAgent = userAgent
            self.timeout = timeout
            self.retry = retry
            self.maximumRedirects = maximumRedirects
            self.maximumInMemoryResponseBytes = maximumInMemoryResponseBytes
            self.cookieJar = cookieJar
            self.logger = logger
        }

        /// `Satchel/<version> (<system>)`.
        public static let defaultUserAgent: String = {
            #if os(Linux)
                let system = "Linux"
            #elseif os(macOS)
                let system = "macOS"
            #elseif os(iOS)
                let system = "iOS"
            #else
                let system = "Apple"
            #endif
            return "Satchel/\(SatchelVersion.current) (\(system))"
        }()
    }
}

/// The version of the Satchel libraries.
public enum SatchelVersion {
    /// The version, as the default user agent shows it.
    public static let current = "0.1.0"
}
