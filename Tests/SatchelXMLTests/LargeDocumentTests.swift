import Foundation
import SatchelXML
import Testing

@Suite struct LargeDocumentTests {
    static let entries = 30_000
    static let feed = Samples.feed(entries: entries)

    /// Over 10 MB: `XMLParser(data:)` would refuse it, the stream path must not.
    @Test func treeOfLargeFeed() throws {
        #expect(Self.feed.count > 12_000_000)
        let root = try XDocument.parse(data: Self.feed).root
        let entries = root.children("entry", namespace: Samples.atom)
        #expect(entries.count == Self.entries)
        #expect(entries.last?.textOf(child: "title", namespace: Samples.atom) == "Document & \(Self.entries - 1)")
    }

    @Test func streamReaderDeliversEachEntry() throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "satchel-feed-\(UUID().uuidString).xml")
        try Self.feed.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var count = 0
        let reader = XMLStreamReader(splittingAt: "entry", namespace: Samples.atom)
        let skeleton = try reader.read(contentsOf: file) { entry in
            #expect(entry.firstDescendant("value", namespace: Samples.cmis)?.text == "\(count)")
            count += 1
        }
        #expect(count == Self.entries)
        #expect(skeleton.root.children.map(\.name) == ["numItems"])

        struct Enough: Error {}
        var seen = 0
        #expect(throws: Enough.self) {
            try reader.read(data: Self.feed) { _ in
                seen += 1
                if seen == 3 { throw Enough() }
            }
        }
        #expect(seen == 3)
    }

    /// With `topLevelOnly`, an entry inside an entry (a nested feed) stays with its parent.
    @Test func topLevelOnlyKeepsNestedEntriesInPlace() throws {
        let document = Data(
            """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><title>a</title><children><feed>\
            <entry><title>a1</title></entry></feed></children></entry><entry><title>b</title></entry>\
            <count>2</count></feed>
            """.utf8)
        var all: [String] = []
        try XMLStreamReader(splittingAt: "entry", namespace: Samples.atom).read(data: document) {
            all.append($0.textOf(child: "title", namespace: Samples.atom) ?? "")
        }
        #expect(all == ["a1", "a", "b"])
        var top: [(String, Int)] = []
        let skeleton = try XMLStreamReader(splittingAt: "entry", namespace: Samples.atom, topLevelOnly: true).read(
            data: document
        ) { entry in
            top.append(
                (
                    entry.textOf(child: "title", namespace: Samples.atom) ?? "",
                    entry.descendants("entry", namespace: Samples.atom).count
                ))
        }
        #expect(top.map(\.0) == ["a", "b"])
        #expect(top.map(\.1) == [1, 0])
        #expect(skeleton.root.children.map(\.name) == ["count"])
    }
}
