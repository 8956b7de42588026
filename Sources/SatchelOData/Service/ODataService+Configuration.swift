public import Foundation
public import SatchelHTTP

extension ODataService {
    /// How a service is reached: its root URL, version, SAP client and language, page size, HTTP settings and
    /// auth providers (CSRF tokens, SSO form login, Basic, Bearer from SatchelHTTP).
    ///
    /// ```swift
    /// var configuration = ODataService.Configuration(
    ///     serviceURL: URL(string: "https://gw.example.edu/sap/opu/odata/sap/ZADMISSIONS_SRV")!)
    /// configuration.sapClient = "100"
    /// configuration.auth = [FormLoginAuth(loginURL: portal, username: user, password: secret), CSRFTokenAuth()]
    /// configuration.http.userAgent = "Admissions/2.0"
    /// let service = ODataService(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The service root (`…/ZADMISSIONS_SRV`, `…/odata/v4/trippin`), with or without a trailing slash.
        public var serviceURL: URL
        /// The protocol version; `nil` reads it from `$metadata` before the first request that needs it.
        public var version: ODataVersion?
        /// SAP `sap-client` (sent as a query option on every request).
        public var sapClient: String?
        /// SAP `sap-language` (sent as a query option on every request).
        public var sapLanguage: String?
        /// Entities per page: V4 sends `Prefer: odata.maxpagesize`; V2 pages with `$top`/`$skip` when the
        /// server does not page itself. `nil` leaves paging to the server.
        public var pageSize: Int?
        /// Headers sent with every request.
        public var headers: HTTPClient.Headers
        /// Settings of the HTTP client made by ``ODataService/init(configuration:transport:)``.
        public var http: HTTPClient.Configuration
        /// Auth providers of the HTTP client made by ``ODataService/init(configuration:transport:)``.
        public var auth: [any HTTPAuthProvider]
        /// How V4 batches travel unless a batch says otherwise: `multipart/mixed` (the default, understood by
        /// every V4 service) or the 4.01 JSON batch. V2 batches are always multipart.
        public var batchFormat: ODataBatchFormat = .multipart
        /// The format of entities in V2 requests and answers: JSON preferred with Atom accepted (the default),
        /// JSON only, or Atom XML (what SAP NetWeaver Gateway answers by default, and all some V2 services speak).
        /// V4 is always JSON. Answers are read in whichever format the service chose.
        public var payloadFormat: ODataPayloadFormat = .automatic

        /// A configuration for the service at `serviceURL`; every other setting has the default of its property.
        public init(
            serviceURL: URL, version: ODataVersion? = nil, sapClient: String? = nil, sapLanguage: String? = nil,
            pageSize: Int? = nil, headers: HTTPClient.Headers = [:], http: HTTPClient.Configuration = .init(),
            auth: [any HTTPAuthProvider] = []
        ) {
            self.serviceURL = serviceURL
            self.version = version
            self.sapClient = sapClient
            self.sapLanguage = sapLanguage
            self.pageSize = pageSize
            self.headers = headers
            self.http = http
            self.auth = auth
        }
    }
}

/// The format of entities in OData V2 requests and answers (``ODataService/Configuration/payloadFormat``).
///
/// ```swift
/// configuration.payloadFormat = .atom   // a Gateway service that offers no JSON
/// ```
public enum ODataPayloadFormat: String, Sendable, Hashable, CaseIterable {
    /// Asks for JSON and accepts Atom (`Accept: application/json, application/atom+xml;q=0.9, …`); answers are read
    /// in the format they come in, and writes go in JSON until the service has answered in Atom, then in Atom.
    case automatic
    /// Asks for and writes JSON only.
    case json
    /// Asks for Atom (`Accept: application/atom+xml, application/xml;q=0.9`) and writes Atom entries.
    case atom

    /// The `Accept` header of V2 requests for entities and values.
    var acceptV2: String {
        switch self {
        case .automatic: "application/json, application/atom+xml;q=0.9, application/xml;q=0.8"
        case .json: "application/json"
        case .atom: "application/atom+xml, application/xml;q=0.9"
        }
    }
}
