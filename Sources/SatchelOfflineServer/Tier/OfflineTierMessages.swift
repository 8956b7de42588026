public import Foundation
public import SatchelHTTP
import SatchelOData
import SatchelJSON
import SatchelRepository

/// A request to one endpoint of the middle tier, as the server received it, after authentication.
public struct OfflineTierRequest: Sendable {
    /// `GET`, `POST`, `PATCH`, `PUT`, `MERGE`, `DELETE`.
    public var method: String
    /// The path under the endpoint's root, percent-encoded as received, without a leading `/` (`Products`,
    /// `Products(7)`, `$metadata`, `$batch`).
    public var path: String
    /// The query text without `?` (empty for none).
    public var query: String
    /// The request's headers (`Satchel-Defining-Query`, `Prefer`, repeatability headers, `X-HTTP-Method`).
    public var headers: HTTPClient.Headers
    /// The request body (an entity, a `$batch`); empty for none.
    public var body: Data
    /// Who is calling (authenticated by the server) and, signed in with Basic, their password, which per-user
    /// data and uploads pass on to the back-end.
    public var user: String
    /// The caller's password when they signed in with Basic. Nil after a cookie or token sign-in: the tier then uses
    /// the back-end connection the user's last password made, and answers 401 where it needs one and there is none.
    public var password: String?
    /// The endpoint's root as the client sees it (`https://host/offline/products/`), for the links in answers.
    public var root: String
    /// Whether the request came through a proxy the server trusts (its `X-Forwarded-*` headers made `root`): the
    /// client's own connection is then the proxy's, whatever the server's address.
    public var viaProxy: Bool = false

    /// A request as given, normalised: the method upper-cased, a leading `/` dropped from `path`, and a trailing `/`
    /// added to `root`.
    public init(
        method: String, path: String, query: String = "", headers: HTTPClient.Headers = [:], body: Data = Data(),
        user: String, password: String?, root: String
    ) {
        self.method = method.uppercased()
        self.path = path.hasPrefix("/") ? String(path.dropFirst()) : path
        self.query = query
        self.headers = headers
        self.body = body
        self.user = user
        self.password = password
        self.root = root.hasSuffix("/") ? root : root + "/"
    }

    /// A request whose headers are plain name–value pairs (an HTTP server's fields, in order).
    public init(
        method: String, path: String, query: String, fields: [(name: String, value: String)], body: Data,
        user: String, password: String?, root: String
    ) {
        self.init(
            method: method, path: path, query: query, headers: HTTPClient.Headers(fields.map { ($0.name, $0.value) }),
            body: body, user: user, password: password, root: root)
    }

    /// The method a V2 client tunnels through `POST` (`X-HTTP-Method: MERGE`), else the method.
    var effectiveMethod: String {
        if method == "POST", let tunnelled = headers["X-HTTP-Method"], !tunnelled.isEmpty {
            return tunnelled.uppercased()
        }
        return method
    }

    /// The path and query, as the ledger records a request's target.
    var target: String { query.isEmpty ? path : path + "?" + query }

    /// Whether the client reached the server over HTTPS (its root, as the server made it from the connection or a
    /// trusted proxy's `X-Forwarded-Proto`, is an `https` URL).
    var isSecure: Bool { root.lowercased().hasPrefix("https://") }
}

/// The middle tier's answer.
public struct OfflineTierResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The response headers (`Content-Type`, `OData-Version` or `DataServiceVersion`, `ETag`, …).
    public var headers: HTTPClient.Headers
    /// The response body; empty when `file` is the body.
    public var body: Data
    /// A file that is the body instead of `body` (a prebuilt store): the server sends it and then removes it.
    public var file: URL?

    /// A response of `status`, `headers` and a body.
    public init(status: Int, headers: HTTPClient.Headers = [:], body: Data = Data(), file: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.file = file
    }

    /// The headers as plain name–value pairs, in order.
    public var fields: [(name: String, value: String)] { headers.map { ($0.name, $0.value) } }

    /// An OData error in the client's version (V4 `error` with `message`, V2 `error` with `message.value`), with
    /// `inner` (the back-end's own answer) as the inner error when there is one.
    static func error(
        _ status: Int, code: String, _ message: String, version: ODataVersion, inner: OfflineLedgerAnswerText? = nil
    ) -> OfflineTierResponse {
        var error = JSONObject()
        error.append(key: "code", value: .string(code))
        if version == .v2 {
            error.append(key: "message", value: ["lang": "en", "value": .string(message)])
        } else {
            error.append(key: "message", value: .string(message))
        }
        if let inner {
            error.append(
                key: "innererror",
                value: ["status": .number(JSONNumber(Int64(inner.status))), "body": .string(inner.text)])
        }
        var headers = HTTPClient.Headers()
        headers.add("Content-Type", "application/json")
        if version == .v2 { headers.add("DataServiceVersion", "1.0") } else { headers.add("OData-Version", "4.0") }
        return OfflineTierResponse(
            status: status, headers: headers, body: Data(JSONValue.object(["error": .object(error)]).serialized()))
    }
}

/// A back-end answer shown inside a refusal: its status and the start of its body.
struct OfflineLedgerAnswerText: Sendable {
    var status: Int
    var text: String

    init(status: Int, body: Data) {
        self.status = status
        text = String(decoding: body.prefix(2048), as: UTF8.self)
    }
}

extension OfflineLedgerAnswer {
    /// The headers a client needs again from an answer.
    static let keptHeaders = [
        "Content-Type", "ETag", "Location", "OData-EntityId", "OData-Version", "DataServiceVersion",
        "Preference-Applied",
    ]

    /// `response` as the ledger keeps it: its status, body and the headers a client needs again.
    init(_ response: OfflineTierResponse) {
        var headers: [String: String] = [:]
        for name in Self.keptHeaders {
            if let value = response.headers[name] { headers[name] = value }
        }
        self.init(status: response.status, headers: headers, body: response.body)
    }
}
