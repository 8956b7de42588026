// What the XML reader's preflight (the byte pass that keeps hostile documents away from `XMLParser`) costs, with
// a bare `XMLParser` pass over the same bytes measured beside it in the same run.
//
//   swift run -c release XMLBenchmark [--runs N] [--megabytes N]
//
// Documents: the AtomPub children feed captured from the reference CMIS server (23 KB); a feed of its entries
// repeated to about N MB (4 by default); the same large feed in UTF-16 (transcoded by the preflight). For each
// document and run:
//   - preflight: `XMLPreflight.check` alone;
//   - XMLParser: libxml2 through Foundation, namespaces on, a delegate that does nothing (the floor any reader on
//     `XMLParser` pays);
//   - XDocument.parse: Satchel's whole read (preflight, parser, tree).
// Prints each run, then the medians in MB/s and the preflight's share of `XDocument.parse`.
import BenchmarkSupport
import Foundation
import SatchelXML

#if canImport(FoundationXML)
    import FoundationXML
#endif

struct Options {
    var runs = 5
    var megabytes = 4

    init() {
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
            case "--megabytes": megabytes = max(1, Int(arguments.next() ?? "") ?? megabytes)
            default:
                FileHandle.standardError.write(Data("usage: XMLBenchmark [--runs N] [--megabytes N]\n".utf8))
                exit(2)
            }
        }
    }
}

/// A delegate that does nothing, so the parser's own cost is what is measured.
final class Silent: NSObject, XMLParserDelegate {}

func bareParse(_ data: Data) -> Bool {
    let parser = XMLParser(stream: InputStream(data: data))
    parser.shouldProcessNamespaces = true
    parser.shouldReportNamespacePrefixes = true
    parser.shouldResolveExternalEntities = false
    let delegate = Silent()
    parser.delegate = delegate
    return parser.parse()
}

struct Document {
    let name: String
    let data: Data
    /// Reads per run, so each measurement lasts long enough to time.
    let repeats: Int
}

func documents(megabytes: Int) throws -> [Document] {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/SatchelCMISTests/Fixtures/cmis-opencmis/atompub-children-feed.xml")
        .standardizedFileURL
    let feed = try Data(contentsOf: fixture)
    let text = String(decoding: feed, as: UTF8.self)
    guard let first = text.range(of: "<atom:entry"), let last = text.range(of: "</atom:entry>", options: .backwards)
    else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: fixture.path])
    }
    let head = text[..<first.lowerBound]
    let entries = text[first.lowerBound..<last.upperBound]
    let tail = text[last.upperBound...]
    let copies = max(1, megabytes * 1_000_000 / entries.utf8.count)
    let large = head + String(repeating: String(entries), count: copies) + tail
    var utf16 = Data([0xFF, 0xFE])
    for unit in large.replacingOccurrences(of: "encoding='UTF-8'", with: "encoding='UTF-16'").utf16 {
        utf16.append(UInt8(unit & 0xFF))
        utf16.append(UInt8(unit >> 8))
    }
    return [
        Document(name: "feed 23 KB", data: feed, repeats: 200),
        Document(name: "feed \(megabytes) MB", data: Data(large.utf8), repeats: 1),
        Document(name: "feed \(megabytes) MB UTF-16", data: utf16, repeats: 1),
    ]
}

let options = Options()
let docs = try documents(megabytes: options.megabytes)
print("XMLBenchmark: \(options.runs) runs; MB/s of document bytes (higher is better)")
for document in docs {
    // Each measure must succeed, or the figures mean nothing.
    guard bareParse(document.data) else { fatalError("XMLParser refused \(document.name)") }
    _ = try XDocument.parse(data: document.data)

    var preflight: [Double] = []
    var bare: [Double] = []
    var whole: [Double] = []
    for run in 1...options.runs {
        let p = try seconds {
            for _ in 0..<document.repeats {
                _ = try document.data.withUnsafeBytes { bytes in try XMLPreflight.check(bytes) }
            }
        }
        let b = seconds { for _ in 0..<document.repeats { _ = bareParse(document.data) } }
        let w = try seconds { for _ in 0..<document.repeats { _ = try XDocument.parse(data: document.data) } }
        let megabytes = Double(document.data.count * document.repeats) / 1e6
        preflight.append(megabytes / p)
        bare.append(megabytes / b)
        whole.append(megabytes / w)
        print(
            "  \(document.name) run \(run): preflight \(Int(megabytes / p)) MB/s, XMLParser \(Int(megabytes / b)) MB/s, "
                + "XDocument.parse \(Int(megabytes / w)) MB/s")
    }
    let (p, b, w) = (median(preflight), median(bare), median(whole))
    print(
        "\(document.name) (\(document.data.count) bytes), medians: preflight \(String(format: "%.0f", p)) MB/s, "
            + "XMLParser alone \(String(format: "%.1f", b)) MB/s, XDocument.parse \(String(format: "%.1f", w)) MB/s; "
            + "preflight share of XDocument.parse \(String(format: "%.1f", 100 * w / p))%")
}
