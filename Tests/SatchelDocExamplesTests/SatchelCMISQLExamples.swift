import SatchelCMISCore
import SatchelCMISQL

enum SatchelCMISQLExamples {
    /// GettingStarted.md: the rows a statement is evaluated against.
    struct Document: QueryRow {
        var properties: [String: [PropertyValue]]
        var parentId: String
        var ancestorIds: Set<String>
        var text: String?

        func values(for column: ColumnReference) -> [PropertyValue]? { properties[column.name] }
        func isInFolder(_ folderId: String, qualifier: String?) -> Bool { folderId == parentId }
        func isInTree(_ folderId: String, qualifier: String?) -> Bool { ancestorIds.contains(folderId) }
        func fullText(qualifier: String?) -> String? { text }
    }

    /// GettingStarted.md: parse a statement and look at its parts.
    static func parse() throws -> CMISQuery {
        let query = try CMISQL.parse(
            "SELECT d.cmis:name FROM cmis:document d WHERE d.cmis:name LIKE 'report%' ORDER BY d.cmis:name DESC")
        let type = query.from.primary.queryName  // "cmis:document"
        let columns = query.referencedColumns.map(\.description)  // ["d.cmis:name", "d.cmis:name", "d.cmis:name"]
        let descending = query.orderBy.first?.ascending == false  // true
        _ = (type, columns, descending)
        return query
    }

    /// GettingStarted.md: evaluate a statement against rows.
    static func evaluate(_ candidates: [Document]) throws -> [Document] {
        let query = try CMISQL.parse(
            """
            SELECT cmis:name, SCORE() AS rank FROM cmis:document
            WHERE IN_TREE('f-1') AND CONTAINS('budget -draft') ORDER BY rank DESC, cmis:name
            """)
        let hits = query.sorted(try candidates.filter { try query.matches($0) })  // best score first
        let scores = hits.map { query.score($0) }  // between 0 and 1
        _ = scores
        return hits
    }

    /// GettingStarted.md: a statement that does not parse, or does not apply to a row.
    static func errors(_ row: Document) -> String? {
        do throws(CMISQLError) {
            let query = try CMISQL.parse("SELECT * FROM cmis:document WHERE cmis:contentStreamLength > 'big'")
            _ = try query.matches(row)
            return nil
        } catch {
            return "at \(error.offset): \(error.message)"
        }
    }

    /// GettingStarted.md: a LIKE pattern on its own.
    static func like() -> Bool {
        let pattern: LikePattern = "100\\%_%"
        return pattern.matches("100%-off sale") && pattern.literalPrefix == "100%"
    }
}
