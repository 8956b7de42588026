/// A LIKE pattern: `%` matches any run of characters, `_` exactly one, `\%` `\_` `\\` `\'` match themselves.
///
/// The pattern is read by Unicode scalars (escapes and wildcards are single scalars); matching is case-sensitive and
/// compares Swift `Character`s (grapheme clusters).
///
/// ```swift
/// let pattern: LikePattern = "100\\%_%"
/// pattern.matches("100%-off sale")   // true
/// ```
public struct LikePattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One step of a pattern.
    public enum Element: Sendable, Hashable {
        /// A literal character, compared exactly (case-sensitive).
        case character(Character)
        /// `_`
        case anyCharacter
        /// `%`
        case anySequence
    }

    /// The pattern's literal characters and wildcards, in order.
    public var elements: [Element]

    /// A pattern from its elements.
    public init(elements: [Element]) { self.elements = elements }

    /// Reads a pattern in its escaped form (as between the quotes of a LIKE literal, quotes already unescaped).
    /// A backslash before anything but `%` `_` `\\` `'` is dropped, and the scalar after it taken as it is.
    public init(escaped text: String) { self = Self.decode(text).pattern }

    /// Whether a backslash may stand before `scalar` in a CMIS QL literal: `'`, `\\`, `%` or `_`.
    static func isEscapable(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "'" || scalar == "\\" || scalar == "%" || scalar == "_"
    }

    /// Reads `text` by Unicode scalars, as escapers write it (a `%` followed by a combining mark is still a
    /// wildcard); the literal runs between wildcards become `Character`s, which matching compares. Also returns the
    /// first backslash (its scalar offset) that escapes anything else, and the scalar after it.
    static func decode(_ text: String) -> (pattern: LikePattern, unknownEscape: (Int, Unicode.Scalar)?) {
        var elements: [Element] = []
        var literal = String.UnicodeScalarView()
        var unknownEscape: (Int, Unicode.Scalar)?
        func flush() {
            guard !literal.isEmpty else { return }
            elements += String(literal).map(Element.character)
            literal.removeAll()
        }
        var escapeOffset: Int?
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            if let start = escapeOffset {
                if !isEscapable(scalar), unknownEscape == nil { unknownEscape = (start, scalar) }
                literal.append(scalar)
                escapeOffset = nil
            } else if scalar == "\\" {
                escapeOffset = offset
            } else if scalar == "%" || scalar == "_" {
                flush()
                elements.append(scalar == "%" ? .anySequence : .anyCharacter)
            } else {
                literal.append(scalar)
            }
        }
        if escapeOffset != nil { literal.append("\\") }
        flush()
        return (LikePattern(elements: elements), unknownEscape)
    }

    /// A pattern from a literal in its escaped form, as `init(escaped:)` reads it.
    public init(stringLiteral value: String) { self.init(escaped: value) }

    /// The pattern in its escaped form.
    public var description: String {
        var text = ""
        for element in elements {
            switch element {
            case .anySequence: text += "%"
            case .anyCharacter: text += "_"
            case .character(let character):
                // By scalar: a Prepend mark joins the next scalar, so `%` can be inside a `Character`.
                for scalar in character.unicodeScalars {
                    if scalar == "%" || scalar == "_" || scalar == "\\" { text.unicodeScalars.append("\\") }
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text
    }

    /// The literal text before the first wildcard (for index range scans).
    public var literalPrefix: String {
        var prefix = ""
        for element in elements {
            guard case .character(let character) = element else { break }
            prefix.append(character)
        }
        return prefix
    }

    /// Whether `text` matches the whole pattern.
    public func matches(_ text: String) -> Bool {
        let characters = Array(text)
        var textIndex = 0
        var patternIndex = 0
        // Where the last `%` was, and the text position it currently stands for: on a mismatch it swallows one
        // more character. Linear backtracking, no recursion.
        var starPattern = -1
        var starText = 0
        while textIndex < characters.count {
            if patternIndex < elements.count {
                switch elements[patternIndex] {
                case .anySequence:
                    starPattern = patternIndex
                    starText = textIndex
                    patternIndex += 1
                    continue
                case .anyCharacter:
                    textIndex += 1
                    patternIndex += 1
                    continue
                case .character(let character) where character == characters[textIndex]:
                    textIndex += 1
                    patternIndex += 1
                    continue
                case .character:
                    break
                }
            }
            guard starPattern >= 0 else { return false }
            starText += 1
            textIndex = starText
            patternIndex = starPattern + 1
        }
        while patternIndex < elements.count, elements[patternIndex] == .anySequence { patternIndex += 1 }
        return patternIndex == elements.count
    }
}
