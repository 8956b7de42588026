/// One token of a statement and the offset it starts at, in Unicode scalars.
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
    let keyword: Keyword?

    init(kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
        if case .word(let text) = kind, text.utf8.count <= 9 {
            keyword = Keyword(rawValue: text.uppercased())
        } else {
            keyword = nil
        }
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
///
/// The statement is read by Unicode scalars, as the escapers that write it work (`'` followed by a combining mark is
/// a quote and then a mark, not one `Character` that is no quote), and offsets count scalars.
enum Lexer {
    static func tokenize(_ scalars: [Unicode.Scalar]) throws(CMISQLError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while true {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            guard index < scalars.count else {
                tokens.append(Token(kind: .end, offset: scalars.count))
                return tokens
            }
            let start = index
            let scalar = scalars[index]
            if isWordStart(scalar) {
                while index < scalars.count, isWordPart(scalars[index]) { index += 1 }
                tokens.append(Token(kind: .word(string(scalars[start..<index])), offset: start))
            } else if scalar == "'" {
                let content = try scanString(scalars, index: &index)
                tokens.append(Token(kind: .string(content), offset: start))
            } else if startsNumber(scalars, at: index) {
                let text = try scanNumber(scalars, index: &index)
                tokens.append(Token(kind: .number(text), offset: start))
            } else {
                let next: Unicode.Scalar? = index + 1 < scalars.count ? scalars[index + 1] : nil
                switch scalar {
                case "(", ")", ",", ".", "*", "=":
                    tokens.append(Token(kind: .symbol(String(scalar)), offset: start))
                    index += 1
                case "<" where next == ">" || next == "=", ">" where next == "=":
                    tokens.append(Token(kind: .symbol(String(scalar) + String(next ?? " ")), offset: start))
                    index += 2
                case "<", ">":
                    tokens.append(Token(kind: .symbol(String(scalar)), offset: start))
                    index += 1
                case "!" where next == "=":
                    throw CMISQLError("unexpected '!=': CMIS QL writes 'not equal' as <>", offset: start)
                case "\"":
                    throw CMISQLError(
                        "unexpected '\"': string literals are written in single quotes, identifiers unquoted",
                        offset: start)
                default:
                    throw CMISQLError("unexpected character \(describe(scalar))", offset: start)
                }
            }
        }
    }

    static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// An alphabetic scalar (letters of any script, letter numbers such as `Ⅻ`) or `_`: what starts a word.
    static func isWordStart(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isAlphabetic || scalar == "_" }

    /// What continues a word: what starts one, what extends a character (combining marks, ZWNJ, and ZWJ, which
    /// Persian and Indic names use), an ASCII digit, `:` or `-`.
    static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        isWordStart(scalar) || isMark(scalar) || scalar.properties.isGraphemeExtend || scalar == "\u{200D}"
            || (0x30...0x39).contains(scalar.value) || scalar == ":" || scalar == "-"
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Whether a message can show `scalar` as it is: not a control, format character or combining mark.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return !(category == .control || category == .format || isMark(scalar) || scalar.properties.isWhitespace)
    }

    /// `'x'`, or `U+301` for what does not show.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        isPrintable(scalar) ? "'\(scalar)'" : "U+" + String(scalar.value, radix: 16, uppercase: true)
    }

    /// Reads `'…'` from the opening quote; leaves `index` after the closing one.
    private static func scanString(_ scalars: [Unicode.Scalar], index: inout Int) throws(CMISQLError) -> String {
        let start = index
        index += 1
        var content = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                guard index + 1 < scalars.count else { break }
                content.append(scalar)
                content.append(scalars[index + 1])
                index += 2
            } else if scalar == "'" {
                if index + 1 < scalars.count, scalars[index + 1] == "'" {
                    content.append(contentsOf: "\\'".unicodeScalars)
                    index += 2
                } else {
                    index += 1
                    return String(content)
                }
            } else {
                content.append(scalar)
                index += 1
            }
        }
        throw CMISQLError(
            "unterminated string literal: expected a closing ' before the end of the statement", offset: start)
    }

    private static func isDigit(_ scalars: [Unicode.Scalar], _ index: Int) -> Bool {
        index < scalars.count && (0x30...0x39).contains(scalars[index].value)
    }

    private static func startsNumber(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var position = index
        if scalars[position] == "+" || scalars[position] == "-" { position += 1 }
        if isDigit(scalars, position) { return true }
        return position < scalars.count && scalars[position] == "." && isDigit(scalars, position + 1)
    }

    /// `[+-]digits[.digits][E[+-]digits]` or `[+-].digits[…]`.
    private static func scanNumber(_ scalars: [Unicode.Scalar], index: inout Int) throws(CMISQLError) -> String {
        let start = index
        if scalars[index] == "+" || scalars[index] == "-" { index += 1 }
        while isDigit(scalars, index) { index += 1 }
        if index < scalars.count, scalars[index] == "." {
            index += 1
            while isDigit(scalars, index) { index += 1 }
        }
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            var position = index + 1
            if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" {
                position += 1
            }
            guard isDigit(scalars, position) else {
                throw CMISQLError("expected the digits of an exponent", offset: position)
            }
            index = position
            while isDigit(scalars, index) { index += 1 }
        }
        if index < scalars.count, isWordPart(scalars[index]) || scalars[index] == "." {
            throw CMISQLError("unexpected \(describe(scalars[index])) after a number", offset: index)
        }
        return string(scalars[start..<index])
    }
}
