/// Parses the text search expression of CONTAINS (CMIS 1.1 §2.1.14.2.4.4).
///
/// Two levels of escaping apply: the statement's string literal (`\'`, `\\`), then the search expression, where
/// `\` makes the next character literal (`\"`, `\-`, `\\`). Words separated by spaces must all match; `OR`
/// (upper case) separates alternatives and binds weaker; `-` before a word or phrase negates it;
/// `"…"` is a phrase. An upper-case `AND` between terms is accepted and means the same as a space.
enum TextSearchParser {
    /// `raw` is the literal's content as the lexer kept it; `offset` is where that content starts.
    static func parse(raw: String, offset: Int) throws(CMISQLError) -> TextSearchExpression {
        // Statement level: \' and \\ become ' and \; every other escape stays for the search level.
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        let rawScalars = Array(raw.unicodeScalars)
        var index = 0
        while index < rawScalars.count {
            if rawScalars[index] == "\\", index + 1 < rawScalars.count,
                rawScalars[index + 1] == "'" || rawScalars[index + 1] == "\\"
            {
                scalars.append(rawScalars[index + 1])
                offsets.append(offset + index)
                index += 2
            } else {
                scalars.append(rawScalars[index])
                offsets.append(offset + index)
                index += 1
            }
        }
        offsets.append(offset + rawScalars.count)
        var parser = Scanner(scalars: scalars, offsets: offsets)
        return try parser.parse()
    }

    private struct Scanner {
        /// The expression by Unicode scalars (as the statement is read), and each one's offset in the statement.
        let scalars: [Unicode.Scalar]
        let offsets: [Int]
        var index = 0

        /// A term as written: its text, whether it was a phrase, whether negated, where it started.
        struct Item {
            var text: String
            var isPhrase: Bool
            var negated: Bool
            var offset: Int
            /// An unquoted, unescaped `OR` / `AND`.
            var bareWord: String?
        }

        mutating func parse() throws(CMISQLError) -> TextSearchExpression {
            var items: [Item] = []
            while let item = try nextItem() { items.append(item) }
            guard !items.isEmpty else {
                throw CMISQLError("expected at least one search word in CONTAINS", offset: offsets[0])
            }
            var alternatives: [[TextSearchExpression]] = [[]]
            var previousWasOperator = true
            for item in items {
                if item.bareWord == "OR" || item.bareWord == "AND" {
                    guard !previousWasOperator, let last = alternatives.last, !last.isEmpty else {
                        throw CMISQLError("expected a search word before \(item.bareWord ?? "")", offset: item.offset)
                    }
                    if item.bareWord == "OR" { alternatives.append([]) }
                    previousWasOperator = true
                    continue
                }
                let term: TextSearchExpression = item.isPhrase ? .phrase(item.text) : .term(item.text)
                alternatives[alternatives.count - 1].append(item.negated ? .not(term) : term)
                previousWasOperator = false
            }
            if previousWasOperator {
                throw CMISQLError(
                    "expected a search word after \(items.last?.bareWord ?? "the operator")",
                    offset: offsets[offsets.count - 1])
            }
            let conjuncts = alternatives.map { $0.count == 1 ? $0[0] : .and($0) }
            return conjuncts.count == 1 ? conjuncts[0] : .or(conjuncts)
        }

        mutating func nextItem() throws(CMISQLError) -> Item? {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            guard index < scalars.count else { return nil }
            let start = offsets[index]
            var negated = false
            if scalars[index] == "-" {
                negated = true
                index += 1
                guard index < scalars.count, !scalars[index].properties.isWhitespace else {
                    throw CMISQLError("expected a word or phrase right after '-'", offset: start)
                }
            }
            if scalars[index] == "\"" {
                index += 1
                var text = ""
                while index < scalars.count, scalars[index] != "\"" {
                    if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
                    text.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard index < scalars.count else {
                    throw CMISQLError("unterminated phrase: expected a closing \" in CONTAINS", offset: start)
                }
                index += 1
                guard !text.allSatisfy(\.isWhitespace) else {
                    throw CMISQLError("expected words inside the quotes of a phrase", offset: start)
                }
                return Item(text: text, isPhrase: true, negated: negated, offset: start)
            }
            var text = ""
            var escaped = false
            while index < scalars.count, !scalars[index].properties.isWhitespace, scalars[index] != "\"" {
                if scalars[index] == "\\", index + 1 < scalars.count {
                    index += 1
                    escaped = true
                }
                text.unicodeScalars.append(scalars[index])
                index += 1
            }
            let bare = !negated && !escaped && (text == "OR" || text == "AND") ? text : nil
            return Item(text: text, isPhrase: false, negated: negated, offset: start, bareWord: bare)
        }
    }
}
