public import Foundation
import SatchelText

/// A CMIS QL statement with `?` placeholders, filled with values that are escaped for their kind.
///
/// Values never become query syntax: strings are quoted with `'` and backslash-escaped (CMIS 1.1 §2.1.14.2.4.4),
/// `LIKE` patterns also escape `%` and `_` (a `%` wildcard is added only at either end, on request), dates become
/// `TIMESTAMP '…'` literals and identifiers (type and property query names) are checked against the CMIS QL
/// identifier rules.
///
/// ```swift
/// var statement = QueryStatement("SELECT cmis:name FROM cmis:document WHERE IN_FOLDER(?) AND cmis:name LIKE ?")
/// statement.set(1, id: folderId)
/// statement.set(2, like: "O'Brien_", wildcardSuffix: true)
/// statement.text   // SELECT … WHERE IN_FOLDER('f-1') AND cmis:name LIKE 'O\'Brien\_%'
/// ```
public struct QueryStatement: Sendable, Hashable, CustomStringConvertible {
    /// The statement with its placeholders.
    public let template: String
    private var values: [Int: String] = [:]

    /// A statement with this template and no placeholder values yet.
    public init(_ template: String) { self.template = template }

    /// How many `?` placeholders the template has (outside string literals).
    public var placeholderCount: Int { Self.placeholderOffsets(in: template).count }

    /// Sets placeholder `index` (1-based) to a string literal.
    public mutating func set(_ index: Int, string: String) { values[index] = Self.quote(string) }

    /// Sets placeholder `index` to several string literals, comma-separated (for `IN (?)`).
    public mutating func set(_ index: Int, strings: [String]) {
        values[index] = strings.map(Self.quote).joined(separator: ", ")
    }

    /// Sets placeholder `index` to an object id literal (`IN_FOLDER(?)`, `cmis:objectId = ?`).
    public mutating func set(_ index: Int, id: String) { values[index] = Self.quote(id) }

    /// Sets placeholder `index` to a `LIKE` pattern in which `%` and `_` of `text` match themselves.
    public mutating func set(
        _ index: Int, like text: String, wildcardPrefix: Bool = false, wildcardSuffix: Bool = false
    ) {
        let escaped = Self.escape(text, wildcards: true)
        values[index] = "'" + (wildcardPrefix ? "%" : "") + escaped + (wildcardSuffix ? "%" : "") + "'"
    }

    /// Sets placeholder `index` to an integer literal.
    public mutating func set(_ index: Int, integer: Int64) { values[index] = String(integer) }

    /// Sets placeholder `index` to a decimal literal, written as `Decimal`'s description (`12.5`).
    public mutating func set(_ index: Int, decimal: Decimal) { values[index] = "\(decimal)" }

    /// Sets placeholder `index` to `TRUE` or `FALSE`.
    public mutating func set(_ index: Int, bool: Bool) { values[index] = bool ? "TRUE" : "FALSE" }

    /// Sets placeholder `index` to `TIMESTAMP 'yyyy-MM-ddTHH:mm:ss.SSSZ'` (UTC).
    public mutating func set(_ index: Int, date: Date) {
        values[index] = "TIMESTAMP '\(Self.timestamp(date))'"
    }

    /// Sets placeholder `index` to an identifier (a type or property query name), which is not quoted.
    /// Throws when `name` is not a valid CMIS QL identifier, so nothing else can be smuggled in.
    public mutating func set(_ index: Int, identifier name: String) throws {
        guard Self.isIdentifier(name) else {
            throw CMISQueryError(message: "\"\(name)\" is not a CMIS query identifier")
        }
        values[index] = name
    }

    /// The statement with every placeholder replaced. Throws when one has no value.
    public func resolved() throws -> String {
        let offsets = Self.placeholderOffsets(in: template)
        let scalars = template.unicodeScalars
        var result = ""
        var position = scalars.startIndex
        for (number, offset) in offsets.enumerated() {
            guard let value = values[number + 1] else {
                throw CMISQueryError(message: "placeholder \(number + 1) of \(offsets.count) has no value")
            }
            // Sliced by scalar: a String slice would round the offsets to `Character`s.
            result.unicodeScalars.append(contentsOf: scalars[position..<offset])
            result += value
            position = scalars.index(after: offset)
        }
        result.unicodeScalars.append(contentsOf: scalars[position...])
        return result
    }

    /// The resolved statement, or the template when a placeholder has no value yet.
    public var text: String { (try? resolved()) ?? template }

    /// The same as `text`.
    public var description: String { text }

    // MARK: Escaping

    /// Quotes a string literal: `'` and `\` are escaped with a backslash.
    static func quote(_ value: String) -> String { value.singleQuoted(.backslash) }

    /// Backslash-escapes `'` and `\`, and with `wildcards` also the `LIKE` wildcards `%` and `_`.
    package static func escape(_ value: String, wildcards: Bool) -> String {
        value.escapingScalars { scalar in
            switch scalar {
            case "'", "\\": "\\\(scalar)"
            case "%" where wildcards, "_" where wildcards: "\\\(scalar)"
            default: nil
            }
        }
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601Timestamp.string(from: date)
    }

    /// CMIS QL identifiers: a letter first, then letters, digits, `_`, `:`, `.` or `-`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first) else { return false }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_:.-"))
        return name.unicodeScalars.allSatisfy { allowed.contains($0) }
    }

    /// Where the `?` placeholders are: outside `'…'` literals (which may contain `\'`), read by Unicode scalars as
    /// the statement's reader reads it (`'` followed by a combining mark still opens a literal).
    static func placeholderOffsets(in template: String) -> [String.Index] {
        var offsets: [String.Index] = []
        var inLiteral = false
        let scalars = template.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if inLiteral {
                if scalar == "\\" {
                    index = scalars.index(after: index)
                    if index == scalars.endIndex { break }
                } else if scalar == "'" {
                    inLiteral = false
                }
            } else if scalar == "'" {
                inLiteral = true
            } else if scalar == "?" {
                offsets.append(index)
            }
            index = scalars.index(after: index)
        }
        return offsets
    }
}

/// A query statement that could not be built.
public struct CMISQueryError: Error, Sendable, CustomStringConvertible {
    /// What is wrong: a placeholder without a value, or a value that is not a valid identifier.
    public let message: String
    /// `CMIS query: ` followed by `message`.
    public var description: String { "CMIS query: \(message)" }
}
