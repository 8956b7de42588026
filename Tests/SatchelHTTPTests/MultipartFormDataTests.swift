import Foundation
import SatchelHTTP
import Testing

@Suite("multipart/form-data bodies")
struct MultipartFormDataTests {
    @Test("a name or filename cannot add header lines or end its quotes, even with CR LF or a combining mark")
    func headerInjection() throws {
        var form = MultipartFormData(boundary: "b")
        try form.addData(
            "f\"\u{301}; name=\"evil", data: Data("x".utf8), filename: "a\r\nX-Injected: 1\r\n\r\n\"\u{301}.txt",
            contentType: "text/plain")
        var bytes = Data()
        for segment in form.body.segments {
            guard case .data(let data) = segment else { continue }
            bytes.append(data)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.unicodeScalars.split(separator: "\n").map { String(String.UnicodeScalarView($0)) }
        #expect(
            lines == [
                "--b\r",
                "Content-Disposition: form-data; name=\"f%22\u{301}; name=%22evil\";"
                    + " filename=\"a%0D%0AX-Injected: 1%0D%0A%0D%0A%22_.txt\";"
                    + " filename*=UTF-8''a%0D%0AX-Injected%3A%201%0D%0A%0D%0A%22%CC%81.txt\r",
                "Content-Type: text/plain\r", "\r", "x\r", "--b--\r",
            ], "\(text.debugDescription)")
    }

    @Test("text beyond ASCII says it is UTF-8: a field's part its charset, a file name RFC 5987's filename*")
    func charsets() throws {
        var form = MultipartFormData(boundary: "b")
        form.addField("cmisaction", "createDocument")
        form.addField("propertyValue[0]", "Schriftstück")
        try form.addData("content", data: Data("x".utf8), filename: "Schriftstück 1.txt", contentType: "text/plain")
        var bytes = Data()
        for segment in form.body.segments {
            guard case .data(let data) = segment else { continue }
            bytes.append(data)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(
            text == "--b\r\nContent-Disposition: form-data; name=\"cmisaction\"\r\n\r\ncreateDocument\r\n"
                + "--b\r\nContent-Disposition: form-data; name=\"propertyValue[0]\"\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n\r\nSchriftstück\r\n"
                + "--b\r\nContent-Disposition: form-data; name=\"content\"; filename=\"Schriftst_ck 1.txt\"; "
                + "filename*=UTF-8''Schriftst%C3%BCck%201.txt\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n",
            "\(text.debugDescription)")
    }

    @Test(
        "a part's media type with a control character is refused, not written",
        arguments: [
            "text/plain\r\nContent-Disposition: form-data; name=\"cmisaction\"", "text/plain\n", "text/plain\u{0}",
            "text/plain\u{7F}",
        ])
    func mediaTypeInjection(_ contentType: String) throws {
        var form = MultipartFormData(boundary: "b")
        let error = #expect(throws: HTTPTransferError.self) {
            try form.addData("content", data: Data("x".utf8), filename: "a.txt", contentType: contentType)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("control character") == true)
        #expect(form.body.length == Int64("--b--\r\n".utf8.count))
    }

    @Test("names and file names have every control character percent-encoded")
    func controlCharactersInNames() throws {
        var form = MultipartFormData(boundary: "b")
        try form.addData("a\u{0}b", data: Data(), filename: "x\u{1F}\ty\u{7F}", contentType: "text/plain")
        guard case .data(let head) = form.body.segments[0] else { Issue.record("no head"); return }
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.contains(#"name="a%00b"; filename="x%1F%09y%7F""#), "\(text.debugDescription)")
    }

    @Test(
        "no transport is handed a header field or body type that would split the request's head",
        arguments: [
            ("X-Note", "a\r\nX-Injected: 1"), ("Content-Type", "text/plain\nX: y"), ("X-Zero", "a\u{0}"),
            ("Bad Name", "v"), ("", "v"),
        ])
    func requestHeaderInjection(name: String, value: String) async throws {
        let transport = InMemoryTransport { _ in TransportResponse(status: 200, headers: [:]) }
        let client = HTTPClient(transport: transport)
        var request = HTTPClient.Request(.post, url: URL(string: "http://h/a")!, body: .text("x"))
        request.headers[name] = value
        let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.url?.absoluteString == "http://h/a")
        let typed = HTTPClient.Request(
            .post, url: URL(string: "http://h/a")!, body: .data(Data(), contentType: "text/plain\r\nX: y"))
        await #expect(throws: HTTPTransferError.self) { try await client.send(typed) }
        #expect(transport.requests.isEmpty)
    }
}
