public import Foundation

/// A parsed XML document: its root element and everything below it, as `Sendable` values.
///
/// Reads through Foundation's `XMLParser` with namespace processing on, from a stream (so documents over
/// 10 MB work), with external entities off and ``XMLReadLimits`` enforced.
///
/// ```swift
/// let feed = try XDocument.parse(data: body).root
/// for entry in feed.children("entry", namespace: XNamespace.atom) {
///     print(entry.textOf(child: "title", namespace: XNamespace.atom) ?? "")
/// }
/// ```
public struct XDocument: Sendable, Hashable {
    /// The root element.
    public var root: XElement

    /// Wraps a root element.
    ///
    /// ```swift
    /// let doc = XDocument(root: XElement(name: "feed", namespace: XNamespace.atom))
    /// ```
    public init(root: XElement) {
        self.root = root
    }

    /// Parses a document held in memory.
    ///
    /// ```swift
    /// let doc = try XDocument.parse(data: Data("<a x='1'>hi</a>".utf8))
    /// ```
    /// - Throws: ``XMLReadError``.
    public static func parse(data: Data, limits: XMLReadLimits = .default) throws -> XDocument {
        XDocument(root: try XMLReader.read(.data(data), limits: limits, builder: TreeBuilder(limits: limits)))
    }

    /// Parses a document from a file, streaming it from disk.
    ///
    /// ```swift
    /// let doc = try XDocument.parse(contentsOf: URL(filePath: "/tmp/feed.xml"))
    /// ```
    /// - Throws: ``XMLReadError``.
    public static func parse(contentsOf url: URL, limits: XMLReadLimits = .default) throws -> XDocument {
        XDocument(root: try XMLReader.read(.file(url), limits: limits, builder: TreeBuilder(limits: limits)))
    }
}
