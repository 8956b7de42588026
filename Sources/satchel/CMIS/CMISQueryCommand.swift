import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore

/// `satchel cmis query "STATEMENT"`: every page of a CMIS QL query's results.
struct CMISQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a CMIS QL query; prints objectId and name per row, or the selected properties.",
        discussion: """
            With SELECT * each row is the object id and cmis:name, separated by a tab. With a select list the \
            first line names the columns and each row has their values (multi-valued properties joined with \
            commas, - for none).
            """
    )

    @Argument(help: ArgumentHelp("The CMIS QL statement.", valueName: "statement"))
    var statement: String

    @Option(help: ArgumentHelp("Stop after this many rows.", valueName: "n"))
    var maxItems: Int?

    @Flag(help: "Search all versions, not only the latest.")
    var allVersions = false

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let maxItems, maxItems < 1 { throw ValidationError("--max-items must be 1 or more") }
    }

    func run() async throws {
        let (statement, maxItems, allVersions) = (statement, maxItems, allVersions)
        let columns = Self.selectList(statement)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            var skipCount = 0
            while true {
                let page = try await session.query(
                    statement, searchAllVersions: allVersions, maxItems: maxItems.map { min($0 - skipCount, 100) },
                    skipCount: skipCount)
                // The header only once the server has accepted the statement.
                if skipCount == 0, let columns { try CMISOutput.line(columns.joined(separator: "\t")) }
                for object in page.objects {
                    try CMISOutput.line(Self.row(object, columns: columns))
                }
                skipCount += page.objects.count
                if !page.hasMoreItems || page.objects.isEmpty { break }
                if let maxItems, skipCount >= maxItems { break }
            }
        }
    }

    /// The selected columns, or nil for `SELECT *`.
    static func selectList(_ statement: String) -> [String]? {
        let trimmed = statement.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let select = trimmed.range(of: "select", options: [.caseInsensitive, .anchored]),
            let from = trimmed.range(
                of: " from ", options: .caseInsensitive, range: select.upperBound..<trimmed.endIndex)
        else { return nil }
        let list = trimmed[select.upperBound..<from.lowerBound].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        if list.isEmpty || list.contains(where: { $0 == "*" || $0.hasSuffix(".*") }) { return nil }
        return list
    }

    static func row(_ object: CMISObject, columns: [String]?) -> String {
        guard let columns else { return (object.id ?? "-") + "\t" + (object.name ?? "-") }
        return columns.map { column in
            // `d.cmis:name AS title`: results are keyed by the alias (query name) or the property id.
            let parts = column.components(separatedBy: " ").filter { !$0.isEmpty }
            let alias = parts.count >= 3 && parts[parts.count - 2].lowercased() == "as" ? parts.last! : nil
            let name = parts.first ?? column
            let unqualified = name.split(separator: ".").last.map(String.init) ?? name
            let property =
                alias.flatMap { object.properties.property(queryName: $0) }
                ?? object.properties.property(queryName: name) ?? object.properties[unqualified]
            guard let property, !property.values.isEmpty else { return "-" }
            return property.values.map { value in
                if let date = value.dateValue { return CMISOutput.date(date) }
                if let number = value.int64Value { return String(number) }
                if let flag = value.boolValue { return String(flag) }
                if let decimal = value.decimalValue { return "\(decimal)" }
                return value.stringValue ?? "\(value)"
            }.joined(separator: ",")
        }.joined(separator: "\t")
    }
}
