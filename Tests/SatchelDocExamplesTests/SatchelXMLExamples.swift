import Foundation
import SatchelXML

enum SatchelXMLExamples {
    /// GettingStarted.md: parse a document and read it.
    static func parse(body: Data) throws -> [String] {
        let feed = try XDocument.parse(data: body).root
        var titles: [String] = []
        for entry in feed.children("entry", namespace: XNamespace.atom) {
            let title = entry.textOf(child: "title", namespace: XNamespace.atom) ?? ""
            let href = entry.child("link", namespace: XNamespace.atom)?.attribute("href")
            titles.append(title + " " + (href ?? ""))
        }
        return titles
    }

    /// GettingStarted.md: handle a document that cannot be read.
    static func handleErrors(body: Data) -> XElement? {
        do {
            return try XDocument.parse(data: body).root
        } catch let error as XMLReadError where error.code == .unexpectedEnd {
            print("truncated at line \(error.line), column \(error.column)")
            return nil
        } catch {
            print(error)  // XML malformed at line 3, column 7: …
            return nil
        }
    }

    /// GettingStarted.md: read a large feed one entry at a time, with tighter limits.
    static func stream(file: URL) throws -> Int {
        var limits = XMLReadLimits()
        limits.maxDocumentSize = 256 << 20
        let reader = XMLStreamReader(splittingAt: "entry", namespace: XNamespace.atom, limits: limits)
        var count = 0
        let skeleton = try reader.read(contentsOf: file) { entry in
            if entry.textOf(child: "id", namespace: XNamespace.atom) != nil { count += 1 }
        }
        let links = skeleton.root.children("link", namespace: XNamespace.atom)
        return count + links.count
    }

    /// GettingStarted.md: write a document.
    static func write(url: String) -> [UInt8] {
        var writer = XMLWriter(namespaces: [("atom", XNamespace.atom), ("cmisra", XNamespace.cmisRestAtom)])
        writer.start("entry", namespace: XNamespace.atom)
        writer.element("title", namespace: XNamespace.atom, text: "Report & notes")
        writer.element("link", namespace: XNamespace.atom, attributes: [("rel", "self"), ("href", url)])
        writer.end()
        return writer.finish()
    }
}
