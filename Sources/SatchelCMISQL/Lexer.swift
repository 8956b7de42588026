/// One token of a statement and the character offset it starts at.
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// An identifier or keyword, as written.
        case word(String)
        /// A `'…'` literal's content, backslash escapes kept (a doubled `''` becomes `\'`).
        case string(String)
        /// A numeric literal, sign included.
        case number(String)
        /// `(` `)` `,` `.` `*` `=` `<>` `<` `>` `<=` `>=`
        case symbol(String)
        case end
    }

    var kind: Kind
    var offset: Int

    /// The keyword this token spells, if any (case-insensitive).
    var keyword: Keyword? {
        guard case .word(let text) = kind else { return nil }
        return Keyword(rawValue: text.uppercased())
    }

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .word(let text): return keyword != nil ? text.uppercased() : "'\(text)'"
        case .string(let text): return "the string '\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
        case .number(let text): return "the number \(text)"
        case .symbol(let text): return "'\(text)'"
        case .end: return "the end of the statement"
        }
    }
}

/// The reserved words of CMIS QL; none of them can be a type, property or alias name.
enum Keyword: String, Sendable, CaseIterable {
    case select = "SELECT", from = "FROM", `where` = "WHERE", and = "AND", or = "OR", not = "NOT", `in` = "IN"
    case like = "LIKE", `is` = "IS", null = "NULL", any = "ANY", join = "JOIN", inner = "INNER", left = "LEFT"
    case outer = "OUTER", on = "ON", `as` = "AS", order = "ORDER", by = "BY", asc = "ASC", desc = "DESC"
    case timestamp = "TIMESTAMP", `true` = "TRUE", `false` = "FALSE", contains = "CONTAINS"
    case inFolder = "IN_FOLDER", inTree = "IN_TREE", score = "SCORE"
}

/// Splits a statement into tokens.
enum Lexer {
    static func tokenize(_ characters: [Character]) throws(CMISQLError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while true {
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            guard index < characters.count else {
                tokens.append(Token(kind: .end, offset: characters.count))
                return tokens
            }
            let start = index
            let character = characters[index]
            if isWordStart(character) {
                while index < characters.count, isWordPart(characters[index]) { index += 1 }
                tokens.append(Token(kind: .word(String(characters[start..<index])), offset: start))
            } else if character == "'" {
                let content = try scanString(characters, index: &index)
                tokens.append(Token(kind: .string(content), offset: start))
            } else if startsNumber(characters, at: index) {
                let text = try scanNumber(characters, index: &index)
                tokens.append(Token(kind: .number(text), offset: start))
            } else {
                let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
                switch character {
                case "(", ")", ",", ".", "*", "=":
                    tokens.append(Token(kind: .symbol(String(character)), offset: start))
                    index += 1
                case "<" where next == ">" || next == "=", ">" where next == "=":
                    tokens.append(Token(kind: .symbol(String(character) + String(next ?? " ")), offset: start))
                    index += 2
                case "<", ">":
                    tokens.append(Token(kind: .symbol(String(character)), offset: start))
                    index += 1
                case "!" where next == "=":
                    throw CMISQLError("unexpected '!=': CMIS QL writes 'not equal' as <>", offset: start)
                case "\"":
                    throw CMISQLError(
                        "unexpected '\"': string literals are written in single quotes, identifiers unquoted",
                        offset: start)
                default:
                    throw CMISQLError("unexpected character \(describe(character))", offset: start)
                }
            }
        }
    }

    static func isWordStart(_ character: Character) -> Bool { character.isLetter || character == "_" }

    static func isWordPart(_ character: Character) -> Bool {
        character.isLetter || character.isASCII && character.isNumber || "_:-".contains(character)
    }

    private static func describe(_ character: Character) -> String {
        if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
            scalar.properties.generalCategory == .control || scalar.value < 0x20
        {
            return "U+" + String(scalar.value, radix: 16, uppercase: true)
        }
        return "'\(character)'"
    }

    /// Reads `'…'` from the opening quote; leaves `index` after the closing one.
    private static func scanString(_ characters: [Character], index: inout Int) throws(CMISQLError) -> String {
        let start = index
        index += 1
        var content = ""
        while index < characters.count {
            let character = characters[index]
            if character == "\\" {
                guard index + 1 < characters.count else { break }
                content.append(character)
                content.append(characters[index + 1])
                index += 2
            } else if character == "'" {
                if index + 1 < characters.count, characters[index + 1] == "'" {
                    content += "\\'"
                    index += 2
                } else {
                    index += 1
                    return content
                }
            } else {
                content.append(character)
                index += 1
            }
        }
        throw CMISQLError("unterminated string literal: expected a closing ' before the end of the statement", offset: start)
    }

    private static func isDigit(_ characters: [Character], _ index: Int) -> Bool {
        index < characters.count && characters[index].isASCII && characters[index].isNumber
    }

    private static func startsNumber(_ characters: [Character], at index: Int) -> Bool {
        var position = index
        if characters[position] == "+" || characters[position] == "-" { position += 1 }
        if isDigit(characters, position) { return true }
        return position < characters.count && characters[position] == "." && isDigit(characters, position + 1)
    }

    /// `[+-]digits[.digits][E[+-]digits]` or `[+-].digits[…]`.
    private static func scanNumber(_ characters: [Character], index: inout Int) throws(CMISQLError) -> String {
        let start = index
        if characters[index] == "+" || characters[index] == "-" { index += 1 }
        while isDigit(characters, index) { index += 1 }
        if index < characters.count, characters[index] == "." {
            index += 1
            while isDigit(characters, index) { index += 1 }
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            var position = index + 1
            if position < characters.count, characters[position] == "+" || characters[position] == "-" {
                position += 1
            }
            guard isDigit(characters, position) else {
                throw CMISQLError("expected the digits of an exponent", offset: position)
            }
            index = position
            while isDigit(characters, index) { index += 1 }
        }
        if index < characters.count, isWordPart(characters[index]) || characters[index] == "." {
            throw CMISQLError("unexpected \(describe(characters[index])) after a number", offset: index)
        }
        return String(characters[start..<index])
    }
}
