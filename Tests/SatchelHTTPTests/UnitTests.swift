import Foundation
import Testing

@testable import SatchelHTTP
import SatchelText
import SatchelJSON

@Suite("SatchelHTTP value types")
struct UnitTests {
    @Test("headers are case-insensitive, ordered, and redacted when printed")
    func headers() {
        var headers: HTTPClient.Headers = ["Accept": "application/json", "Authorization": "Basic YWxpY2U6cHc="]
        headers.add("Set-Cookie", "a=1")
        headers.add("set-cookie", "b=2")
        #expect(headers["accept"] == "application/json")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers["Set-Cookie"] = "c=3"
        #expect(headers.values(for: "Set-Cookie") == ["c=3"])
        headers["X-CSRF-Token"] = "Fetch"
        let printed = headers.description
        #expect(!printed.contains("YWxpY2U6cHc="))
        #expect(!printed.contains("c=3"))
        #expect(printed.contains("X-CSRF-Token: Fetch"))
        headers["X-CSRF-Token"] = "0123abcd"
        #expect(!headers.description.contains("0123abcd"))
    }

    @Test("URLs and free text lose their secrets")
    func redaction() {
        let url = URL(string: "https://alice:pw@example.com/a?password=x&sap-client=100&access_token=t")!
        let redacted = Redaction.url(url).absoluteString
        #expect(!redacted.contains("alice") && !redacted.contains("pw@") && !redacted.contains("=x&"))
        #expect(redacted.contains("sap-client=100"))
        let text = Redaction.text("GET https://bob:hunter2@h/x failed; password=hunter2 token: abc")
        #expect(!text.contains("hunter2") && !text.contains("abc"))
        let error = HTTPTransferError(.unauthorized, "nope", url: url)
        #expect(!error.description.contains("pw@"))
        // A prebuilt store's transfer key, and any other `*-Key` header.
        for name in ["Satchel-Transfer-Key", "X-Vendor-Key"] {
            #expect(Redaction.headerValue(name: name, value: "c2VjcmV0") == Redaction.placeholder, "\(name)")
        }
        #expect(Redaction.headerValue(name: "Content-Type", value: "text/plain") == "text/plain")
    }

    @Test("cookies: parsing, domain and path matching, expiry, combined headers")
    func cookies() {
        let url = URL(string: "https://portal.example.com/irj/portal/login")!
        let jar = CookieJar()
        var headers = HTTPClient.Headers()
        headers.add("Set-Cookie", "MYSAPSSO2=abc; Path=/; Domain=.example.com; Secure; HttpOnly")
        headers.add("Set-Cookie", "JSESSIONID=1; Path=/irj")
        headers.add("Set-Cookie", "old=1; Max-Age=0")
        headers.add("Set-Cookie", "foreign=1; Domain=other.com")
        jar.store(from: headers, for: url)
        #expect(Set(jar.all.map(\.name)) == ["MYSAPSSO2", "JSESSIONID"])
        #expect(jar.headerValue(for: URL(string: "https://gw.example.com/sap/opu")!) == "MYSAPSSO2=abc")
        #expect(jar.headerValue(for: URL(string: "https://portal.example.com/irj/x")!) == "JSESSIONID=1; MYSAPSSO2=abc")
        #expect(jar.headerValue(for: URL(string: "http://portal.example.com/irjx")!) == nil)  // not secure, not /irj
        let split = SetCookieParser.splitCombined("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT, b=2; Path=/")
        #expect(split == ["a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT", "b=2; Path=/"])
        let expired = SetCookieParser.parse("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT", from: url)
        #expect(expired?.expires != nil && expired!.expires! < Date())
    }

    @Test("retry delays grow, are capped, jittered, and follow Retry-After")
    func retryPolicy() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), jitter: 0)
        #expect(policy.delay(after: 1) == .milliseconds(100))
        #expect(policy.delay(after: 3) == .milliseconds(400))
        #expect(policy.delay(after: 10) == .seconds(1))
        #expect(policy.delay(after: 2, retryAfter: .seconds(7)) == .seconds(7))
        let jittered = RetryPolicy(initialDelay: .seconds(1), jitter: 0.5)
        let delays = (0..<50).map { _ in jittered.delay(after: 1) }
        #expect(delays.allSatisfy { $0 >= .milliseconds(500) && $0 <= .seconds(1) })
        #expect(Set(delays).count > 1)
        #expect(RetryPolicy.retryAfter(in: ["Retry-After": "5"]) == .seconds(5))
        let now = Date()
        let date = HTTPDate.format(now.addingTimeInterval(30))
        let fromDate = RetryPolicy.retryAfter(in: ["Retry-After": date], now: now)
        #expect(fromDate.map { $0 > .seconds(28) && $0 <= .seconds(30) } == true)
        #expect(HTTPClient.Method.post.isIdempotent == false && HTTPClient.Method.put.isIdempotent)
    }

    @Test("IMF-fixdates equal the date formatter's, before and after 1970, on leap days")
    func imfFixdates() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var dates = [-86_400.5, 0, 951_782_400, 951_868_799, 4_107_542_399, 1_795_000_000.9, 2_189_208_644.9996686].map
        {
            Date(timeIntervalSince1970: $0)
        }
        dates += (0..<500).map { _ in Date(timeIntervalSince1970: Double.random(in: -2e9...5e9)) }
        for date in dates {
            #expect(HTTPDate.format(date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("ranges and form encoding")
    func rangesAndForms() {
        #expect(ByteRange.bytes(0...99).headerValue == "bytes=0-99")
        #expect(ByteRange.from(10).headerValue == "bytes=10-")
        #expect(ByteRange.suffix(5).headerValue == "bytes=-5")
        var request = HTTPClient.Request(url: URL(string: "http://h/")!)
        request.range = .bytes(from: 7)
        #expect(request.headers["Range"] == "bytes=7-" && request.range == .from(7))
        let range = ContentRange(headerValue: "bytes 100-199/1000")
        #expect(range?.first == 100 && range?.last == 199 && range?.completeLength == 1000)
        #expect(ContentRange(headerValue: "bytes 5-1/10") == nil)
        let fields = [("a b", "c&d"), ("name", "€uro+")]
        #expect(
            FormURLEncoding.decode(FormURLEncoding.encode(fields)).map { [$0.0, $0.1] } == fields.map { [$0.0, $0.1] })
        #expect(FormURLEncoding.encode(fields) == "a+b=c%26d&name=%E2%82%ACuro%2B")
        #expect(FormURLEncoding.escape("A-z_0.9*~") == "A-z_0.9*%7E")
        #expect(PercentEncoding.encode("A-z_0.9*~ /é") == "A-z_0.9%2A~%20%2F%C3%A9")
        #expect(PercentEncoding.encode("plain") == "plain")
    }

    @Test(
        "the server's message is found in each peer's error shape",
        arguments: [
            (
                "{\"error\":{\"code\":\"1\",\"message\":{\"lang\":\"en\",\"value\":\"V2 says no\"}}}",
                "application/json", "V2 says no"
            ),
            ("{\"error\":{\"code\":\"1\",\"message\":\"V4 says no\"}}", "application/json", "V4 says no"),
            ("{\"exception\":\"objectNotFound\",\"message\":\"CMIS says no\"}", "application/json", "CMIS says no"),
            (
                "{\"entity-type\":\"exception\",\"status\":404,\"message\":\"Nuxeo says no\"}", "application/json",
                "Nuxeo says no"
            ),
            (
                "<error><code>X</code><message xml:lang=\"en\">XML says no</message></error>", "application/xml",
                "XML says no"
            ),
            ("<html><head><title>502 Bad Gateway</title></head></html>", "text/html", "502 Bad Gateway"),
            ("plain words\n", "text/plain", "plain words"),
        ]
    )
    func serverMessages(body: String, type: String, expected: String) {
        #expect(ServerMessage.extract(from: Data(body.utf8), contentType: type) == expected)
    }

    @Test("the in-memory transport answers, records and writes downloads")
    func inMemoryTransport() async throws {
        let transport = InMemoryTransport { request in
            request.url.path == "/a"
                ? TransportResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("hi".utf8))
                : TransportResponse(status: 404, headers: [:])
        }
        let client = HTTPClient(transport: transport)
        #expect(try await client.send(HTTPClient.Request(url: URL(string: "http://h/a")!)).text == "hi")
        await #expect(throws: HTTPTransferError.self) {
            try await client.send(HTTPClient.Request(url: URL(string: "http://h/b")!))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try await client.download(HTTPClient.Request(url: URL(string: "http://h/a")!), to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "hi")
        #expect(transport.requests.count == 3)
        #expect(transport.requests[0].headers["User-Agent"]?.hasPrefix("Satchel/") == true)
    }

    @Test("JSON bodies are read with SatchelJSON, and bad JSON is an invalid-response error with context")
    func jsonBodies() async throws {
        let transport = InMemoryTransport { request in
            let body = request.url.path == "/good" ? #"{"d":{"results":[{"ID":7}]}}"# : "<html>oops</html>"
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let client = HTTPClient(transport: transport)
        let good = try await client.send(HTTPClient.Request(url: URL(string: "http://h/good")!))
        #expect(try good.json()["d"]?["results"]?[0]?["ID"]?.int64Value == 7)
        let bad = try await client.send(HTTPClient.Request(url: URL(string: "http://h/bad")!))
        let error = #expect(throws: HTTPTransferError.self) { try bad.json() }
        #expect(error?.code == .invalidResponse)
        #expect(error?.responseExcerpt == "<html>oops</html>")
        #expect(error?.underlying is JSONError)
        #expect(HTTPClient.Body.json(["a": [1, true, nil]]).inMemoryData == Data(#"{"a":[1,true,null]}"#.utf8))
    }
}

@Suite("HTTPClient.Response header accessors")
struct ResponseHeaderTests {
    @Test(
        "the media type survives empty and odd Content-Type headers",
        arguments: [
            ("text/HTML; charset=utf-8", "text/html"), ("", nil), (";", nil), (" ; charset=x", nil),
            ("application/json", "application/json"),
        ] as [(String, String?)])
    func mediaType(header: String, expected: String?) {
        let response = HTTPClient.Response(
            status: 200, headers: HTTPClient.Headers([("Content-Type", header)]), url: URL(string: "http://127.0.0.1/")!
        )
        #expect(response.mediaType == expected)
    }
}
