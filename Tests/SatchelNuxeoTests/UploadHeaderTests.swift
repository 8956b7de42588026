import Foundation
import SatchelHTTP
import SatchelJSON
import Testing

@testable import SatchelNuxeo

@Suite("Automation upload headers")
struct UploadHeaderTests {
    @Test("a file name cannot end its quotes or break its line, even with a combining mark on the quote")
    func fileNameInHeader() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-upload-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let name = "a\"\u{301}; name=evil\r\nX-Injected: 1\u{2028}\\.txt"
        let body = try NuxeoSession.related(call: .object([:]), file: file, name: name, mimeType: "text/plain")
        var head = Data()
        for segment in body.segments {
            guard case .data(let data) = segment else { continue }
            head.append(data)
        }
        let text = String(decoding: head, as: UTF8.self)
        let disposition = try #require(
            text.components(separatedBy: "\r\n").first { $0.hasPrefix("Content-Disposition:") })
        #expect(!text.contains("\r\nX-Injected"))
        let parts = disposition.components(separatedBy: "; filename*=UTF-8''")
        #expect(parts.count == 2, "\(disposition.debugDescription)")
        #expect(
            Array(parts[0].unicodeScalars)
                == Array(
                    "Content-Disposition: attachment; filename=\"a_\u{301}; name=evil__X-Injected: 1__.txt\""
                        .unicodeScalars),
            "\(disposition.debugDescription)")
        #expect(parts.last?.unicodeScalars.contains { " \"\\\r\n".unicodeScalars.contains($0) } == false)
    }
}
