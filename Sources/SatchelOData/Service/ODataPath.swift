/// A resource path below the service root: an entity set or singleton, keys, navigation, casts, operations.
///
/// ```swift
/// ODataPath("StudentSet").key("0042").navigate("Visits").text(for: .v2)   // StudentSet('0042')/Visits
/// ODataPath("People").key(["UserName": "russell"]).text(for: .v4)        // People(UserName='russell')
/// ```
public struct ODataPath: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A part of the path: an entity set or navigation name, a key predicate, or text used as given.
    public enum Segment: Sendable, Hashable {
        /// An entity set, singleton, navigation property, type cast or operation name; percent-encoded when written.
        case name(String)
        /// A key predicate, written right after the previous segment (`('0042')`, `(A=1,B='x')`).
        case key(ODataKey)
        /// Text used as given, not encoded; a `/` is put before it unless it starts with `(`.
        case raw(String)
    }

    /// The segments in order.
    public internal(set) var segments: [Segment]

    /// A path starting at an entity set, singleton or operation import.
    public init(_ name: String) { segments = [.name(name)] }
    /// A path written out already (`"StudentSet('1')/Visits"`), used as given, like `raw(_:)`.
    public init(stringLiteral value: String) { segments = [.raw(value)] }
    /// A path written out already (`StudentSet('1')/Visits`), used as given.
    public static func raw(_ text: String) -> ODataPath { ODataPath(segments: [.raw(text)]) }
    private init(segments: [Segment]) { self.segments = segments }

    /// Appends a key predicate to the last segment.
    public func key(_ key: ODataKey) -> ODataPath { ODataPath(segments: segments + [.key(key)]) }
    /// Appends a navigation property, a derived type cast, or a bound operation name.
    public func navigate(_ name: String) -> ODataPath { ODataPath(segments: segments + [.name(name)]) }
    /// Appends a segment written out already (`$value`, `$count`, `$ref`).
    public func appending(raw text: String) -> ODataPath { ODataPath(segments: segments + [.raw(text)]) }

    /// The path, percent-encoded for a URL.
    public func text(for version: ODataVersion) -> String {
        var text = ""
        for segment in segments {
            switch segment {
            case .name(let name):
                if !text.isEmpty { text += "/" }
                text += ODataURLEncoding.pathSegment(name)
            case .key(let key): text += ODataURLEncoding.pathSegment(key.predicate(for: version))
            case .raw(let raw):
                if !text.isEmpty && !raw.hasPrefix("(") { text += "/" }
                text += raw
            }
        }
        return text
    }

    /// The first segment's name (the entity set or singleton), when it is a plain name.
    public var rootName: String? {
        switch segments.first {
        case .name(let name): name
        case .raw(let raw): String(raw.prefix { $0 != "(" && $0 != "/" && $0 != "?" })
        default: nil
        }
    }

    /// The path as written for V4.
    public var description: String { text(for: .v4) }
}
