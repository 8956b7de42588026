public import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension CMISError {
    /// Maps an AtomPub error response to a `CMISError`. AtomPub servers answer errors with text or HTML;
    /// OpenCMIS puts the exception name and message between `<!--exception-->…<!--/exception-->` and
    /// `<!--message-->…<!--/message-->` comments, other servers name the exception in the HTML title.
    public static func atomPub(status: Int, body: Data, httpError: HTTPTransferError? = nil) -> CMISError {
        // Error pages are small; look at the first 64 KiB only.
        let text = String(decoding: body.prefix(65_536), as: UTF8.self)
        var exception = marked("exception", in: text)
        let serverMessage = marked("message", in: text).map(decodeEntities)
        if exception == nil, let title = enclosed("<title>", "</title>", in: text) {
            // e.g. "Apache Chemistry OpenCMIS - objectNotFound error"
            exception = title.split(whereSeparator: { !$0.isLetter }).map(String.init)
                .first { Code.serverExceptions[$0] != nil }
        }
        return response(status: status, exception: exception, serverMessage: serverMessage, httpError: httpError)
    }

    private static func marked(_ name: String, in text: String) -> String? {
        enclosed("<!--\(name)-->", "<!--/\(name)-->", in: text)
    }

    private static func enclosed(_ open: String, _ close: String, in text: String) -> String? {
        guard let start = text.range(of: open, options: .caseInsensitive),
            let end = text.range(of: close, options: .caseInsensitive, range: start.upperBound..<text.endIndex)
        else { return nil }
        let value = text[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    private static func decodeEntities(_ text: String) -> String {
        var result = text
        for (entity, character) in [
            ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&amp;", "&"),
        ] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}
