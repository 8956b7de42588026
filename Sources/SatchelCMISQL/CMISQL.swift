/// CMIS Query Language (CMIS 1.1 §2.1.14): parsing into a ``CMISQuery`` and evaluation against rows the caller
/// supplies through ``QueryRow``.
///
/// ```swift
/// let query = try CMISQL.parse("SELECT * FROM cmis:document WHERE cmis:name LIKE 'report%' ORDER BY cmis:name")
/// let hits = candidates.filter { (try? query.matches($0)) == true }.sorted(by: query.areInIncreasingOrder)
/// ```
public enum CMISQL {
    /// The longest statement ``parse(_:)`` accepts, in UTF-8 bytes.
    public static let maximumStatementLength = 256 * 1024

    /// The deepest nesting of parentheses and `NOT`s ``parse(_:)`` accepts.
    public static let maximumNestingDepth = 100

    /// Parses a CMIS QL statement.
    ///
    /// Throws a ``CMISQLError`` naming the offset (in Unicode scalars) of the first problem and what was expected there.
    public static func parse(_ statement: String) throws(CMISQLError) -> CMISQuery {
        guard statement.utf8.count <= maximumStatementLength else {
            throw CMISQLError(
                "the statement is \(statement.utf8.count) bytes long; at most \(maximumStatementLength) are accepted",
                offset: 0)
        }
        var parser = try Parser(statement)
        return try parser.parseStatement()
    }
}
