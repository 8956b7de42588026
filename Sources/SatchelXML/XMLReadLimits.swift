/// Bounds on what a document may make the reader do; exceeding one throws ``XMLReadError/Code/limitExceeded``.
///
/// They protect against hostile or broken servers: deep nesting, element floods, huge text nodes and
/// entity-expansion bombs all stop at a limit instead of eating memory.
///
/// ```swift
/// var limits = XMLReadLimits()
/// limits.maxDocumentSize = 4 << 20
/// let doc = try XDocument.parse(data: data, limits: limits)
/// ```
public struct XMLReadLimits: Sendable, Hashable {
    /// Deepest element nesting allowed; the root element is at depth 1.
    public var maxDepth: Int = 256
    /// Most elements in one document (for a stream reader: per call, delivered elements included).
    public var maxElements: Int = 5_000_000
    /// Longest text of one element, in UTF-8 bytes after entity expansion.
    public var maxTextLength: Int = 64 << 20
    /// Largest input, in bytes.
    public var maxDocumentSize: Int = 1 << 30
    /// Most attributes on one element, namespace declarations included. The parser's duplicate check costs the
    /// square of this number, so it is counted before the parser runs.
    public var maxAttributes: Int = 1_024

    /// The defaults: depth 256, 5,000,000 elements, 64 MiB of text per element, 1 GiB of input, 1,024 attributes
    /// per element.
    ///
    /// ```swift
    /// let limits = XMLReadLimits()
    /// ```
    public init() {}

    /// The defaults.
    ///
    /// ```swift
    /// try XDocument.parse(data: data, limits: .default)
    /// ```
    public static let `default` = XMLReadLimits()
}
