/// A problem found while reading `$metadata` that did not stop the parse: an element or attribute Satchel does
/// not understand, a reference it could not resolve, a value it could not read.
///
/// ```swift
/// let metadata = try ODataMetadata.parse(data: body)
/// for diagnostic in metadata.diagnostics where diagnostic.severity == .warning {
///     print(diagnostic)   // warning at Schema(GWSAMPLE)/EntityType(Foo): unknown primitive type Edm.Tensor
/// }
/// ```
public struct ODataDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How much the problem matters.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// Something was skipped that a caller may want (an unknown element, an unknown annotation form).
        case note
        /// Something is inconsistent (an unresolvable association, a type that does not exist, a missing key).
        case warning

        /// A note orders before a warning.
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .note && rhs == .warning }
    }

    /// How much the problem matters.
    public var severity: Severity
    /// What the problem is.
    public var message: String
    /// Where in the document: `Schema(NS)/EntityType(Name)/Property(P)`.
    public var location: String

    /// A diagnostic of `severity` at `location`.
    public init(_ severity: Severity, _ message: String, at location: String) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    /// `<severity> at <location>: <message>`.
    public var description: String { "\(severity) at \(location): \(message)" }
}
