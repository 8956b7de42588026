import Foundation
import SatchelOData
import SatchelText

/// What a defining query brings of each entity: the columns its `$select` names (every column without one), and
/// the related entities its `$expand` brings, each stored in its own set's table with the same shape rules.
struct OfflineShape: Sendable {
    let table: OfflineTable
    /// The columns a download writes: a row keeps the others as they were (another defining query may select them).
    let columns: [OfflineColumn]
    let expansions: [Expansion]

    struct Expansion: Sendable {
        let relationship: OfflineRelationship
        let shape: OfflineShape
    }

    /// The shape of `set` read with `select` (top-level property names; `*` or none: all) and `expand` (the
    /// `$expand` text: `Items`, `Items/Product`, `Items($select=Quantity;$expand=Product)`).
    init(table: OfflineTable, select: [String], expand: String?, schema: OfflineSchema) throws(OfflineStoreError) {
        self.table = table
        let names = Set(select.map { String($0.split(separator: "/").first ?? "") })
        if names.isEmpty || names.contains("*") {
            columns = table.columns
        } else {
            for name in names where !table.columns.contains(where: { $0.path.split(separator: "/").first == name[...] })
            {
                throw OfflineStoreError(.unknownProperty, "\(table.entitySet) has no property \(name) to select")
            }
            columns = table.columns.filter {
                names.contains(String($0.propertyPath.split(separator: "/").first ?? ""))
                    || table.keyPaths.contains($0.path)
            }
        }
        var expansions: [Expansion] = []
        for item in Self.items(expand ?? "") {
            var path = item.name.split(separator: "/").map(String.init)
            guard !path.isEmpty else { continue }
            let navigation = path.removeFirst()
            let relationship = try schema.relationship(from: table, navigation: navigation)
            // `A/B` is `A($expand=B)`.
            let nested = path.isEmpty ? item.expand : path.joined(separator: "/")
            let shape = try OfflineShape(
                table: relationship.target, select: path.isEmpty ? item.select : [], expand: nested, schema: schema)
            expansions.append(Expansion(relationship: relationship, shape: shape))
        }
        self.expansions = expansions
    }

    /// Every table the shape writes to.
    var tables: [OfflineTable] {
        var seen: Set<String> = []
        var result: [OfflineTable] = []
        func visit(_ shape: OfflineShape) {
            if seen.insert(shape.table.entitySet).inserted { result.append(shape.table) }
            for expansion in shape.expansions { visit(expansion.shape) }
        }
        visit(self)
        return result
    }

    /// The items of an `$expand` text, split at top-level commas, with their own `$select` and `$expand`.
    static func items(_ text: String) -> [(name: String, select: [String], expand: String?)] {
        split(text, at: ",").compactMap { item in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")") else { return (trimmed, [], nil) }
            let name = String(trimmed[..<open])
            let options = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var select: [String] = []
            var expand: String?
            for option in split(options, at: ";") {
                let pair = option.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                switch pair[0].trimmingCharacters(in: .whitespaces) {
                case "$select": select = pair[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                case "$expand": expand = pair[1]
                default: break
                }
            }
            return (name, select, expand)
        }
    }

    /// `text` split at `separator` outside parentheses and quotes (by Unicode scalars).
    static func split(_ text: String, at separator: Unicode.Scalar) -> [String] {
        text.splittingByScalars(at: separator, outside: "'", nesting: true)
    }
}
