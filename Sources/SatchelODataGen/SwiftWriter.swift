/// Collects lines of Swift source with 4-space indentation.
struct SwiftWriter {
    private(set) var lines: [String] = []
    private var level = 0

    /// Writes one line at the current indentation (an empty string writes a blank line).
    mutating func line(_ text: String) {
        if text.isEmpty {
            if lines.last?.isEmpty == false { lines.append("") }
            return
        }
        lines.append(String(repeating: "    ", count: level) + text)
    }

    /// Writes `header {`, the body one level deeper, and `}`.
    mutating func block(_ header: String, _ body: (inout SwiftWriter) -> Void) {
        scope(header + " {", "}", body)
    }

    /// Writes `open`, the body one level deeper, and `close`.
    mutating func scope(_ open: String, _ close: String, _ body: (inout SwiftWriter) -> Void) {
        line(open)
        level += 1
        body(&self)
        level -= 1
        if lines.last?.isEmpty == true { lines.removeLast() }
        line(close)
    }

    /// Writes a `///` comment, one line per line of `text`.
    mutating func doc(_ text: String) {
        for part in text.split(separator: "\n", omittingEmptySubsequences: false) {
            line(part.isEmpty ? "///" : "/// " + part)
        }
    }

    /// A call or declaration head whose arguments are wrapped when the line would pass 120 columns:
    /// `prefix(a, b, c)suffix`.
    mutating func wrapped(_ prefix: String, _ arguments: [String], _ suffix: String) {
        let indent = String(repeating: "    ", count: level)
        let single = prefix + "(" + arguments.joined(separator: ", ") + ")" + suffix
        if indent.count + single.count <= 120 || arguments.isEmpty {
            line(single)
            return
        }
        line(prefix + "(")
        level += 1
        for (index, argument) in arguments.enumerated() {
            line(argument + (index == arguments.count - 1 ? "" : ","))
        }
        level -= 1
        line(")" + suffix)
    }

    /// `head tail` on one line, or `tail` on the next line one level deeper when that would pass 120 columns.
    mutating func split(_ head: String, _ tail: String) {
        let indent = String(repeating: "    ", count: level)
        if indent.count + head.count + 1 + tail.count <= 120 {
            line(head + " " + tail)
        } else {
            line(head)
            level += 1
            line(tail)
            level -= 1
        }
    }

    /// Whether `text` fits on one line at the current indentation.
    func fits(_ text: String) -> Bool { level * 4 + text.count <= 120 }

    var text: String { lines.joined(separator: "\n") + "\n" }
}
