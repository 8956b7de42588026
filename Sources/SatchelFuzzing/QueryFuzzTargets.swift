import SatchelCMISCore
import SatchelCMISQL
import SatchelNXQL
import SatchelOData

/// CMIS QL statements (`CMISQL.parse`), as `satchel serve` reads them from any client.
///
/// - A statement that does not parse throws a ``CMISQLError`` at an offset within the statement.
/// - Every `LIKE` pattern of what parses, written again, reads as the same pattern.
enum CMISQLFuzzTarget {
    static let target = FuzzTarget(
        name: "cmisql", summary: "CMIS QL: CMISQL.parse", maximumLength: 4096, check: check)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("cmisql", "\(message): \(bytes.excerpt())") }
        let statement = String(decoding: bytes, as: UTF8.self)
        let query: CMISQuery
        do {
            query = try CMISQL.parse(statement)
        } catch {
            guard error.offset >= 0, error.offset <= statement.unicodeScalars.count else {
                throw violation(
                    "an error at offset \(error.offset), outside the statement of \(statement.unicodeScalars.count) scalars"
                )
            }
            return
        }
        guard let condition = query.whereClause else { return }
        for pattern in likePatterns(condition) where LikePattern(escaped: pattern.description) != pattern {
            throw violation("the LIKE pattern \(pattern.description.debugDescription) reads back as another")
        }
    }

    static func likePatterns(_ expression: QueryExpression) -> [LikePattern] {
        switch expression {
        case .and(let terms), .or(let terms): terms.flatMap(likePatterns)
        case .not(let inner): likePatterns(inner)
        case .like(_, let pattern, _): [pattern]
        default: []
        }
    }
}

/// NXQL searches as `satchel serve`'s Nuxeo routes take them from any client (`NXQLTranslator`, into CMIS QL).
///
/// - A search that cannot be translated throws a ``CMISError`` `.invalidArgument`.
/// - Every statement a translation gives parses as CMIS QL, over the table it names, with exactly the conditions
///   the translation made and no `OR`: nothing the client wrote (a literal, a path's folder id, a trash key, each
///   given quotes and backslashes here) leaves its quotes.
enum NXQLFuzzTarget {
    static let target = FuzzTarget(
        name: "nxql", summary: "NXQL: NXQLTranslator into CMIS QL, then CMISQL.parse", maximumLength: 4096,
        check: check)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("nxql", "\(message): \(bytes.excerpt())") }
        let nxql = String(decoding: bytes, as: UTF8.self)
        var translation: NXQLTranslator.Translation
        do {
            translation = try NXQLTranslator.translate(nxql)
        } catch {
            guard error.code == .invalidArgument else {
                throw violation("a CMISError of code \(error.code), not .invalidArgument: \(error)")
            }
            return
        }
        // What the caller fills in comes from elsewhere (a folder's id, the trash's keys): hostile too.
        for index in translation.pathsToResolve.indices { translation.resolve(path: index, to: "f\\' OR '\(index)") }
        translation.trash = NXQLTranslator.TrashFilter(keys: ["k') OR ('1", "\\"], only: bytes.count % 2 == 0)
        for statement in translation.statements {
            let query: CMISQuery
            do {
                query = try CMISQL.parse(statement)
            } catch {
                throw violation("translated to \(statement.debugDescription), which CMIS QL refuses: \(error)")
            }
            // A base type, or one of the Nuxeo document types the repositories define below them.
            let tables = Set(["cmis:document", "cmis:folder"]).union(NXQLTranslator.documentSubtypes)
                .union(NXQLTranslator.folderSubtypes)
            guard query.from.joins.isEmpty, tables.contains(query.from.primary.queryName)
            else { throw violation("translated to \(statement.debugDescription): another table") }
            let terms: [QueryExpression]
            switch query.whereClause {
            case .and(let all)?: terms = all
            case let single?: terms = [single]
            case nil: terms = []
            }
            guard terms.count == translation.conditions.count + 1, !terms.contains(where: containsOr) else {
                throw violation(
                    "translated to \(statement.debugDescription): \(terms.count) conditions, not "
                        + "\(translation.conditions.count + 1) without OR")
            }
        }
    }

    static func containsOr(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .or: true
        case .and(let terms): terms.contains(where: containsOr)
        case .not(let inner): containsOr(inner)
        default: false
        }
    }
}

/// OData `$filter` expressions (`ODataExpression.parse`), in V2 and V4 syntax.
///
/// - An expression that does not parse throws an ``ODataError`` with its location.
/// - What parses is written again (`text(for:)`) in the same version; that text parses, and writes the same text.
enum FilterFuzzTarget {
    static let target = FuzzTarget(
        name: "filter", summary: "OData $filter: ODataExpression.parse and text(for:), V2 and V4",
        maximumLength: 4096, check: check)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("filter", "\(message): \(bytes.excerpt())") }
        // The first byte picks the version, so that one corpus serves both.
        guard let first = bytes.first else { return }
        let version: ODataVersion = first & 1 == 0 ? .v4 : .v2
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let expression: ODataExpression
        do {
            expression = try ODataExpression.parse(text, version: version)
        } catch {
            if text.utf8.count <= 65_536, error.location == nil {
                throw violation("a \(version) parse error without a location: \(error)")
            }
            return
        }
        let written: String
        do {
            written = try expression.text(for: version)
        } catch {
            throw violation("parsed as \(version), it cannot be written in \(version): \(error)")
        }
        do {
            let again = try ODataExpression.parse(written, version: version).text(for: version)
            guard again == written else {
                throw violation("written as \(written.debugDescription), it reads back as \(again.debugDescription)")
            }
        } catch let error as FuzzViolation {
            throw error
        } catch {
            throw violation("written as \(written.debugDescription) (\(version)), it no longer parses: \(error)")
        }
    }
}
