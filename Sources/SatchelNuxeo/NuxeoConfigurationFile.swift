public import Foundation
public import SatchelHTTP
import SatchelJSON

extension NuxeoSession.Configuration {
    /// A configuration from a file several tools share — where the server is, never who you are:
    ///
    /// ```json
    /// {"url": "https://host/nuxeo", "repository": "default", "apiPrefix": "api/v1",
    ///  "schemas": ["dublincore", "file"], "headers": {"enrichers-document": "acls"}, "timeoutSeconds": 30}
    /// ```
    ///
    /// Only `url` is required. A file with a password, token or secret in it is refused: credentials come from the
    /// app (`auth`), which keeps them where it keeps secrets.
    public init(file: URL, auth: [any HTTPAuthProvider] = []) throws(NuxeoError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Data(contentsOf: file), limits: JSONLimits(maxDepth: 8))
        } catch {
            throw NuxeoError(.configuration, "\(file.path) is not a readable JSON configuration: \(error)")
        }
        guard case .object(let members) = value else {
            throw NuxeoError(.configuration, "\(file.path) is not a JSON object")
        }
        let known: Set = ["url", "repository", "apiPrefix", "schemas", "headers", "timeoutSeconds"]
        for (key, _) in members {
            let lowered = key.lowercased()
            if ["password", "token", "secret", "credential"].contains(where: lowered.contains) {
                throw NuxeoError(
                    .configuration, "\(file.path) holds \"\(key)\": credentials never go in the shared configuration")
            }
            guard known.contains(key) else { throw NuxeoError(.configuration, "\(file.path): unknown key \"\(key)\"") }
        }
        guard let text = value["url"]?.stringValue, let url = URL(string: text), url.scheme != nil, url.host != nil
        else { throw NuxeoError(.configuration, "\(file.path) needs \"url\": the server with its context path") }
        var http = HTTPClient.Configuration()
        if let seconds = value["timeoutSeconds"]?.doubleValue {
            guard seconds > 0, seconds <= 86_400 else {
                throw NuxeoError(.configuration, "\(file.path): timeoutSeconds must be above 0 and at most a day")
            }
            http.timeout = .milliseconds(Int64(seconds * 1000))
        }
        var headers = HTTPClient.Headers()
        for (name, header) in value["headers"]?.objectValue ?? JSONObject() {
            guard let text = header.stringValue else {
                throw NuxeoError(.configuration, "\(file.path): the header \(name) is not a string")
            }
            guard !["authorization", "x-authentication-token", "cookie"].contains(name.lowercased()) else {
                throw NuxeoError(
                    .configuration, "\(file.path) sets \(name): credentials never go in the shared configuration")
            }
            headers[name] = text
        }
        self.init(
            serverURL: url, apiPrefix: value["apiPrefix"]?.stringValue ?? "api/v1",
            repository: value["repository"]?.stringValue,
            schemas: value["schemas"]?.arrayValue?.compactMap(\.stringValue) ?? ["dublincore", "file"],
            headers: headers, http: http, auth: auth)
    }
}
