/// Bounds that keep a hostile or broken document from using unbounded time, memory or stack.
///
/// Every reader, decoder and stream in SatchelJSON takes a `JSONLimits`; exceeding one throws a
/// ``JSONError`` whose ``JSONError/code`` names the limit, so callers can tell a limit from a syntax error.
///
/// ```swift
/// var limits = JSONLimits()
/// limits.maxDepth = 64
/// limits.maxStringLength = 1 << 20
/// let value = try JSONValue(parsing: bytes, limits: limits)
/// ```
public struct JSONLimits: Sendable, Hashable {
    /// Deepest nesting of arrays and objects. Parsing is recursive, so keep this well below 10,000.
    public var maxDepth: Int
    /// Largest document, in bytes, for whole-document parsing. Streams apply it to each buffered element.
    public var maxDocumentSize: Int
    /// Longest string (or object key), in bytes of its escaped source text.
    public var maxStringLength: Int
    /// Longest number lexeme, in bytes.
    public var maxNumberLength: Int
    /// Most members of one object.
    public var maxObjectMembers: Int
    /// Most elements of one array (a stream applies it to the streamed array too).
    public var maxArrayElements: Int

    /// Creates limits; the defaults suit server responses of a few hundred megabytes.
    public init(
        maxDepth: Int = 512,
        maxDocumentSize: Int = 1 << 30,
        maxStringLength: Int = 256 << 20,
        maxNumberLength: Int = 1024,
        maxObjectMembers: Int = 1 << 20,
        maxArrayElements: Int = 1 << 26
    ) {
        self.maxDepth = maxDepth
        self.maxDocumentSize = maxDocumentSize
        self.maxStringLength = maxStringLength
        self.maxNumberLength = maxNumberLength
        self.maxObjectMembers = maxObjectMembers
        self.maxArrayElements = maxArrayElements
    }

    /// The default limits.
    public static let `default` = JSONLimits()
}
