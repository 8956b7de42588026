import Foundation
import GRDB
import SatchelOData
import SatchelStore
import Synchronization

/// A read as one SELECT: the filter, order, paging and projection of an ``ODataQuery``.
struct OfflineSelect {
    let table: OfflineTable
    let sql: String
    let arguments: [DatabaseValue]
    /// The top-level properties `$select` keeps (all when empty).
    let selected: Set<String>

    init(
        table: OfflineTable, query: ODataQuery, version: ODataVersion, schema: OfflineSchema? = nil,
        counting: Bool = false, restriction: OfflineSQL? = nil
    ) throws(OfflineStoreError) {
        self.table = table
        let translator = OfflineSQLTranslator(table: table, schema: schema)
        var text = counting ? "SELECT count(*) FROM \(table.sql) AS t0" : "SELECT t0.* FROM \(table.sql) AS t0"
        var arguments: [DatabaseValue] = []
        text += " WHERE t0._state <> 3"
        if let restriction {
            text += " AND \(restriction.sql)"
            arguments += restriction.arguments
        }
        if let filter = query.filter {
            let translated = try translator.translate(filter)
            text += " AND \(translated.sql)"
            arguments += translated.arguments
        }
        if !counting {
            var orders: [String] = []
            for order in query.orderBy {
                // `Price desc` may come as one expression (a typed field's `ordering(descending:)`).
                var text = order.expression.trimmingCharacters(in: .whitespaces)
                var descending = order.descending
                for (suffix, value) in [(" desc", true), (" asc", false)] where text.lowercased().hasSuffix(suffix) {
                    text = String(text.dropLast(suffix.count))
                    descending = value
                }
                let expression: ODataExpression
                do {
                    expression = try ODataExpression.parse(text, version: version)
                } catch {
                    throw OfflineStoreError(
                        .invalidQuery, "$orderby \(text) cannot be read: \(error.message)", underlying: error)
                }
                let translated = try translator.translate(expression)
                orders.append(translated.sql + (descending ? " DESC" : " ASC"))
                arguments += translated.arguments
            }
            // Then by key, then by row (entities created offline may have no key yet): pages stay stable.
            orders += table.keyPaths.compactMap { table.column($0).map { "t0.\($0.sql)" } } + ["t0._id"]
            text += " ORDER BY " + orders.joined(separator: ", ")
            if query.top != nil || query.skip != nil {
                text += " LIMIT ? OFFSET ?"
                arguments += [(query.top ?? -1).databaseValue, (query.skip ?? 0).databaseValue]
            }
        }
        sql = text
        self.arguments = arguments
        selected = Set(query.select.map { String($0.split(separator: "/").first ?? "") })
    }

    /// The entity of one row, complex properties rebuilt from their columns.
    func entity(from row: Row) -> ODataEntity {
        var entity = ODataEntity(type: table.entityTypeName)
        entity.etag = row["_etag"]
        let id: Int64 = row["_id"]
        entity.offlineEntityID = id
        if table.keyColumnNames.contains(where: { (row[$0] as DatabaseValue?)?.isNull ?? true }) {
            // Created offline, its key still to come from the server: a link that stays valid after the upload.
            entity.readLink = "\(table.entitySet)(\(OfflineLinks.entityIDKey)=\(id))"
        }
        var properties = ODataProperties()
        for column in table.columns where column.kind != .offsetMinutes {
            let top = String(column.path.split(separator: "/").first ?? "")
            if !selected.isEmpty, !selected.contains(top) { continue }
            let value = OfflineValues.odataValue(
                row[column.name] ?? .null, for: column, offset: column.offsetColumn.flatMap { row[$0] })
            Self.set(value, at: column.path[...], in: &properties)
        }
        entity.properties = properties
        return entity
    }

    static func set(_ value: ODataValue, at path: Substring, in properties: inout ODataProperties) {
        guard let slash = path.firstIndex(of: "/") else {
            properties[String(path)] = value
            return
        }
        let name = String(path[..<slash])
        var inner: ODataProperties
        if case .complex(let existing) = properties[name] { inner = existing } else { inner = ODataProperties() }
        set(value, at: path[path.index(after: slash)...], in: &inner)
        properties[name] = .complex(inner)
    }
}
