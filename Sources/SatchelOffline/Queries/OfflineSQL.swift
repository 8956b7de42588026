import Foundation
import GRDB
import SatchelOData

/// A `$filter` or `$orderby` expression as SQL over an entity set's table, its literals bound as arguments.
struct OfflineSQL {
    var sql: String
    var arguments: [DatabaseValue]
    /// The column the expression is (when it is a property): how literals compared with it are stored.
    var column: OfflineColumn?
    /// For a DateTimeOffset property: its offset column, qualified (date functions answer in the value's offset).
    var offset: String?
}

/// Translates ``ODataExpression`` trees into SQL over one table (docs/offline.md, "Local queries → SQL").
struct OfflineSQLTranslator {
    let table: OfflineTable
    /// The main table's alias in the statement.
    var alias = "t0"
    /// The schema, for lambdas over related entities.
    var schema: OfflineSchema?
    /// Lambda variables in scope: name → table and alias.
    var variables: [String: (table: OfflineTable, alias: String)] = [:]

    init(table: OfflineTable, schema: OfflineSchema? = nil) {
        self.table = table
        self.schema = schema
    }

    func translate(_ expression: ODataExpression) throws(OfflineStoreError) -> OfflineSQL {
        try translate(expression, near: nil)
    }

    /// A property path's column, in the main table or a lambda variable's.
    private func column(_ path: String) throws(OfflineStoreError) -> (column: OfflineColumn, sql: String) {
        var owner = (table: table, alias: alias)
        var rest = path
        if let slash = path.firstIndex(of: "/"), let variable = variables[String(path[..<slash])] {
            owner = variable
            rest = String(path[path.index(after: slash)...])
        }
        guard let column = owner.table.column(rest) else {
            throw OfflineStoreError(
                .unknownProperty, "\(owner.table.entitySet) has no property \(rest) the store can query")
        }
        return (column, "\(owner.alias).\(column.sql)")
    }

    private func unsupported(_ what: String) -> OfflineStoreError {
        OfflineStoreError(.unsupported, "the offline store cannot evaluate \(what) yet")
    }

    private func translate(
        _ expression: ODataExpression, near column: OfflineColumn?
    ) throws(OfflineStoreError)
        -> OfflineSQL
    {
        switch expression {
        case .property(let path):
            let (column, qualified) = try self.column(path)
            let sql = column.kind == .decimal ? "CAST(\(qualified) AS REAL)" : qualified
            let offset = column.offsetColumn.map { String(qualified.dropLast(column.sql.count)) + quoted($0) }
            return OfflineSQL(sql: sql, arguments: [], column: column, offset: offset)
        case .literal(let literal):
            return OfflineSQL(sql: "?", arguments: [OfflineValues.databaseValue(literal, near: column)], column: nil)
        case .not(let operand):
            let inner = try translate(operand, near: nil)
            return OfflineSQL(sql: "NOT (\(inner.sql))", arguments: inner.arguments)
        case .negate(let operand):
            let inner = try translate(operand, near: column)
            return OfflineSQL(sql: "-(\(inner.sql))", arguments: inner.arguments, column: inner.column)
        case .binary(let op, let left, let right):
            return try binary(op, left, right)
        case .isIn(let operand, let values):
            let inner = try translate(operand, near: nil)
            let arguments = values.map { OfflineValues.databaseValue($0, near: inner.column) }
            let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
            return OfflineSQL(sql: "COALESCE(\(inner.sql) IN (\(marks)), 0)", arguments: inner.arguments + arguments)
        case .call(let name, let arguments):
            return try call(name, arguments)
        case .lambda(let kind, let collection, let variable, let predicate):
            return try lambda(kind, collection, variable, predicate)
        case .raw(let text):
            throw unsupported("raw filter text '\(text)'")
        }
    }

    /// `Items/any(i: …)` as `EXISTS` over the related table (joined on the referential constraint), `all` as
    /// `NOT EXISTS … AND NOT (…)`.
    private func lambda(
        _ kind: ODataLambda, _ collection: String, _ variable: String, _ predicate: ODataExpression?
    ) throws(OfflineStoreError) -> OfflineSQL {
        guard let schema else { throw unsupported("\(collection)/\(kind.rawValue)(…)") }
        var owner = (table: table, alias: alias)
        var navigation = collection
        if let slash = collection.firstIndex(of: "/"), let outer = variables[String(collection[..<slash])] {
            owner = outer
            navigation = String(collection[collection.index(after: slash)...])
        }
        let relationship = try schema.relationship(from: owner.table, navigation: navigation)
        let inner = "t\(variables.count + 1)"
        var nested = self
        nested.variables[variable] = (relationship.target, inner)
        let join = relationship.join(inner: inner, outer: owner.alias)
        var sql = "SELECT 1 FROM \(relationship.target.sql) AS \(inner) WHERE \(join) AND \(inner)._state <> 3"
        var arguments: [DatabaseValue] = []
        if let predicate {
            let condition = try nested.translate(predicate, near: nil)
            sql += kind == .any ? " AND (\(condition.sql))" : " AND NOT (\(condition.sql))"
            arguments = condition.arguments
        }
        return OfflineSQL(sql: kind == .any ? "EXISTS (\(sql))" : "NOT EXISTS (\(sql))", arguments: arguments)
    }

    private func binary(
        _ op: ODataOperator, _ left: ODataExpression, _ right: ODataExpression
    ) throws(OfflineStoreError)
        -> OfflineSQL
    {
        switch op {
        case .and, .or:
            let lhs = try translate(left, near: nil)
            let rhs = try translate(right, near: nil)
            return OfflineSQL(
                sql: "(\(lhs.sql) \(op == .and ? "AND" : "OR") \(rhs.sql))", arguments: lhs.arguments + rhs.arguments)
        case .eq, .ne, .gt, .ge, .lt, .le:
            // Each side's literals are stored as the other side's column stores its values.
            var lhs = try translate(left, near: nil)
            let rhs = try translate(right, near: lhs.column)
            if lhs.column == nil, rhs.column != nil { lhs = try translate(left, near: rhs.column) }
            if case .literal(.null) = right {
                return OfflineSQL(sql: "(\(lhs.sql) IS \(op == .eq ? "" : "NOT ")NULL)", arguments: lhs.arguments)
            }
            if case .literal(.null) = left {
                return OfflineSQL(sql: "(\(rhs.sql) IS \(op == .eq ? "" : "NOT ")NULL)", arguments: rhs.arguments)
            }
            // OData's comparisons are true or false, never null: `eq`/`ne` compare nulls as values (IS, IS NOT), and an
            // ordering with a null is false, so `not (Price gt 10)` keeps the rows without a price.
            let sql: String =
                switch op {
                case .eq: "(\(lhs.sql) IS \(rhs.sql))"
                case .ne: "(\(lhs.sql) IS NOT \(rhs.sql))"
                default:
                    "COALESCE(\(lhs.sql) \(["gt": ">", "ge": ">=", "lt": "<", "le": "<="][op.rawValue]!) \(rhs.sql), 0)"
                }
            return OfflineSQL(sql: sql, arguments: lhs.arguments + rhs.arguments)
        case .add, .sub, .mul, .div, .mod:
            let lhs = try translate(left, near: nil)
            let rhs = try translate(right, near: lhs.column)
            let symbol = ["add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%"][op.rawValue]!
            return OfflineSQL(
                sql: "(\(lhs.sql) \(symbol) \(rhs.sql))", arguments: lhs.arguments + rhs.arguments,
                column: lhs.column ?? rhs.column)
        case .has:
            throw unsupported("the has operator")
        }
    }

    private func call(_ name: String, _ expressions: [ODataExpression]) throws(OfflineStoreError) -> OfflineSQL {
        var parts: [OfflineSQL] = []
        for expression in expressions { parts.append(try translate(expression, near: parts.first?.column)) }
        if case .milliseconds = parts.first?.column?.kind {
            // SQLite's date functions take seconds since 1970 with the 'unixepoch' modifier; a DateTimeOffset is read
            // as the wall-clock time at its own offset, as OData's `hour()` or `date()` do.
            if let offset = parts[0].offset {
                parts[0].sql = "(\(parts[0].sql) / 1000.0 + coalesce(\(offset), 0) * 60), 'unixepoch'"
            } else {
                parts[0].sql = "\(parts[0].sql) / 1000.0, 'unixepoch'"
            }
        }
        /// The template with `{0}`, `{1}`, `{2}` replaced by the arguments' SQL, their bound values in the order
        /// they appear (an argument used twice is bound twice).
        func sql(_ template: String) -> OfflineSQL {
            var text = ""
            var arguments: [DatabaseValue] = []
            var rest = template[...]
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}"),
                let index = Int(rest[rest.index(after: open)..<close]), parts.indices.contains(index)
            {
                text += rest[..<open]
                text += parts[index].sql
                arguments += parts[index].arguments
                rest = rest[rest.index(after: close)...]
            }
            text += rest
            return OfflineSQL(sql: text, arguments: arguments)
        }
        switch name {
        case "contains": return sql("(instr({0}, {1}) > 0)")
        case "startswith": return sql("(substr({0}, 1, length({1})) = {1})")
        case "endswith": return sql("(length({1}) = 0 OR substr({0}, -length({1})) = {1})")
        case "length": return sql("length({0})")
        case "indexof": return sql("(instr({0}, {1}) - 1)")
        case "substring": return sql(parts.count > 2 ? "substr({0}, {1} + 1, {2})" : "substr({0}, {1} + 1)")
        // SQLite's own lower() and upper() change ASCII letters only.
        case "tolower": return sql("satchel_lower({0})")
        case "toupper": return sql("satchel_upper({0})")
        case "trim": return sql("trim({0})")
        case "concat": return sql("({0} || {1})")
        case "round": return sql("round({0})")
        case "floor": return sql("(CAST({0} AS INTEGER) - ({0} < CAST({0} AS INTEGER)))")
        case "ceiling": return sql("(CAST({0} AS INTEGER) + ({0} > CAST({0} AS INTEGER)))")
        case "year", "month", "day", "hour", "minute", "second":
            let format = ["year": "%Y", "month": "%m", "day": "%d", "hour": "%H", "minute": "%M", "second": "%S"][name]!
            return sql("CAST(strftime('\(format)', {0}) AS INTEGER)")
        case "date": return sql("date({0})")
        case "now": return sql("CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)")
        default:
            throw unsupported("the function \(name)")
        }
    }

}
