import Foundation
import SatchelXML
import Testing

@Suite struct TreeTests {
    @Test func namespacesKeepSameLocalNameApart() throws {
        let entry = try XDocument.parse(data: Data(Samples.entry.utf8)).root
        #expect(entry.name == "entry" && entry.namespace == Samples.atom && entry.qualifiedName == "entry")
        #expect(
            entry.namespaceDeclarations["cmisra"] == Samples.cmisra && entry.namespaceDeclarations[""] == Samples.atom)
        let atomContent = try #require(entry.child("content", namespace: Samples.atom))
        let cmisContent = try #require(entry.child("content", namespace: Samples.cmisra))
        #expect(atomContent.attribute("src") == "http://h/c?id=1&x=2")
        #expect(cmisContent.qualifiedName == "cmisra:content" && cmisContent.prefix == "cmisra")
        #expect(cmisContent.textOf(child: "base64", namespace: Samples.cmisra) == "SGk=")
        #expect(entry.children("content").count == 2)
        let ext = try #require(entry.child("myDocuments", namespace: "http://www.sap.com/mcm"))
        #expect(ext.text == "f-1" && ext.namespaceDeclarations == ["mcm": "http://www.sap.com/mcm"])
    }

    @Test(arguments: [
        ("title", "Report & notes"),  // entity decoded
        ("summary", "a <b>bold</b> & raw tail"),  // CDATA joined with following text
        ("mediatype", "text/plain"),
    ])
    func text(of name: String, is expected: String) throws {
        let entry = try XDocument.parse(data: Data(Samples.entry.utf8)).root
        #expect(entry.firstDescendant(name)?.text == expected)
    }

    @Test(arguments: [
        ("<a>  x \n y  </a>", "  x \n y  ", "x \n y"),
        ("<a>\n  <b/>\n</a>", "\n  \n", ""),
        ("<a>&lt;&gt;&amp;&apos;&quot;&#233;&#x1F600;</a>", "<>&'\"é😀", "<>&'\"é😀"),
        ("<a/>", "", ""),
    ])
    func whitespaceAndEntities(xml: String, text: String, trimmed: String) throws {
        let root = try XDocument.parse(data: Data(xml.utf8)).root
        #expect(root.text == text)
        #expect(root.trimmedText == trimmed)
    }

    @Test func childrenAndAttributesInOrder() throws {
        let xml = """
            <r xmlns:p="urn:p" p:k="1" k="2" z="3"><c i="1"/><d/><c i="2"><c i="3"/></c><c i="4"/></r>
            """
        let root = try XDocument.parse(data: Data(xml.utf8)).root
        #expect(root.children.map(\.name) == ["c", "d", "c", "c"])
        #expect(root.children("c").compactMap { $0.attribute("i") } == ["1", "2", "4"])
        #expect(root.descendants("c").compactMap { $0.attribute("i") } == ["1", "2", "3", "4"])
        #expect(root.attributes.map(\.qualifiedName) == ["k", "p:k", "z"])
        #expect(root.attribute("p:k") == "1" && root.attribute("k") == "2")
        #expect(root.attribute("k", namespace: "urn:p") == "1")
        #expect(root.attributes.first { $0.qualifiedName == "k" }?.namespace == nil)
    }

    @Test func openCMISFeedExcerpt() throws {
        let feed = try XDocument.parse(data: Data(Samples.openCMISFeed.utf8)).root
        #expect(feed.textOf(child: "numItems", namespace: Samples.cmisra) == "5")
        let links = feed.children("link", namespace: Samples.atom)
        #expect(links.first?.attribute("href")?.hasSuffix("children?id=100&skipCount=2&maxItems=2") == true)
        #expect(links.last?.attribute("renditionKind", namespace: Samples.cmisra) == "cmis:thumbnail")
        let entry = try #require(feed.child("entry", namespace: Samples.atom))
        let properties = try #require(entry.firstDescendant("properties", namespace: Samples.cmis))
        let values = properties.children.map { ($0.attribute("propertyDefinitionId") ?? "", $0.textOf(child: "value")) }
        #expect(values.map(\.0) == ["BooleanProp", "cmis:objectTypeId", "cmis:name", "cmis:objectId"])
        #expect(values.map(\.1) == [nil, "ComplexType", "My_Document-0-0", "133"])
    }
}
