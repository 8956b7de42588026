/// The key of an entity: one value, or named values for a composite key.
///
/// ```swift
/// ODataKey.single("0100000001").predicate(for: .v2)                       // ('0100000001')
/// ODataKey(["StudentId": "42", "VisitNo": .int(3)]).predicate(for: .v4)  // (StudentId='42',VisitNo=3)
/// ```
public struct ODataKey: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Property name (empty for a single unnamed value) and value, in order.
    public var parts: [(name: String, value: ODataLiteral)] {
        get { storage.map { ($0.name, $0.value) } }
        set { storage = newValue.map { Part(name: $0.name, value: $0.value) } }
    }

    private struct Part: Sendable, Hashable {
        var name: String
        var value: ODataLiteral
    }

    private var storage: [Part]

    /// A single-property key given without its name.
    public static func single(_ value: ODataLiteral) -> ODataKey { ODataKey(storage: [Part(name: "", value: value)]) }

    /// A key from named parts in order (a composite key, or a single key written with its name).
    public init(_ parts: KeyValuePairs<String, ODataLiteral>) {
        storage = parts.map { Part(name: $0.key, value: $0.value) }
    }

    /// A key from named parts in order.
    public init(parts: [(String, ODataLiteral)]) {
        storage = parts.map { Part(name: $0.0, value: $0.1) }
    }

    private init(storage: [Part]) { self.storage = storage }

    public init(stringLiteral value: String) { self = .single(.string(value)) }
    public init(integerLiteral value: Int) { self = .single(.int(value)) }
    /// A composite key in order: `["StudentId": "0042", "VisitNo": 3]`.
    public init(dictionaryLiteral elements: (String, ODataLiteral)...) {
        storage = elements.map { Part(name: $0.0, value: $0.1) }
    }

    /// `(value)` or `(A=1,B='x')`, before percent-encoding.
    public func predicate(for version: ODataVersion) -> String {
        if storage.count == 1, storage[0].name.isEmpty { return "(" + storage[0].value.text(for: version) + ")" }
        return "(" + storage.map { "\($0.name)=\($0.value.text(for: version))" }.joined(separator: ",") + ")"
    }
}
