import Foundation
import SatchelJSON

/// Finds the human-readable message in a server's error body.
///
/// Knows the shapes Satchel's peers send: OData V2 (`error.message.value`), OData V4 (`error.message`),
/// SAP `errordetails`, CMIS Browser binding (`message`), Nuxeo (`message`), XML `<message>` elements
/// (OData V2 XML, AtomPub) and, as a last resort, an HTML `<title>`.
enum ServerMessage {
    /// Bodies larger than this are not parsed for a message.
    static let parseLimit = 256 * 1024

    static func extract(from body: Data, contentType: String?) -> String? {
        guard !body.isEmpty, body.count <= parseLimit else { return nil }
        let type = contentType ?? ""
        if type.contains("json") || body.first == UInt8(ascii: "{") {
            if let message = fromJSON(body) { return message }
        }
        let text = String(decoding: body, as: UTF8.self)
        if type.contains("html") || text.range(of: "<html", options: .caseInsensitive) != nil {
            return element("title", in: text) ?? element("h1", in: text)
        }
        if type.contains("xml") || text.hasPrefix("<") {
            return element("message", in: text) ?? element("cmis:message", in: text)
        }
        if type.hasPrefix("text/plain") {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : String(trimmed.prefix(500))
        }
        return nil
    }

    private static func fromJSON(_ body: Data) -> String? {
        guard let object = try? JSONValue(parsing: body) else { return nil }
        if let error = object["error"], error.objectValue != nil {
            let message = error["message"]?.stringValue ?? error["message"]?["value"]?.stringValue
            let details = error["innererror"]?["errordetails"]?.arrayValue ?? []
            let extra = details.compactMap { $0["message"]?.stringValue }.filter { $0 != message }
            if let message { return ([message] + extra).joined(separator: "; ") }
            if let text = error["description"]?.stringValue { return text }
        }
        for key in ["message", "error_description", "error"] {
            if let text = object[key]?.stringValue { return text }
        }
        return nil
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)", options: .caseInsensitive),
            let end = text[open.upperBound...].range(of: ">"),
            let close = text[end.upperBound...].range(of: "</\(name)>", options: .caseInsensitive)
        else { return nil }
        let inner = text[end.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return inner.isEmpty ? nil : String(inner.prefix(500))
    }
}
