/// A CMIS QL statement that could not be parsed, or a row it could not be evaluated against.
///
/// ```swift
/// do { _ = try CMISQL.parse("SELECT * FROM") } catch {
///     error.offset    // 13
///     error.message   // expected a type query name after FROM, found the end of the statement
/// }
/// ```
public struct CMISQLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong and, for syntax errors, what was expected.
    public var message: String
    /// The offset in the statement the problem is at, in Unicode scalars (for evaluation errors: the column's offset).
    /// The statement is read by scalar, as escapers write it; in ASCII, scalars are characters.
    public var offset: Int

    /// An error with its message and the scalar offset it is at.
    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// `CMIS QL error at offset N: message`.
    public var description: String { "CMIS QL error at offset \(offset): \(message)" }
}
