public import Foundation

/// Reads a large document and hands over each complete element of one kind (an `<atom:entry>`, say) while
/// parsing, so a 20,000-entry feed never needs its whole tree in memory.
///
/// Delivered elements are not attached to their parent; everything else is kept and returned as the
/// document's skeleton (for a feed: its links, `cmisra:numItems`, and so on).
///
/// ```swift
/// let reader = XMLStreamReader(splittingAt: "entry", namespace: XNamespace.atom)
/// let feed = try reader.read(data: body) { entry in
///     names.append(entry.textOf(child: "title", namespace: XNamespace.atom) ?? "")
/// }
/// ```
public struct XMLStreamReader: Sendable, Hashable {
    /// Local name of the elements to deliver.
    public var name: String
    /// Namespace URI of the elements to deliver; `nil` matches any namespace.
    public var namespace: String?
    /// Bounds applied while reading.
    public var limits: XMLReadLimits
    /// Whether only children of the root element are delivered; matching elements deeper down (an entry in a
    /// nested feed) then stay inside the element that holds them.
    public var topLevelOnly: Bool

    /// Creates a reader that delivers every element called `name` in `namespace` (with `topLevelOnly`, only
    /// those directly under the root).
    ///
    /// ```swift
    /// let reader = XMLStreamReader(splittingAt: "EntityType", namespace: nil)
    /// ```
    public init(
        splittingAt name: String, namespace: String?, limits: XMLReadLimits = .default, topLevelOnly: Bool = false
    ) {
        self.name = name
        self.namespace = namespace
        self.limits = limits
        self.topLevelOnly = topLevelOnly
    }

    /// Reads `data`, calling `body` with each matching element as soon as it ends.
    ///
    /// Throwing from `body` stops the parse and rethrows that error.
    /// ```swift
    /// let skeleton = try reader.read(data: body) { entry in count += 1 }
    /// ```
    /// - Returns: the document without the delivered elements.
    /// - Throws: ``XMLReadError``, or what `body` threw.
    @discardableResult
    public func read(data: Data, _ body: (XElement) throws -> Void) throws -> XDocument {
        try read(.data(data), body)
    }

    /// Reads a file, calling `body` with each matching element as soon as it ends.
    ///
    /// ```swift
    /// try reader.read(contentsOf: fileURL) { entry in count += 1 }
    /// ```
    /// - Returns: the document without the delivered elements.
    /// - Throws: ``XMLReadError``, or what `body` threw.
    @discardableResult
    public func read(contentsOf url: URL, _ body: (XElement) throws -> Void) throws -> XDocument {
        try read(.file(url), body)
    }

    private func read(_ input: XMLReader.Input, _ body: (XElement) throws -> Void) throws -> XDocument {
        try withoutActuallyEscaping(body) { body in
            let builder = TreeBuilder(
                limits: limits, split: (name, namespace, topLevelOnly), deliver: body)
            return XDocument(root: try XMLReader.read(input, limits: limits, builder: builder))
        }
    }
}
