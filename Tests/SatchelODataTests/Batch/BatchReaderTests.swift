import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelOData

/// `$batch` response bodies, well-formed and hostile.
enum BatchFixtures {
    /// Lines joined with CRLF (or LF), ending in a line break.
    static func body(_ lines: [String], lf: Bool = false) -> Data {
        Data((lines.joined(separator: lf ? "\n" : "\r\n") + (lf ? "\n" : "\r\n")).utf8)
    }

    /// What SAP Gateway sends for a read, a changeset of a create and an update, and a count.
    static let v2Lines = [
        "--batchresponse_1",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 200 OK",
        "Content-Type: application/json",
        "Content-Length: 55",
        "",
        #"{"d":{"results":[{"StudentId":"1"},{"StudentId":"2"}]}}"#,
        "--batchresponse_1",
        "Content-Type: multipart/mixed; boundary=changesetresponse_1",
        "",
        "--changesetresponse_1",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 201 Created",
        "Content-Type: application/json",
        "ETag: W/\"1\"",
        "Location: StudentSet('9')",
        "",
        #"{"d":{"StudentId":"9","LastName":"Lovelace"}}"#,
        "--changesetresponse_1",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 204 No Content",
        "ETag: W/\"2\"",
        "",
        "",
        "--changesetresponse_1--",
        "",
        "--batchresponse_1",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 200 OK",
        "Content-Type: text/plain",
        "",
        "3",
        "--batchresponse_1--",
    ]

    static let failedChangesetLines = [
        "--batchresponse_2",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 200 OK",
        "Content-Type: application/json",
        "",
        #"{"d":{"results":[]}}"#,
        "--batchresponse_2",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 400 Bad Request",
        "Content-Type: application/json",
        "",
        #"{"error":{"code":"SY/530","message":{"lang":"en","value":"LastName is required"}}}"#,
        "--batchresponse_2",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 200 OK",
        "Content-Type: text/plain",
        "",
        "7",
        "--batchresponse_2--",
    ]
}

@Suite("$batch reader")
struct BatchReaderTests {
    typealias Fixtures = BatchFixtures

    static func responses(_ item: ODataBatchReader.Item) -> [Result<ODataBatchPartResponse, ODataError>] {
        switch item {
        case .single(let result): [result]
        case .changeset(let results): results
        }
    }

    @Test(arguments: [false, true])
    func sapStyleResponseWithCRLFOrLF(lf: Bool) throws {
        let items = try ODataBatchReader().read(
            Fixtures.body(Fixtures.v2Lines, lf: lf), contentType: "multipart/mixed; boundary=batchresponse_1")
        try #require(items.count == 3)
        let read = try #require(try Self.responses(items[0]).first?.get())
        #expect(read.status == 200 && read.headers["Content-Type"] == "application/json")
        #expect(
            String(decoding: read.body, as: UTF8.self) == #"{"d":{"results":[{"StudentId":"1"},{"StudentId":"2"}]}}"#)
        guard case .changeset(let changes) = items[1] else {
            Issue.record("the second part is not a changeset")
            return
        }
        let created = try changes[0].get()
        let updated = try changes[1].get()
        #expect(created.status == 201 && created.headers["Location"] == "StudentSet('9')")
        #expect(String(decoding: created.body, as: UTF8.self) == #"{"d":{"StudentId":"9","LastName":"Lovelace"}}"#)
        #expect(updated.status == 204 && updated.body.isEmpty && updated.headers["ETag"] == "W/\"2\"")
        let count = try #require(try Self.responses(items[2]).first?.get())
        #expect(String(decoding: count.body, as: UTF8.self) == "3")
    }

    @Test func quotedBoundaryPreambleEpilogueAndPadding() throws {
        var lines = ["This is a preamble; --batch_q is not at a line start here.", ""]
        lines += [
            "--batch_q  ", "Content-Type: application/http", "Content-ID: 5", "", "HTTP/1.1 200 OK",
            "Content-Length: 2", "", "{}", "--batch_q--", "epilogue --batch_q", "more",
        ]
        let items = try ODataBatchReader().read(
            Fixtures.body(lines), contentType: #"multipart/mixed; charset=utf-8; boundary="batch_q""#)
        try #require(items.count == 1)
        let part = try #require(try Self.responses(items[0]).first?.get())
        #expect(part.status == 200 && part.body == Data("{}".utf8) && part.contentID == "5")
    }

    @Test func boundaryPrefixesAndFoldedHeaders() throws {
        // "--b12" is not a delimiter for boundary "b1"; a folded header continues on the next line.
        let lines = [
            "--b1", "Content-Type: application/http", "", "HTTP/1.1 200 OK", "X-Note: first", "  second", "",
            "--b12 stays in the body", "--b1--",
        ]
        let items = try ODataBatchReader().read(Fixtures.body(lines), contentType: "multipart/mixed;boundary=b1")
        let first = try #require(items.first)
        let part = try #require(try Self.responses(first).first?.get())
        #expect(part.headers["X-Note"] == "first second")
        #expect(String(decoding: part.body, as: UTF8.self) == "--b12 stays in the body")
    }

    @Test func binaryBodySurvives() throws {
        var payload = Data((0...255).map { UInt8($0) })
        payload.append(Data("\r\n--batch_not\r\n\n\r".utf8))
        var body = Data("--bin\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n".utf8)
        body.append(Data("Content-Type: application/octet-stream\r\nContent-Length: \(payload.count)\r\n\r\n".utf8))
        body.append(payload)
        body.append(Data("\r\n--bin--\r\n".utf8))
        let items = try ODataBatchReader().read(body, contentType: "multipart/mixed; boundary=bin")
        let first = try #require(items.first)
        let part = try #require(try Self.responses(first).first?.get())
        #expect(part.body == payload)
    }

    @Test func failedChangesetInPlaceOfTheChangeset() throws {
        let items = try ODataBatchReader().read(
            Fixtures.body(Fixtures.failedChangesetLines), contentType: "multipart/mixed; boundary=batchresponse_2")
        try #require(items.count == 3)
        guard case .single(.success(let failure)) = items[1] else {
            Issue.record("the failed changeset is not a single response")
            return
        }
        #expect(failure.status == 400)
    }

    // MARK: Hostile

    static let hostile: [(name: String, body: Data, contentType: String?, message: String)] = [
        (
            "truncated", Fixtures.body(Array(BatchFixtures.v2Lines.prefix(30))),
            "multipart/mixed; boundary=batchresponse_1", "truncated"
        ),
        (
            "wrong boundary", Fixtures.body(BatchFixtures.v2Lines), "multipart/mixed; boundary=other",
            "does not contain the boundary other"
        ),
        (
            "html", Data("<html><body>Logon failed</body></html>".utf8), "text/html; charset=utf-8",
            "is text/html, not multipart/mixed"
        ),
        ("no boundary", Fixtures.body(BatchFixtures.v2Lines), "multipart/mixed", "without a boundary"),
        ("empty", Data(), "multipart/mixed; boundary=b", "does not contain the boundary b"),
        (
            "header line without colon", Fixtures.body(["--b", "Content-Type application/http", "", "x", "--b--"]),
            "multipart/mixed; boundary=b", "malformed header line"
        ),
        (
            // Found by fuzzing (Fuzz/Regressions/multipart): read as a field named "--b--", it was written back as
            // a line that is the close delimiter.
            "first header line folded", Fixtures.body(["--b", "\t--b--:", "", "x", "--b--"]),
            "multipart/mixed; boundary=b", "starts with white space"
        ),
        (
            "header name not a token", Fixtures.body(["--b", "Content Type: application/http", "", "x", "--b--"]),
            "multipart/mixed; boundary=b", "malformed header line"
        ),
        (
            "changeset without boundary",
            Fixtures.body(["--b", "Content-Type: multipart/mixed", "", "--c", "--c--", "--b--"]),
            "multipart/mixed; boundary=b", "without a boundary parameter"
        ),
        (
            "nested too deep",
            Fixtures.body([
                "--b", "Content-Type: multipart/mixed; boundary=c", "", "--c",
                "Content-Type: multipart/mixed; boundary=d", "", "--d", "--d--", "--c--", "--b--",
            ]), "multipart/mixed; boundary=b", "nests multipart/mixed deeper"
        ),
        ("json garbage", Data("{\"responses\": [".utf8), "application/json", "not valid JSON"),
        ("json without responses", Data(#"{"value":[]}"#.utf8), "application/json", "no \"responses\" array"),
        ("json bad status", Data(#"{"responses":[{"id":"1","status":"OK"}]}"#.utf8), "application/json", "status"),
        ("json not objects", Data(#"{"responses":[1]}"#.utf8), "application/json", "not an object"),
    ]

    @Test(arguments: hostile.indices)
    func hostileBodiesThrowInvalidPayload(index: Int) throws {
        let (name, body, contentType, message) = Self.hostile[index]
        let error = try #require(throws: ODataError.self, "\(name)") {
            try ODataBatchReader().read(body, contentType: contentType)
        }
        #expect(error.code == .invalidPayload, "\(name)")
        #expect(error.message.contains(message), "\(name): \(error.message)")
    }

    @Test func garbledStatusLineFailsOnlyThatPart() throws {
        let lines = [
            "--b", "Content-Type: application/http", "", "HTTP/1.1 2x0 Fine", "", "", "--b",
            "Content-Type: application/http", "", "<html>oops</html>", "--b", "Content-Type: text/html", "",
            "<p>no</p>", "--b", "Content-Type: application/http", "", "HTTP/1.1 204 No Content", "", "", "--b--",
        ]
        let items = try ODataBatchReader().read(Fixtures.body(lines), contentType: "multipart/mixed; boundary=b")
        try #require(items.count == 4)
        let errors = items.prefix(3).compactMap { item -> ODataError? in
            guard case .single(.failure(let error)) = item else { return nil }
            return error
        }
        #expect(errors.count == 3 && errors.allSatisfy { $0.code == .invalidPayload })
        #expect(errors[0].message.contains("HTTP status line") && errors[0].message.contains("2x0"))
        #expect(errors[2].message.contains("text/html, not application/http"))
        #expect(try Self.responses(items[3]).first?.get().status == 204)
    }

    @Test func limitsBoundPartsAndSizes() throws {
        var lines: [String] = []
        for _ in 0..<5 { lines += ["--b", "Content-Type: application/http", "", "HTTP/1.1 204 No Content", ""] }
        lines.append("--b--")
        var reader = ODataBatchReader()
        reader.limits.maxParts = 3
        let tooMany = try #require(throws: ODataError.self) {
            try reader.read(Fixtures.body(lines), contentType: "multipart/mixed; boundary=b")
        }
        #expect(tooMany.message.contains("more than 3 parts"))
        reader = ODataBatchReader()
        reader.limits.maxPartBytes = 1000
        let huge = [
            "--b", "Content-Type: application/http", "", "HTTP/1.1 200 OK", "", String(repeating: "x", count: 5000),
            "--b--",
        ]
        let tooBig = try #require(throws: ODataError.self) {
            try reader.read(Fixtures.body(huge), contentType: "multipart/mixed; boundary=b")
        }
        #expect(tooBig.message.contains("more than the limit of 1000"))
        reader = ODataBatchReader()
        reader.limits.maxHeaderBytes = 100
        let longHeaders = ["--b", "X-Long: " + String(repeating: "h", count: 500), "", "--b--"]
        let tooLong = try #require(throws: ODataError.self) {
            try reader.read(Fixtures.body(longHeaders), contentType: "multipart/mixed; boundary=b")
        }
        #expect(tooLong.message.contains("longer than 100 bytes"))
    }

    @Test func jsonResponses() throws {
        let body = Data(
            #"""
            {"responses":[
              {"id":"1","status":200,"headers":{"content-type":"application/json"},"body":{"value":[{"A":1}]}},
              {"id":"2","atomicityGroup":"g1","status":201,"headers":{"location":"People('a')","etag":"W/\"1\""},"body":{"UserName":"a"}},
              {"id":"3","status":200,"headers":{"content-type":"text/plain"},"body":"42"},
              {"id":4,"status":"200","headers":{"content-type":"application/octet-stream"},"body":"AAEC_w"}
            ]}
            """#.utf8)
        let responses = try ODataBatchReader().readJSON(body)
        try #require(responses.count == 4)
        #expect(try JSONValue(parsing: responses[0].body) == ["value": [["A": 1]]])
        #expect(responses[1].atomicityGroup == "g1" && responses[1].headers["Location"] == "People('a')")
        #expect(responses[1].headers["ETag"] == "W/\"1\"")
        #expect(String(decoding: responses[2].body, as: UTF8.self) == "42")
        #expect(
            responses[3].contentID == "4" && responses[3].status == 200 && responses[3].body == Data([0, 1, 2, 255]))
    }

    @Test func mediaTypeParameters() {
        let type = MediaType(#"Multipart/Mixed; Boundary="a;b\"c"; charset=utf-8"#)
        #expect(type.type == "multipart/mixed" && type.parameter("boundary") == #"a;b"c"#)
        #expect(type.parameter("charset") == "utf-8" && MediaType("").type.isEmpty)
    }
}
