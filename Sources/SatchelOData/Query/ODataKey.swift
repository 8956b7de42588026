import Foundation
import SatchelText
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

    /// A single string key: `"0042"` is `('0042')`.
    public init(stringLiteral value: String) { self = .single(.string(value)) }
    /// A single integer key: `42` is `(42)`.
    public init(integerLiteral value: Int) { self = .single(.int(value)) }
    /// A composite key in order: `["StudentId": "0042", "VisitNo": 3]`.
    public init(dictionaryLiteral elements: (String, ODataLiteral)...) {
        storage = elements.map { Part(name: $0.0, value: $0.1) }
    }

    /// Reads what is inside a key predicate: `3`, `'a,b'`, `OrderID=1,LineNumber=2` (commas and `=` inside quoted
    /// strings are the string's own), each value a literal of `version`.
    public init(parsing text: String, version: ODataVersion) throws(ODataError) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ODataError(.invalidArgument, "an empty key")
        }
        // Split by Unicode scalars, as the literals were escaped: a quote followed by a combining mark is still a
        // quote (one `Character`, not equal to "'").
        var parts: [(String, ODataLiteral)] = []
        let pieces = text.splittingByScalars(at: ",", outside: "'").map(\.unicodeScalars)
        for piece in pieces {
            let nameEnd = piece.firstIndex { $0 == "=" || $0 == "'" }
            let named = nameEnd.map { piece[$0] == "=" } ?? false
            let name = named ? String(piece[..<nameEnd!]).trimmingCharacters(in: .whitespaces) : ""
            let valueText = named ? String(piece[piece.index(after: nameEnd!)...]) : String(piece)
            guard case .literal(let literal) = try ODataExpression.parse(valueText, version: version) else {
                throw ODataError(.invalidArgument, "\(valueText) in the key (\(text)) is not a literal")
            }
            parts.append((name, literal))
        }
        self = parts.count == 1 && parts[0].0.isEmpty ? .single(parts[0].1) : ODataKey(parts: parts)
    }

    /// `(value)` or `(A=1,B='x')`, before percent-encoding.
    public func predicate(for version: ODataVersion) -> String {
        if storage.count == 1, storage[0].name.isEmpty { return "(" + storage[0].value.text(for: version) + ")" }
        return "(" + storage.map { "\($0.name)=\($0.value.text(for: version))" }.joined(separator: ",") + ")"
    }
}
