import Foundation
import SatchelCMISCore
import SatchelCMISQL

/// A row held in memory: properties by query name, folder membership and full text.
struct TestRow: QueryRow, Sendable {
    var properties: [String: [PropertyValue]] = [:]
    var multiValued: Set<String> = []
    var parents: Set<String> = []
    var ancestors: Set<String> = []
    var text: String?

    func values(for column: ColumnReference) -> [PropertyValue]? { properties[column.name] }
    func cardinality(for column: ColumnReference) -> Cardinality? {
        guard properties[column.name] != nil else { return nil }
        return multiValued.contains(column.name) ? .multi : .single
    }
    func isInFolder(_ folderId: String, qualifier: String?) -> Bool { parents.contains(folderId) }
    func isInTree(_ folderId: String, qualifier: String?) -> Bool { ancestors.contains(folderId) }
    func fullText(qualifier: String?) -> String? { text }
}

func column(_ name: String, _ qualifier: String? = nil) -> ColumnReference {
    ColumnReference(qualifier: qualifier, name: name)
}

func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0 }

/// 2024-01-02T03:04:05.678Z
let sampleDate = Date(timeIntervalSince1970: 1_704_164_645.678)

/// Parses `SELECT * FROM t WHERE <condition>` and returns the condition.
func condition(_ text: String) throws -> QueryExpression? {
    try CMISQL.parse("SELECT * FROM t WHERE " + text).whereClause
}
