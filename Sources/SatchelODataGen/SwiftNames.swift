import Foundation
/// Turns OData names into Swift names: `UpperCamel` types, `lowerCamel` members, keywords escaped, and
/// collisions resolved by a suffix. The wire names stay in `CodingKeys`, so nothing is lost.
///
/// ```swift
/// SwiftNames.upperCamel("CT_Address")        // "CTAddress"
/// SwiftNames.memberName("BusinessPartnerID") // "businessPartnerID"
/// SwiftNames.memberName("SO_ID")             // "soID"
/// SwiftNames.memberName("default")           // "`default`"
/// ```
public enum SwiftNames {
    /// Words of a name: split at `_`, `-`, `.`, spaces and anything else that is not a letter or digit.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isLetter || character.isNumber, character.isASCII {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `UpperCamel`: each word's first letter capitalised, the rest kept (`CT_Address` → `CTAddress`).
    public static func upperCamel(_ name: String) -> String {
        let joined = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if joined.isEmpty { return "Unnamed" }
        return joined.first?.isNumber == true ? "_" + joined : joined
    }

    /// `lowerCamel`: the first word's leading capitals lowered (`URLPath` → `urlPath`, `ID` → `id`), the other
    /// words capitalised (`SO_ID` → `soID`).
    public static func lowerCamel(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "unnamed" }
        let rest = parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let joined = lowerLeadingCapitals(first) + rest
        return joined.first?.isNumber == true ? "_" + joined : joined
    }

    private static func lowerLeadingCapitals(_ word: String) -> String {
        let characters = Array(word)
        let run = characters.prefix { $0.isUppercase }.count
        if run == 0 { return word }
        // In `URLPath` the last capital of the run starts the next word; in `ID2` or `ID` it does not.
        let lowered = run < characters.count && characters[run].isLowercase && run > 1 ? run - 1 : run
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// Swift keywords that need backticks as member names.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "as", "false", "is", "nil", "super", "throws", "true", "try", "await", "async", "any", "some",
        "consume", "borrowing", "consuming", "package", "_",
    ]

    /// Names that cannot be used even with backticks, or that read badly; they get a trailing underscore.
    static let unescapable: Set<String> = ["self", "Self", "init", "deinit", "subscript", "super", "Type", "Protocol"]

    /// A member name ready to write: lowerCamel, and a keyword escaped with backticks.
    public static func memberName(_ name: String) -> String { escaped(lowerCamel(name)) }

    /// Escapes a bare identifier: backticks for keywords, an underscore for the few that cannot be escaped.
    public static func escaped(_ identifier: String) -> String {
        if unescapable.contains(identifier) { return identifier + "_" }
        return keywords.contains(identifier) ? "`" + identifier + "`" : identifier
    }

    /// The identifier without backticks, for building other names from it.
    static func bare(_ identifier: String) -> String { identifier.replacingOccurrences(of: "`", with: "") }

    /// Type names generated code uses unqualified, which generated types must not shadow.
    public static let reservedTypeNames: Set<String> = [
        "Any", "AnyObject", "Array", "Bool", "Character", "Codable", "CodingKey", "CodingKeys", "Data", "Date",
        "Decimal", "Decoder", "Dictionary", "Double", "Encoder", "Equatable", "Error", "Fields", "Float", "Hashable",
        "Int", "Int16", "Int32", "Int64", "Int8", "JSONDecodable", "JSONError", "JSONReader", "JSONValue", "Key",
        "Never", "ODataEntityProxy", "ODataExpression", "ODataField", "ODataKey", "ODataKeyProxy", "ODataLiteral",
        "ODataPath", "ODataProperties", "ODataQuery", "ODataService", "ODataStructuredProxy", "ODataTypedCollection",
        "ODataTypedEntity", "ODataValue", "OptionSet", "Optional", "Protocol", "Result", "Self", "Sendable", "Set",
        "String", "Type", "UInt8", "UUID",
    ]

    /// A unique name: `base`, else `base2`, `base3`, … (backticks dropped before numbering).
    static func unique(_ base: String, in taken: inout Set<String>) -> String {
        let bareBase = bare(base)
        var candidate = base
        var number = 2
        while taken.contains(bare(candidate)) {
            candidate = escaped(bareBase + String(number))
            number += 1
        }
        taken.insert(bare(candidate))
        return candidate
    }
}
