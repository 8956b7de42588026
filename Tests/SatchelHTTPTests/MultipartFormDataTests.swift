import Foundation
import SatchelHTTP
import Testing

@Suite("multipart/form-data bodies")
struct MultipartFormDataTests {
    @Test("a name or filename cannot add header lines or end its quotes, even with CR LF or a combining mark")
    func headerInjection() throws {
        var form = MultipartFormData(boundary: "b")
        form.addData(
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
                    + " filename=\"a%0D%0AX-Injected: 1%0D%0A%0D%0A%22\u{301}.txt\"\r",
                "Content-Type: text/plain\r", "\r", "x\r", "--b--\r",
            ], "\(text.debugDescription)")
    }
}
