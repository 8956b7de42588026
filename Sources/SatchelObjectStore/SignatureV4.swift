import Crypto
public import Foundation
public import SatchelHTTP
import SatchelText

/// AWS Signature Version 4, header-based: the `Authorization` an S3-compatible store checks on every request.
///
/// ``sign(_:payloadHash:date:)`` adds `Host`, `x-amz-date`, `x-amz-content-sha256` (and `x-amz-security-token` for
/// temporary credentials), then signs the method, the path as it is sent, the query, the payload hash and these
/// headers: `host`, `date`, `content-md5`, `range`, and every `x-amz-*`. Other headers (`User-Agent`, `Content-Length`,
/// `Content-Type`) go unsigned, so a transport that adds or normalises them cannot break the signature.
///
/// ```swift
/// let signer = SignatureV4(credentials: credentials, region: "us-east-1", service: "s3")
/// var request = HTTPClient.Request(.get, url: URL(string: "http://127.0.0.1:8080/bucket/key")!)
/// signer.sign(&request, payloadHash: SignatureV4.emptyPayloadHash)
/// ```
public struct SignatureV4: Sendable {
    /// Who signs.
    public var credentials: S3Credentials
    /// The region in the credential scope (`us-east-1` for most stores that are not AWS).
    public var region: String
    /// The service in the credential scope: `s3`.
    public var service: String

    /// A signer for `service` in `region`.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The SHA-256 of no bytes, for requests without a body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash that tells the store the body is not signed (its transport protects it).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// Signs `request` as sent at `date`; `payloadHash` is the lower-case hex SHA-256 of the body (or
    /// ``unsignedPayload``). Any earlier signature on the request is replaced.
    public func sign(_ request: inout HTTPClient.Request, payloadHash: String, date: Date = Date()) {
        let stamp = Self.timestamp(date)
        request.headers.remove("Authorization")
        for name in ["Host", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"] {
            request.headers.remove(name)
        }
        request.headers["Host"] = Self.host(of: request.url)
        request.headers["x-amz-date"] = stamp
        request.headers["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { request.headers["x-amz-security-token"] = token }
        let (canonical, signedHeaders) = canonicalRequest(request, payloadHash: payloadHash)
        let scope = "\(stamp.prefix(8))/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", stamp, scope, Self.hex(SHA256.hash(data: Data(canonical.utf8))),
        ]
        .joined(separator: "\n")
        let signature = Self.hex(
            HMAC<SHA256>.authenticationCode(
                for: Data(stringToSign.utf8), using: signingKey(day: String(stamp.prefix(8))))
        )
        request.headers["Authorization"] =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), "
            + "Signature=\(signature)"
    }

    /// The canonical request (method, path, query, headers, signed header names, payload hash) and the signed header
    /// names, as Signature Version 4 defines them.
    func canonicalRequest(_ request: HTTPClient.Request, payloadHash: String) -> (String, String) {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        var signed: [String: [String]] = [:]
        for field in request.headers {
            let name = field.name.lowercased()
            guard Self.isSigned(name) else { continue }
            signed[name, default: []].append(Self.trimmed(field.value))
        }
        let names = signed.keys.sorted()
        let headerLines = names.map { "\($0):\(signed[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonical = [
            request.method.rawValue, path.isEmpty ? "/" : path, Self.canonicalQuery(components?.percentEncodedQuery),
            headerLines, signedHeaders, payloadHash,
        ]
        .joined(separator: "\n")
        return (canonical, signedHeaders)
    }

    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    private static func isSigned(_ name: String) -> Bool {
        name == "host" || name == "date" || name == "content-md5" || name == "range" || name.hasPrefix("x-amz-")
    }

    /// Leading and trailing spaces removed, inner runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// Each name and value decoded, then encoded as Signature Version 4 wants (RFC 3986 unreserved characters kept,
    /// everything else `%XX`), sorted by name then value; a name without `=` has an empty value.
    static func canonicalQuery(_ query: String?) -> String {
        guard let query, !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (uriEncode(name), uriEncode(value))
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Percent-encodes everything but `A-Z a-z 0-9 - _ . ~` (and `/` when `keepingSlash`), upper-case hex.
    public static func uriEncode(_ text: String, keepingSlash: Bool = false) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlash:
                result.append("/")
            default:
                let digits = Array("0123456789ABCDEF")
                result += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return result
    }

    /// `host`, with `:port` unless the port is the scheme's default (as transports send it).
    static func host(of url: URL) -> String {
        let host = url.host ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        guard let port = url.port else { return bracketed }
        let scheme = url.scheme?.lowercased()
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return bracketed }
        return "\(bracketed):\(port)"
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))"
            + "\(two(parts.second))Z"
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 { Hex.lowercase(bytes) }
}
