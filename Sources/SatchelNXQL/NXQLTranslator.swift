import Foundation
package import SatchelCMISCore
import SatchelText

/// NXQL as CMIS QL for the repository's query engine (docs/nuxeo.md; `satchel serve`'s Nuxeo routes use it): `SELECT * FROM Document|File|Folder`, a
/// `WHERE` of conditions joined by `AND`, `ORDER BY`. Nuxeo's properties map onto CMIS's (`dc:title` → `cmis:name`,
/// `dc:modified` → `cmis:lastModificationDate`…); `ecm:parentId = '…'` is `IN_FOLDER`, `ecm:path STARTSWITH '…'` is
/// `IN_TREE` (the path resolved to its folder by the caller); conditions on what the repository has no notion of
/// (`ecm:isVersion = 0`, `ecm:isProxy = 0`, `ecm:mixinType != 'HiddenInNavigation'`) hold for every object and are
/// dropped; `ecm:isTrashed = 0` or `1` is left to the caller, who knows the trash (``Translation/trashed``).
/// Anything else is refused with the clause named.
package struct NXQLTranslator {
    /// A translated query; `pathsToResolve` are `STARTSWITH` paths whose folder ids go where `marker` followed by
    /// their index stands (a marker no literal of this query contains).
    /// Trashed documents a search leaves out (or keeps to, `only`), by their trash keys: a folder's id, a
    /// document's version series.
    package struct TrashFilter {
        package var keys: [String]
        package var only: Bool

        package init(keys: [String], only: Bool) {
            self.keys = keys
            self.only = only
        }

        /// The condition for a statement over `table`.
        package func condition(for table: String) -> String {
            let property = table == "cmis:folder" ? "cmis:objectId" : "cmis:versionSeriesId"
            return "\(property) \(only ? "IN" : "NOT IN") (\(keys.map(NXQLTranslator.literal).joined(separator: ", ")))"
        }
    }

    package struct Translation {
        /// `cmis:document` or `cmis:folder`.
        package var table: String
        /// CMIS QL conditions, joined by `AND`.
        package var conditions: [String]
        /// ` ORDER BY …`, or empty.
        package var order: String
        package var pathsToResolve: [String]
        package var marker: String
        /// `FROM Document` in Nuxeo is every document, folders included: the statement is then run over
        /// `cmis:folder` first, then over `cmis:document` (unless a condition is on content, which folders lack).
        package var includesFolders = false
        /// `ecm:isTrashed = 0` (false) or `= 1` (true); nil when the query does not say.
        package var trashed: Bool?
        /// What the trash adds, once the caller knows it.
        package var trash: TrashFilter?

        /// The CMIS QL statement over `table`.
        package func statement(over table: String) -> String {
            let all = conditions + (trash.map { [$0.condition(for: table)] } ?? [])
            let whereClause = all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")
            return "SELECT * FROM \(table)\(whereClause)\(order)"
        }

        /// The tables to search, in order: folders first for `FROM Document`.
        package var tables: [String] {
            includesFolders ? ["cmis:folder", table] : [table]
        }

        /// The statements to run, in order.
        package var statements: [String] { tables.map(statement(over:)) }

        /// Puts the folder id of `pathsToResolve[index]` where its marker stands.
        package mutating func resolve(path index: Int, to id: String) {
            let placeholder = "\(marker)\(index)}"
            conditions = conditions.map { $0.replacingOccurrences(of: placeholder, with: NXQLTranslator.literal(id)) }
        }
    }

    /// The Nuxeo document types that are CMIS subtypes of `cmis:document` and of `cmis:folder` in `satchel serve`'s
    /// repositories (each with its own `dc:title`); `File` and `Folder` are subtypes too, but also stand for the
    /// base types' objects.
    package static let documentSubtypes: Set<String> = ["Note", "Picture"]
    package static let folderSubtypes: Set<String> = ["Workspace", "OrderedFolder", "WorkspaceRoot", "Domain"]

    /// At most this many conditions, and `STARTSWITH` paths among them.
    package static let maximumConditions = 32
    package static let maximumPaths = 8

    /// A CMIS QL string literal: backslashes and quotes escaped.
    package static func literal(_ text: String) -> String {
        text.singleQuoted(.backslash)
    }

    private enum Token: Equatable {
        case word(String)
        case string(String)
        case number(String)
        case symbol(String)
    }

    package static let properties: [String: String] = [
        "dc:title": "cmis:name", "dc:description": "cmis:description", "dc:creator": "cmis:createdBy",
        "dc:created": "cmis:creationDate", "dc:modified": "cmis:lastModificationDate",
        "dc:lastContributor": "cmis:lastModifiedBy", "ecm:uuid": "cmis:objectId", "ecm:name": "cmis:name",
        "ecm:primaryType": "cmis:objectTypeId", "file:content/length": "cmis:contentStreamLength",
        "file:content/name": "cmis:contentStreamFileName", "file:content/mime-type": "cmis:contentStreamMimeType",
    ]

    /// Conditions that hold for every object of this repository.
    static let alwaysTrue: Set<String> = [
        "ecm:isVersion=0", "ecm:isProxy=0", "ecm:isCheckedInVersion=0",
        "ecm:mixinType!=HiddenInNavigation", "ecm:mixinType<>HiddenInNavigation", "ecm:currentLifeCycleState!=deleted",
        "ecm:currentLifeCycleState<>deleted",
    ]

    package static func translate(_ nxql: String) throws(CMISError) -> Translation {
        var tokens = try tokenize(nxql)[...]
        func next() -> Token? { tokens.popFirst() }
        func keyword(_ word: String) -> Bool {
            if case .word(let value)? = tokens.first, value.uppercased() == word {
                tokens.removeFirst()
                return true
            }
            return false
        }
        guard keyword("SELECT"), next() == .symbol("*"), keyword("FROM"), case .word(let type)? = next() else {
            throw CMISError(.invalidArgument, "NXQL here is SELECT * FROM <type> [WHERE …] [ORDER BY …]: \(nxql)")
        }
        var table: String
        var conditions: [String] = []
        switch type {
        case "Document": table = "cmis:document"
        case "Folderish": table = "cmis:folder"
        // A document or folder created through CMIS shows as a File or a Folder in the Nuxeo API.
        case "File":
            table = "cmis:document"
            conditions.append("cmis:objectTypeId IN ('cmis:document', 'File')")
        case "Folder":
            table = "cmis:folder"
            conditions.append("cmis:objectTypeId IN ('cmis:folder', 'Folder')")
        case _ where Self.documentSubtypes.contains(type) || Self.folderSubtypes.contains(type): table = type
        default: throw CMISError(.invalidArgument, "NXQL type \(type) has no CMIS counterpart here")
        }
        /// The CMIS property an NXQL one reads: `dc:title` is the subtypes' own title, and the name elsewhere.
        func mapped(_ property: String) -> String? {
            if property == "dc:title", table != "cmis:document", table != "cmis:folder" { return "dc:title" }
            return properties[property]
        }
        var paths: [String] = []
        var documentsOnly = false
        var trashed: Bool?
        let marker = "{path-" + UUID().uuidString + ":"
        // Parentheses group AND-joined conditions only (there is no OR here): balanced, they change nothing.
        var depth = 0
        if keyword("WHERE") {
            repeat {
                while tokens.first == .symbol("(") {
                    tokens.removeFirst()
                    depth += 1
                }
                guard depth <= Self.maximumConditions else {
                    throw CMISError(.invalidArgument, "NXQL nests parentheses too deep")
                }
                guard case .word(let property)? = next() else {
                    throw CMISError(.invalidArgument, "NXQL condition expected in \(nxql)")
                }
                guard let op = next() else {
                    throw CMISError(.invalidArgument, "NXQL operator expected after \(property)")
                }
                var operatorText: String
                switch op {
                case .symbol(let symbol): operatorText = symbol
                case .word(let word): operatorText = word.uppercased()
                default: throw CMISError(.invalidArgument, "NXQL operator expected after \(property)")
                }
                if operatorText == "NOT", keyword("LIKE") { operatorText = "NOT LIKE" }
                guard let value = next() else {
                    throw CMISError(.invalidArgument, "NXQL value expected after \(property)")
                }
                let literal: String
                let bare: String
                switch value {
                case .string(let text):
                    literal = Self.literal(text)
                    bare = text
                case .number(let text):
                    guard text.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?/) != nil else {
                        throw CMISError(.invalidArgument, "NXQL number \(text) is not one")
                    }
                    // What CMIS QL holds: an Int64, or a Decimal (38 digits, exponent up to 127).
                    guard Int64(text) != nil || Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) != nil
                    else { throw CMISError(.invalidArgument, "NXQL number \(text) is out of range") }
                    literal = text
                    bare = text
                default: throw CMISError(.invalidArgument, "NXQL value expected after \(property) \(operatorText)")
                }
                defer {
                    while depth > 0, tokens.first == .symbol(")") {
                        tokens.removeFirst()
                        depth -= 1
                    }
                }
                if alwaysTrue.contains(property + operatorText + bare) { continue }
                switch (property, operatorText) {
                case ("ecm:isTrashed", "=") where bare == "0" || bare == "1":
                    let wanted = bare == "1"
                    guard trashed == nil || trashed == wanted else {
                        throw CMISError(.invalidArgument, "NXQL asks for ecm:isTrashed = 0 and = 1 at once")
                    }
                    trashed = wanted
                case ("ecm:mixinType", "!=") where bare == "Folderish",
                    ("ecm:mixinType", "<>") where bare == "Folderish":
                    // Documents that are not folders.
                    guard table == "cmis:document" || Self.documentSubtypes.contains(table) else {
                        throw CMISError(.invalidArgument, "NXQL: \(type) WHERE ecm:mixinType != 'Folderish' is empty")
                    }
                    documentsOnly = true
                case ("ecm:mixinType", "=") where bare == "Folderish":
                    guard !Self.documentSubtypes.contains(table) else {
                        throw CMISError(.invalidArgument, "NXQL: \(type) WHERE ecm:mixinType = 'Folderish' is empty")
                    }
                    if !Self.folderSubtypes.contains(table) { table = "cmis:folder" }
                case ("ecm:parentId", "="), ("ecm:ancestorId", "="):
                    guard case .string = value else {
                        throw CMISError(.invalidArgument, "NXQL \(property) takes a document id in quotes, not \(bare)")
                    }
                    conditions.append(property == "ecm:parentId" ? "IN_FOLDER(\(literal))" : "IN_TREE(\(literal))")
                case ("ecm:path", "STARTSWITH"):
                    guard paths.count < Self.maximumPaths else {
                        throw CMISError(
                            .invalidArgument, "NXQL here takes at most \(Self.maximumPaths) STARTSWITH paths")
                    }
                    paths.append(bare)
                    conditions.append("IN_TREE(\(marker)\(paths.count - 1)})")
                case (_, "="), (_, "!="), (_, "<>"), (_, "<"), (_, ">"), (_, "<="), (_, ">="), (_, "LIKE"),
                    (_, "NOT LIKE"), (_, "ILIKE"):
                    guard let mapped = mapped(property) else {
                        throw CMISError(.invalidArgument, "NXQL property \(property) has no CMIS counterpart here")
                    }
                    var value = literal
                    if mapped.hasSuffix("Date"), literal.hasPrefix("'") {
                        guard ISO8601Timestamp.date(from: bare, .partial) != nil else {
                            throw CMISError(.invalidArgument, "NXQL \(property) compared with \(literal), not a date")
                        }
                        value = "TIMESTAMP " + literal
                    }
                    let cmisOperator = operatorText == "!=" ? "<>" : operatorText == "ILIKE" ? "LIKE" : operatorText
                    conditions.append("\(mapped) \(cmisOperator) \(value)")
                default:
                    throw CMISError(
                        .invalidArgument, "NXQL condition \(property) \(operatorText) is not supported here")
                }
                guard conditions.count <= Self.maximumConditions else {
                    throw CMISError(.invalidArgument, "NXQL here takes at most \(Self.maximumConditions) conditions")
                }
            } while keyword("AND")
        }
        guard depth == 0 else { throw CMISError(.invalidArgument, "NXQL parentheses not closed: \(nxql)") }
        var order = ""
        if keyword("ORDER") {
            guard keyword("BY") else { throw CMISError(.invalidArgument, "ORDER BY expected in \(nxql)") }
            var terms: [String] = []
            repeat {
                guard case .word(let property)? = next(), let mapped = mapped(property) else {
                    throw CMISError(.invalidArgument, "NXQL ORDER BY needs a property with a CMIS counterpart")
                }
                let direction = keyword("DESC") ? " DESC" : (keyword("ASC") ? " ASC" : "")
                terms.append(mapped + direction)
            } while tokens.first == .symbol(",") && next() != nil
            order = " ORDER BY " + terms.joined(separator: ", ")
        }
        guard tokens.isEmpty else {
            throw CMISError(.invalidArgument, "NXQL not translated here near \(String(describing: tokens.first!))")
        }
        let onContent = (conditions + [order]).contains { $0.contains("cmis:contentStream") }
        return Translation(
            table: table, conditions: conditions, order: order, pathsToResolve: paths, marker: marker,
            includesFolders: type == "Document" && table == "cmis:document" && !documentsOnly && !onContent,
            trashed: trashed)
    }

    /// Splits NXQL into tokens by Unicode scalars (a quote followed by a combining mark still opens or closes a
    /// string, as the escaper that wrote it meant).
    private static func tokenize(_ text: String) throws(CMISError) -> [Token] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        func isSymbol(_ scalar: Unicode.Scalar) -> Bool { "=<>!*,()'\"".unicodeScalars.contains(scalar) }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "'" || scalar == "\"" {
                var value = String.UnicodeScalarView()
                var cursor = index + 1
                var closed = false
                while cursor < scalars.count {
                    if scalars[cursor] == "\\", cursor + 1 < scalars.count {
                        value.append(scalars[cursor + 1])
                        cursor += 2
                        continue
                    }
                    if scalars[cursor] == scalar {
                        closed = true
                        cursor += 1
                        break
                    }
                    value.append(scalars[cursor])
                    cursor += 1
                }
                guard closed else { throw CMISError(.invalidArgument, "NXQL string not closed: \(text)") }
                tokens.append(.string(String(value)))
                index = cursor
            } else if "=<>!".unicodeScalars.contains(scalar) {
                var symbol = String(scalar)
                if index + 1 < scalars.count, "=>".unicodeScalars.contains(scalars[index + 1]) {
                    symbol.unicodeScalars.append(scalars[index + 1])
                    index += 2
                } else {
                    index += 1
                }
                tokens.append(.symbol(symbol))
            } else if "*,()".unicodeScalars.contains(scalar) {
                tokens.append(.symbol(String(scalar)))
                index += 1
            } else {
                var word = String.UnicodeScalarView()
                while index < scalars.count, !scalars[index].properties.isWhitespace, !isSymbol(scalars[index]) {
                    word.append(scalars[index])
                    index += 1
                }
                let isNumber = scalar.properties.numericType != nil || scalar == "-"
                tokens.append(isNumber ? .number(String(word)) : .word(String(word)))
            }
        }
        return tokens
    }
}
