import Foundation
import SatchelCMISCore
import Testing

@Suite("AtomPub binding: errors and hostile input")
struct AtomPubErrorTests {
    @Test(
        "malformed, truncated and empty XML give invalidResponse with the line",
        arguments: [
            (
                "<atom:entry xmlns:atom=\"http://www.w3.org/2005/Atom\">\n<atom:title>x</atom:title>\n<a b=\"1\" b=\"2\"/>",
                3
            ),
            ("<?xml version=\"1.0\"?>\n<atom:entry xmlns:atom=\"http://www.w3.org/2005/Atom\">\n<atom:title>", 3),
            ("<atom:entry xmlns:atom=\"http://www.w3.org/2005/Atom\">\n</atom:feed>", 2),
            ("", 0),
        ])
    func malformed(xml: String, line: Int) throws {
        let error = try #require(throws: CMISError.self) { try AtomPubParser.entry(Data(xml.utf8)) }
        #expect(error.code == .invalidResponse)
        #expect(error.xmlLine == line)
        if line > 0 { #expect(error.message.contains("line \(line)")) }
    }

    @Test("a truncated fixture fails cleanly at any cut", arguments: [0.1, 0.5, 0.9, 0.999])
    func truncated(fraction: Double) throws {
        let data = try Fixture.data("atompub-children-feed.xml")
        let cut = data.prefix(Int(Double(data.count) * fraction))
        let error = try #require(throws: CMISError.self) { try AtomPubParser.children(cut) }
        #expect(error.code == .invalidResponse && error.xmlLine != nil)
    }

    @Test("wrong root element, missing cmisra:object or cmis:objectId, bad typed values")
    func structural() throws {
        let feed = try Fixture.data("atompub-children-feed.xml")
        let wrongRoot = try #require(throws: CMISError.self) { try AtomPubParser.entry(feed) }
        #expect(wrongRoot.code == .invalidResponse && wrongRoot.message.contains("unexpected root element atom:feed"))
        let service = try #require(throws: CMISError.self) {
            try AtomPubParser.serviceDocument(Fixture.data("atompub-document-entry.xml"))
        }
        #expect(service.code == .invalidResponse)

        let head = """
            <atom:entry xmlns:atom="http://www.w3.org/2005/Atom" xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/" \
            xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/">
            """
        let noObject = try #require(throws: CMISError.self) {
            try AtomPubParser.entry(Data((head + "<atom:title>x</atom:title></atom:entry>").utf8))
        }
        #expect(noObject.code == .invalidResponse && noObject.path == "/atom:entry")
        let noId = try #require(throws: CMISError.self) {
            try AtomPubParser.entry(
                Data(
                    (head
                        + "<cmisra:object><cmis:properties><cmis:propertyString propertyDefinitionId=\"cmis:name\">"
                        + "<cmis:value>x</cmis:value></cmis:propertyString></cmis:properties></cmisra:object></atom:entry>")
                        .utf8))
        }
        #expect(noId.code == .invalidResponse && noId.message.contains("cmis:objectId"))
        let badInteger = try #require(throws: CMISError.self) {
            try AtomPubParser.entry(
                Data(
                    (head
                        + "<cmisra:object><cmis:properties><cmis:propertyInteger propertyDefinitionId=\"n\">"
                        + "<cmis:value>12x</cmis:value></cmis:propertyInteger></cmis:properties></cmisra:object></atom:entry>")
                        .utf8))
        }
        #expect(badInteger.code == .invalidResponse && badInteger.message.contains("12x"))
    }
}
