public import Foundation

/// Removes secrets before anything is logged or put in an error description.
public enum Redaction {
    /// What stands in for a secret.
    public static let placeholder = "<redacted>"

    /// Header names whose values are always secret.
    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-csrf-token", "x-xsrf-token",
        "x-api-key", "api-key", "satchel-transfer-key",
    ]

    /// Query item names whose values are secret.
    static let secretQueryWords = ["password", "passwd", "token", "secret", "sig", "signature", "key", "auth"]

    /// The value to show for a header: secrets are replaced, except CSRF `Fetch`/`Required` handshake words.
    public static func headerValue(name: String, value: String) -> String {
        let lower = name.lowercased()
        if lower == "x-csrf-token" || lower == "x-xsrf-token",
            ["fetch", "required"].contains(value.lowercased())
        {
            return value
        }
        if secretHeaders.contains(lower) || lower.contains("token") || lower.contains("secret")
            || lower.contains("password") || lower.hasSuffix("-key")
        {
            return placeholder
        }
        return value
    }

    /// The URL without user info and with secret query values replaced.
    public static func url(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var changed = false
        if components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
            changed = true
        }
        if let items = components.queryItems {
            components.queryItems = items.map { item in
                let lower = item.name.lowercased()
                guard secretQueryWords.contains(where: { lower.contains($0) }), item.value != nil else { return item }
                changed = true
                return URLQueryItem(name: item.name, value: "redacted")
            }
        }
        return changed ? (components.url ?? url) : url
    }

    /// Replaces `user:password@` in URLs inside free text, and `password=…` style pairs.
    public static func text(_ text: String) -> String {
        var result = text
        if let regex = try? NSRegularExpression(pattern: "(://)[^/@\\s:]+:[^/@\\s]+@") {
            result = regex.stringByReplacingMatches(
                in: result,
                range: NSRange(result.startIndex..., in: result),
                withTemplate: "$1"
            )
        }
        if let regex = try? NSRegularExpression(
            pattern: "((?:password|passwd|token|secret)[\"']?\\s*[=:]\\s*[\"']?)[^\"'&\\s,}]+",
            options: .caseInsensitive
        ) {
            result = regex.stringByReplacingMatches(
                in: result,
                range: NSRange(result.startIndex..., in: result),
                withTemplate: "$1\(placeholder)"
            )
        }
        return result
    }
}
