import Foundation
import Testing

/// Every Swift block of the README and of the DocC articles is compiled: its lines stand, word for word and in
/// order, in one of this target's example files (leading and trailing spaces and blank lines aside), so a block
/// whose API changed fails the build or this test.
@Suite struct DocExamplesTests {
    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One fenced Swift block: where it is, and its lines without surrounding spaces or blank lines.
    struct Block: CustomStringConvertible {
        var file: String
        var line: Int
        var lines: [String]
        var description: String { "\(file):\(line)" }
    }

    /// The documents whose Swift blocks must compile: the README and every article of every DocC catalog.
    static func documents() throws -> [URL] {
        var found = [root.appendingPathComponent("README.md")]
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".md") {
                found.append(catalog.appendingPathComponent(name))
            }
        }
        return found
    }

    static func meaningfulLines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The fenced blocks marked `swift` in one Markdown document.
    static func blocks(in document: URL) throws -> [Block] {
        let text = try String(contentsOf: document, encoding: .utf8)
        let relative = String(document.path.dropFirst(root.path.count + 1))
        var blocks: [Block] = []
        var current: (start: Int, lines: [String])?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var open = current {
                if trimmed == "```" {
                    blocks.append(
                        Block(
                            file: relative, line: open.start, lines: meaningfulLines(open.lines.joined(separator: "\n"))
                        ))
                    current = nil
                } else {
                    open.lines.append(String(line))
                    current = open
                }
            } else if trimmed == "```swift" {
                current = (index + 1, [])
            }
        }
        #expect(current == nil, "\(relative): a Swift block opened at line \(current?.start ?? 0) is never closed")
        return blocks
    }

    /// The example files' meaningful lines, each file on its own.
    static func exampleFiles() throws -> [String: [String]] {
        let folder = root.appendingPathComponent("Tests/SatchelDocExamplesTests")
        var files: [String: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where name.hasSuffix(".swift") && name != "DocExamplesTests.swift" {
            files[name] = meaningfulLines(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
        return files
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    /// Whether one example file holds the block: its `import` lines anywhere in the file, the rest in a row.
    static func holds(_ file: [String], _ block: Block) -> Bool {
        let imports = block.lines.filter { $0.hasPrefix("import ") }
        let code = block.lines.filter { !$0.hasPrefix("import ") }
        return imports.allSatisfy(file.contains) && contains(file, code)
    }

    /// A manifest excerpt (a block that starts with `// Package.swift`) can only name products Satchel has.
    static func checkManifestExcerpt(_ block: Block, products: [String]) {
        let named = block.lines.joined(separator: "\n").matches(of: /\.product\(name: "(\w+)", package: "satchel"\)/)
        #expect(!named.isEmpty, "\(block): a manifest excerpt that names no Satchel product")
        for match in named {
            #expect(products.contains(String(match.1)), "\(block): names a product Satchel does not have: \(match.1)")
        }
    }

    static func libraryProducts() throws -> [String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        return manifest.matches(of: /\.library\(name: "(\w+)", targets: \["(\w+)"\]\)/).map { String($0.1) }
    }

    @Test func everySwiftBlockIsCompiled() throws {
        let examples = try Self.exampleFiles()
        let products = try Self.libraryProducts()
        var checked = 0
        for document in try Self.documents() {
            for block in try Self.blocks(in: document) {
                checked += 1
                if block.lines.first == "// Package.swift" {
                    Self.checkManifestExcerpt(block, products: products)
                    continue
                }
                let home = examples.first { Self.holds($0.value, block) }
                #expect(
                    home != nil,
                    "\(block): this Swift block is not in any file of Tests/SatchelDocExamplesTests, so nothing compiles it; its first line: \(block.lines.first ?? "")"
                )
            }
        }
        // The README's five lines per protocol and a getting-started article per library at least.
        #expect(checked >= 20, "only \(checked) Swift blocks were found in the README and the DocC articles")
    }

    @Test func everyLibraryHasACatalog() throws {
        let products = try Self.libraryProducts()
        #expect(products.count >= 10)
        for module in products {
            let catalog = Self.root.appendingPathComponent("Sources/\(module)/\(module).docc")
            let root = catalog.appendingPathComponent("\(module).md")
            let text = try? String(contentsOf: root, encoding: .utf8)
            #expect(
                text?.hasPrefix("# ``\(module)``") == true,
                "\(module) has no DocC catalog with a root page at \(root.path)")
            #expect(text?.contains("## Topics") == true, "\(module)'s root page groups no types in topics")
            let articles = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
            #expect(articles.contains("GettingStarted.md"), "\(module)'s catalog has no GettingStarted.md article")
        }
    }
}
