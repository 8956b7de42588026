package import Foundation

/// Parses `Set-Cookie` header values (RFC 6265 §5.2), leniently as browsers do.
enum SetCookieParser {
    static func parse(_ header: String, from url: URL, now: Date = Date()) -> Cookie? {
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
        }
        guard !name.isEmpty, let host = url.host?.lowercased() else { return nil }

        var cookie = Cookie(name: name, value: value, domain: host, path: defaultPath(for: url))
        var maxAge: Int?
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1)
            let key = pieces.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let argument = pieces.count > 1 ? pieces[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "domain":
                var domain = argument.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                // A server may only set cookies for its own domain or a parent of it.
                guard !domain.isEmpty, host == domain || host.hasSuffix("." + domain) else { return nil }
                cookie.domain = domain
                cookie.includesSubdomains = true
            case "path":
                if argument.hasPrefix("/") { cookie.path = argument }
            case "expires":
                if let date = HTTPDate.parse(argument) { cookie.expires = date }
            case "max-age":
                if let seconds = Int(argument) { maxAge = seconds }
            case "secure":
                cookie.isSecure = true
            case "httponly":
                cookie.isHTTPOnly = true
            default:
                break
            }
        }
        if let maxAge { cookie.expires = now.addingTimeInterval(TimeInterval(max(0, maxAge) == 0 ? -1 : maxAge)) }
        return cookie
    }

    /// Splits a header value in which Foundation joined several `Set-Cookie` fields with ",".
    ///
    /// A comma also appears inside `Expires=Wed, 09 Jun 2021 …`, so a comma starts a new cookie only when what
    /// follows looks like `name=`.
    static func splitCombined(_ value: String) -> [String] {
        var cookies: [String] = []
        var current = ""
        let pieces = value.components(separatedBy: ",")
        for piece in pieces {
            if current.isEmpty {
                current = piece
                continue
            }
            let next = piece.trimmingCharacters(in: .whitespaces)
            let head = next.prefix { $0 != ";" }
            if let equals = head.firstIndex(of: "="), !head[..<equals].contains(" ") {
                cookies.append(current.trimmingCharacters(in: .whitespaces))
                current = next
            } else {
                current += "," + piece
            }
        }
        if !current.isEmpty { cookies.append(current.trimmingCharacters(in: .whitespaces)) }
        return cookies
    }

    /// RFC 6265 §5.1.4: the directory of the request path.
    static func defaultPath(for url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}

/// HTTP dates (RFC 9110 §5.6.7), as used by `Expires`, `Retry-After` and `Last-Modified`.
/// HTTP dates: parsed in the forms servers send, formatted as IMF-fixdates.
public enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
        "EEE, dd-MMM-yyyy HH:mm:ss zzz", "EEE, dd MMM yyyy HH:mm:ss Z",
    ]

    package static func parse(_ text: String) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
