/// Escaping for text that another parser reads: quotes in query literals, SQL, header parameters, markup.
///
/// It works on Unicode scalars, never on `Character`s. A quote followed by a combining mark (`'` U+0301) is one
/// `Character` that is not equal to `"'"`, so a `Character`-based replacement (Foundation's
/// `replacingOccurrences(of:with:)` on Linux among them) leaves that quote as it is, while the server, SQLite or
/// XML reader on the other side sees a quote and the rest of the value as syntax. Likewise `"\r\n"` is one
/// `Character` that equals neither `"\r"` nor `"\n"`.
extension String {
    /// The text with every scalar `replacement` gives a replacement for replaced, the rest kept.
    package func escapingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if let replaced = replacement(scalar) {
                result.append(contentsOf: replaced.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// The text in single quotes, its quotes escaped as `style` says.
    package func singleQuoted(_ style: QuoteEscaping) -> String {
        let body =
            switch style {
            case .doubled: escapingScalars { $0 == "'" ? "''" : nil }
            case .backslash: escapingScalars { $0 == "'" ? "\\'" : $0 == "\\" ? "\\\\" : nil }
            }
        return "'" + body + "'"
    }
}

/// How a single-quoted literal escapes its quotes.
package enum QuoteEscaping: Sendable {
    /// `''`: SQL and OData.
    case doubled
    /// `\'`, and `\\` for a backslash: CMIS QL and NXQL.
    case backslash
}

extension StringProtocol {
    /// The text split at every `separator` that stands outside `quote`d runs (and, with `nesting`, outside
    /// parentheses), read by Unicode scalars as its writer escaped it: `'` followed by a combining mark still opens or
    /// closes a string. A doubled quote inside a string toggles twice and stays inside. With `escape`, the scalar after
    /// it inside a quoted run is taken as it is (`\"` in an HTTP quoted string).
    package func splittingByScalars(
        at separator: Unicode.Scalar, outside quote: Unicode.Scalar, escape: Unicode.Scalar? = nil,
        nesting: Bool = false
    ) -> [String] {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var depth = 0
        var quoted = false
        var escaped = false
        for scalar in unicodeScalars {
            if escaped {
                escaped = false
            } else if quoted, scalar == escape {
                escaped = true
            } else if scalar == quote {
                quoted.toggle()
            }
            if !quoted {
                if nesting, scalar == "(" { depth += 1 }
                if nesting, scalar == ")" { depth -= 1 }
                if scalar == separator, depth == 0 {
                    parts.append(String(current))
                    current = String.UnicodeScalarView()
                    continue
                }
            }
            current.append(scalar)
        }
        parts.append(String(current))
        return parts
    }
}
