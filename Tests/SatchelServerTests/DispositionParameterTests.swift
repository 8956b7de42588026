import Testing

@testable import SatchelServer

/// The Browser binding's form uploads name their file in `Content-Disposition`; its parameters are read by Unicode
/// scalars, so a quote that carries a combining mark still opens or closes the quoted string.
@Suite("Content-Disposition parameters of form uploads")
struct DispositionParameterTests {
    @Test("a quoted file name keeps its ';', escaped quotes and combining marks")
    func quotedNames() {
        let header = "form-data; name=\"content\"; filename=\"\u{301}a;b \\\"c\\\"\u{301}.txt\""
        let name = MultipartReader.dispositionParameter("filename", in: header)
        #expect(name.map { Array($0.unicodeScalars) } == Array("\u{301}a;b \"c\"\u{301}.txt".unicodeScalars))
        #expect(MultipartReader.dispositionParameter("name", in: header) == "content")
        #expect(MultipartReader.dispositionParameter("filename", in: "form-data; filename=plain.txt") == "plain.txt")
        #expect(MultipartReader.dispositionParameter("filename", in: #"form-data; filename="a\b.txt""#) == #"a\b.txt"#)
        // `\"` does not end the quoted string: the `;` after it is part of the name.
        #expect(
            MultipartReader.dispositionParameter("filename", in: #"form-data; filename="a\"; x.txt"; name="c""#)
                == #"a"; x.txt"#)
        #expect(
            MultipartReader.dispositionParameter(
                "filename", in: "form-data; filename=\"x\"; filename*=UTF-8''caf%C3%A9.txt") == "café.txt")
    }
}
