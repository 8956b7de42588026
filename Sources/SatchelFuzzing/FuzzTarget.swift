public import Foundation

/// One parser of untrusted bytes, and what must hold for any input it is given.
///
/// A target's ``check`` parses the input the way Satchel does on the wire. Failing to parse is fine as long as the
/// failure is a thrown error of the parser's own type with a position where the parser has one; it is never a trap,
/// a hang or unbounded memory (libFuzzer and AddressSanitizer catch those). Where Satchel has a writer for what was
/// parsed, what parsed is written again and must parse to the same value. Anything else that must not happen
/// throws a ``FuzzViolation``.
///
/// ```swift
/// let target = FuzzTargets.named("json")!
/// try target.check(Array(#"{"a": [1, 2]}"#.utf8))
/// ```
public struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz` and `satchel-fuzz` take: `json`, `cmisql` …
    public let name: String
    /// What the target parses, in a line.
    public let summary: String
    /// Folders (relative to the package root) whose files seed the corpus, besides `Fuzz/Corpus/<name>`.
    public let seedFolders: [String]
    /// Which files of ``seedFolders`` are seeds: their extensions (`json`, `xml`); empty for every file.
    public let seedExtensions: [String]
    /// The largest input worth trying (libFuzzer's `-max_len`).
    public let maximumLength: Int
    /// The inputs a seed file gives: itself, unless the target reads a prefix first (a byte that picks the parser).
    public let seedForms: @Sendable ([UInt8]) -> [[UInt8]]
    /// Parses `input` and checks what must hold; throws ``FuzzViolation`` when something does not.
    public let check: @Sendable ([UInt8]) throws(FuzzViolation) -> Void

    public init(
        name: String, summary: String, seedFolders: [String] = [], seedExtensions: [String] = [],
        maximumLength: Int = 64 * 1024, seedForms: @escaping @Sendable ([UInt8]) -> [[UInt8]] = { [$0] },
        check: @escaping @Sendable ([UInt8]) throws(FuzzViolation) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.seedFolders = seedFolders
        self.seedExtensions = seedExtensions
        self.maximumLength = maximumLength
        self.seedForms = seedForms
        self.check = check
    }
}

extension FuzzTarget {
    /// The target's seeds under the package root: the files of ``seedFolders`` with its extensions and everything in
    /// `Fuzz/Corpus/<name>`, each in its ``seedForms``, named after its file.
    public func seeds(packageRoot: URL) -> [(name: String, bytes: [UInt8])] {
        let folders =
            seedFolders.map { (packageRoot.appendingPathComponent($0), seedExtensions) }
            + [(packageRoot.appendingPathComponent("Fuzz/Corpus/\(name)"), [])]
        var seeds: [(name: String, bytes: [UInt8])] = []
        for (folder, extensions) in folders {
            for file in Self.files(in: folder, extensions: extensions) {
                guard let data = try? Data(contentsOf: file) else { continue }
                let forms = seedForms(Array(data))
                for (index, form) in forms.enumerated() {
                    let name = forms.count == 1 ? file.lastPathComponent : "\(index)-\(file.lastPathComponent)"
                    seeds.append((name, form))
                }
            }
        }
        return seeds
    }

    /// What fuzzing found and was fixed: the files of `Fuzz/Regressions/<name>` under the package root, by name.
    public func regressions(packageRoot: URL) -> [(name: String, bytes: [UInt8])] {
        Self.files(in: packageRoot.appendingPathComponent("Fuzz/Regressions/\(name)")).compactMap { file in
            (try? Data(contentsOf: file)).map { (file.lastPathComponent, Array($0)) }
        }
    }

    /// The files under `folder` (all its levels) whose extension is one of `extensions` (any when empty), sorted.
    public static func files(in folder: URL, extensions: [String] = []) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        return walker.compactMap { $0 as? URL }.filter { file in
            !file.hasDirectoryPath && (extensions.isEmpty || extensions.contains(file.pathExtension.lowercased()))
        }.sorted { $0.path < $1.path }
    }
}

/// Something that must hold for every input did not: a crash for libFuzzer, a failed test for the regression suite.
public struct FuzzViolation: Error, Sendable, CustomStringConvertible {
    public let target: String
    public let message: String

    public init(_ target: String, _ message: String) {
        self.target = target
        self.message = message
    }

    public var description: String { "\(target): \(message)" }
}

/// Every fuzz target, by name.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        JSONFuzzTarget.target, XMLFuzzTarget.target, CMISQLFuzzTarget.target, NXQLFuzzTarget.target,
        FilterFuzzTarget.target,
        HTTPResponseFuzzTarget.target, MultipartFuzzTarget.target, BatchFuzzTarget.target, CSDLFuzzTarget.target,
        BrowserFuzzTarget.target, AtomPubFuzzTarget.target, NuxeoFuzzTarget.target, StoreFileFuzzTarget.target,
    ]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

extension [UInt8] {
    /// The input for messages: as text when it is UTF-8, at most `limit` characters, escaped.
    func excerpt(_ limit: Int = 200) -> String {
        let text = String(decoding: self, as: UTF8.self)
        let clipped = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return clipped.debugDescription
    }
}
