/// A LIKE pattern: `%` matches any run of characters, `_` exactly one, `\%` `\_` `\\` `\'` match themselves.
///
/// Matching is case-sensitive and works on Swift `Character`s (grapheme clusters).
///
/// ```swift
/// let pattern: LikePattern = "100\\%_%"
/// pattern.matches("100%-off sale")   // true
/// ```
public struct LikePattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public enum Element: Sendable, Hashable {
        case character(Character)
        /// `_`
        case anyCharacter
        /// `%`
        case anySequence
    }

    public var elements: [Element]

    public init(elements: [Element]) { self.elements = elements }

    /// Reads a pattern in its escaped form (as between the quotes of a LIKE literal, quotes already unescaped).
    public init(escaped text: String) {
        var elements: [Element] = []
        var escaping = false
        for character in text {
            if escaping {
                elements.append(.character(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "%" {
                elements.append(.anySequence)
            } else if character == "_" {
                elements.append(.anyCharacter)
            } else {
                elements.append(.character(character))
            }
        }
        if escaping { elements.append(.character("\\")) }
        self.elements = elements
    }

    public init(stringLiteral value: String) { self.init(escaped: value) }

    /// The pattern in its escaped form.
    public var description: String {
        var text = ""
        for element in elements {
            switch element {
            case .anySequence: text += "%"
            case .anyCharacter: text += "_"
            case .character(let character) where "%_\\".contains(character): text += "\\\(character)"
            case .character(let character): text.append(character)
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
