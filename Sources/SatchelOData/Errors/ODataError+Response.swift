import Foundation
public import SatchelHTTP
import SatchelJSON
import SatchelXML
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ODataError {
    /// The error for a response outside 2xx: the OData error body (V2 or V4 JSON, V2 XML) read into fields.
    ///
    /// ```swift
    /// let error = ODataError(response: response, request: request)
    /// print(error.message, error.sapErrorDetails.map(\.message))
    /// ```
    public init(response: HTTPClient.Response, request: HTTPClient.Request) {
        let http = HTTPTransferError(
            HTTPTransferError.Code(status: response.status), "the server answered \(response.status)",
            operation: request.operation, method: request.method, url: response.url, status: response.status,
            responseHeaders: response.headers)
        self.init(
            .forStatus(response.status), "the server answered \(response.status)", status: response.status,
            method: request.method, url: http.url, operation: request.operation, underlying: http)
        if response.status == 412 { currentETag = response.headers["ETag"] }
        // Not `response.mediaType`: read defensively, an empty Content-Type must not matter.
        let contentType = response.headers["Content-Type"]?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        readBody(response.body, contentType: contentType)
        if message == "the server answered \(response.status)" {
            message =
                "the server answered \(response.status) \(HTTPURLResponse.localizedString(forStatusCode: response.status))"
        }
    }

    /// Maps an `HTTPTransferError` thrown by the client (timeouts, connection failures, refused credentials).
    package init(http error: HTTPTransferError) {
        let code: Code =
            switch error.code {
            case .unauthorized: .unauthorized
            case .timeout, .cancelled, .connection, .tls: .connection
            case .invalidResponse, .responseTooLarge: .invalidPayload
            case .invalidRequest, .fileSystem: .invalidArgument
            default: error.status.map(Code.forStatus) ?? .connection
            }
        self.init(
            code, error.serverMessage ?? error.message, status: error.status, method: error.method, url: error.url,
            operation: error.operation, underlying: error)
        if error.status == 412 { currentETag = error.responseHeaders?["ETag"] }
    }

    private mutating func readBody(_ body: Data, contentType: String?) {
        guard !body.isEmpty else { return }
        if let json = try? JSONValue(parsing: body), let error = json["error"], error.objectValue != nil {
            readJSON(error)
        } else if let document = try? XDocument.parse(data: body), document.root.name == "error" {
            readXML(document.root)
        } else if contentType?.hasPrefix("text/plain") == true {
            let text = String(decoding: body.prefix(1000), as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            if !text.isEmpty { message = text }
        }
    }

    private mutating func readJSON(_ error: JSONValue) {
        serviceCode = error["code"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        // V4: "message": "text"; V2: "message": {"lang": "en", "value": "text"}.
        if let text = error["message"]?.stringValue ?? error["message"]?["value"]?.stringValue, !text.isEmpty {
            message = text
        }
        target = error["target"]?.stringValue
        details = (error["details"]?.arrayValue ?? []).compactMap(Self.detail)
        if let inner = error["innererror"] {
            innerError = inner
            sapErrorDetails = (inner["errordetails"]?.arrayValue ?? []).compactMap(Self.detail)
        }
    }

    private static func detail(_ value: JSONValue) -> Detail? {
        guard let message = value["message"]?.stringValue ?? value["message"]?["value"]?.stringValue else { return nil }
        return Detail(
            code: value["code"]?.stringValue, message: message, target: value["target"]?.stringValue,
            severity: value["severity"]?.stringValue)
    }

    private mutating func readXML(_ root: XElement) {
        if let code = root.textOf(child: "code"), !code.isEmpty { serviceCode = code }
        if let text = root.child("message")?.trimmedText, !text.isEmpty { message = text }
        if let inner = root.child("innererror") {
            sapErrorDetails =
                inner.child("errordetails")?.children("errordetail").compactMap { detail in
                    guard let text = detail.textOf(child: "message") else { return nil }
                    return Detail(
                        code: detail.textOf(child: "code"), message: text, target: detail.textOf(child: "target"),
                        severity: detail.textOf(child: "severity"))
                } ?? []
        }
    }
}
