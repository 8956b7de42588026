import ArgumentParser
import Foundation
import SatchelText
import SatchelCache
import SatchelStore

/// `satchel cache`: the offline content cache — hierarchies loaded by `satchel nuxeo sync` and `satchel cmis sync`,
/// browsed and opened without the network, and the blob cache's state.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Browse content cached for offline use, and manage the cache.",
        discussion: """
            `satchel nuxeo sync NAME ROOT` and `satchel cmis sync NAME PATH` load a tree (and with --content its \
            documents' content) into the cache; these commands read it with the network off. The cache lives in \
            --cache (default: SATCHEL_CACHE_DIR, else ~/.satchel/cache) and is encrypted with a passphrase from \
            SATCHEL_CACHE_PASSPHRASE (or --passphrase-stdin), or a raw key (64 hex digits) from SATCHEL_CACHE_KEY \
            (or --key-stdin); --unencrypted makes or opens one that is not.

            Examples:
              satchel nuxeo sync sales /default-domain/workspaces/Sales --content --url … --user alice
              satchel cache ls sales /default-domain/workspaces/Sales/2026
              satchel cache get sales /default-domain/workspaces/Sales/q3.pdf -o q3.pdf
              satchel cache status
              satchel cache evict --max-files 50
            """,
        subcommands: [
            CacheListCommand.self, CacheGetCommand.self, CacheStatusCommand.self, CacheEvictCommand.self,
            CacheClearCommand.self,
        ]
    )
}

/// Where the cache is and its key, shared by the cache and sync commands.
struct CacheOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("The cache's folder (default: SATCHEL_CACHE_DIR, else ~/.satchel/cache).", valueName: "dir"))
    var cache: String?

    @Flag(help: "Read the cache's passphrase from the first line of standard input.")
    var passphraseStdin = false

    @Flag(help: "Read the cache's raw key (64 hex digits) from the first line of standard input.")
    var keyStdin = false

    @Flag(help: "Make (or open) a cache that is not encrypted.")
    var unencrypted = false

    var folder: URL {
        if let cache { return URL(fileURLWithPath: cache) }
        if let configured = Terminal.environment("SATCHEL_CACHE_DIR"), !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".satchel/cache")
    }

    /// Opens the cache; `limits` replace the kept blob limits when given.
    func open(limits: BlobCache.Limits? = nil) async throws -> ContentCache {
        var key: StoreKey?
        if !unencrypted {
            key = try StoreKeyOptions.key(
                prefix: "SATCHEL_CACHE_", passphraseStdin: passphraseStdin, keyStdin: keyStdin)
            guard key != nil else {
                throw CLIError(
                    .usage,
                    "the cache is encrypted: set SATCHEL_CACHE_PASSPHRASE or SATCHEL_CACHE_KEY, use --passphrase-stdin, "
                        + "or --unencrypted")
            }
        }
        return try await ContentCache.open(at: folder, key: key, blobLimits: limits)
    }

    /// Runs `body` with the cache open, closing it after.
    func with(
        limits: BlobCache.Limits? = nil, _ body: @escaping @Sendable (ContentCache) async throws -> Void
    ) async throws {
        let cache = try await open(limits: limits)
        do {
            try await body(cache)
            try await cache.close()
        } catch {
            try? await cache.close()
            throw error
        }
    }

    /// One line per node: kind, size, modified, name (`long`: id and path too).
    static func line(_ node: HierarchyNode, cached: Bool, long: Bool) -> String {
        var columns = [
            node.isFolder ? "folder  " : "document",
            node.isFolder ? String(repeating: " ", count: 10) : pad(node.content?.length.map(String.init) ?? "-", 10),
            node.lastModified.map { ISO8601Timestamp.string(from: $0, milliseconds: false) }
                ?? String(repeating: " ", count: 20),
            (node.isFolder ? " " : cached ? "●" : "○") + " " + node.name,
        ]
        if long { columns += [node.id, node.path] }
        return columns.joined(separator: "  ")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// After a sync: what was loaded, and (with content) fetched.
    static func report(
        _ summary: HierarchySummary, fetched: ContentCache.ContentFetch?, cache: ContentCache
    ) async throws -> String {
        var text = "\(summary.name): \(summary.folders) folders, \(summary.documents) documents from \(summary.source)"
        if let fetched {
            let status = try await cache.blobs.status()
            text += "; \(fetched.fetched) blobs fetched, \(status.count) cached (\(status.bytes) bytes)"
            if fetched.overLimits > 0 {
                text += "; \(fetched.overLimits) left out by the cache's limits (satchel cache evict --max-files …)"
            }
        }
        return text
    }
}

struct CacheListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a cached folder: kind, size, modified, cached (●) or not (○), name; offline.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var cache: CacheOptions
    @Argument(help: "The hierarchy's name (as synced).") var name: String
    @Argument(help: "A folder's path (default: the hierarchy's root).") var path: String?
    @Flag(name: .shortAndLong, help: "Also show each node's id and path.") var long = false

    func run() async throws {
        try await CommandRunner.run(global) { [cache, name, path, long] in
            try await cache.with { cache in
                let hierarchy = try await cache.hierarchy(name)
                let children =
                    if let path { try await hierarchy.children(ofPath: path) } else {
                        try await hierarchy.childrenOfRoot()
                    }
                for child in children {
                    print(CacheOptions.line(child, cached: try await cache.isCached(child), long: long))
                }
            }
        }
    }
}

struct CacheGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Write a cached document's content to standard output or a file; offline.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var cache: CacheOptions
    @Argument(help: "The hierarchy's name (as synced).") var name: String
    @Argument(help: "The document's path.") var path: String
    @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE (replaced only on success).", valueName: "file"))
    var output: String?

    func run() async throws {
        try await CommandRunner.run(global) { [cache, name, path, output] in
            try await cache.with { cache in
                let node = try await cache.hierarchy(name).node(path: path)
                if let output {
                    try await cache.writeContent(of: node, to: URL(fileURLWithPath: output))
                } else {
                    FileHandle.standardOutput.write(try await cache.data(of: node))
                }
            }
        }
    }
}

struct CacheStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "The hierarchies cached and the blob cache's use and limits.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var cache: CacheOptions

    func run() async throws {
        try await CommandRunner.run(global) { [cache] in
            try await cache.with { cache in
                print("cache: \(cache.folder.path)\(cache.store.isEncrypted ? " (encrypted)" : " (not encrypted)")")
                for summary in try await cache.hierarchies() {
                    let loaded = ISO8601Timestamp.string(from: summary.loadedAt, milliseconds: false)
                    print(
                        "\(summary.name): \(summary.folders) folders, \(summary.documents) documents, loaded \(loaded) "
                            + "from \(summary.source)")
                }
                let status = try await cache.blobs.status()
                let count = status.limits.maximumCount.map(String.init) ?? "no limit"
                let bytes = status.limits.maximumBytes.map(String.init) ?? "no limit"
                print("blobs: \(status.count) (limit \(count)), \(status.bytes) bytes (limit \(bytes))")
            }
        }
    }
}

struct CacheEvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Set the blob cache's limits (kept for later) and evict the least recently used beyond them.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var cache: CacheOptions
    @Option(help: "At most this many blobs (0: none; omit to keep the current limit).") var maxFiles: Int?
    @Option(help: "At most this many bytes of blobs (omit to keep the current limit).") var maxBytes: Int64?
    @Flag(help: "Remove the byte limit.") var noByteLimit = false

    func validate() throws {
        if let maxFiles, maxFiles < 0 { throw ValidationError("--max-files must be 0 or more") }
        if let maxBytes, maxBytes < 0 { throw ValidationError("--max-bytes must be 0 or more") }
        if maxBytes != nil && noByteLimit { throw ValidationError("--max-bytes or --no-byte-limit, not both") }
    }

    func run() async throws {
        try await CommandRunner.run(global) { [cache, maxFiles, maxBytes, noByteLimit] in
            try await cache.with { cache in
                var limits = cache.blobs.limits
                if let maxFiles { limits.maximumCount = maxFiles }
                if let maxBytes { limits.maximumBytes = maxBytes }
                if noByteLimit { limits.maximumBytes = nil }
                let before = try await cache.blobs.status().count
                try await cache.blobs.setLimits(limits)
                let after = try await cache.blobs.status()
                print("evicted \(before - after.count); \(after.count) blobs, \(after.bytes) bytes remain")
            }
        }
    }
}

struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear", abstract: "Remove every cached blob, or forget one hierarchy (--hierarchy).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var cache: CacheOptions
    @Option(help: "Forget this hierarchy (its blobs stay until evicted).") var hierarchy: String?

    func run() async throws {
        try await CommandRunner.run(global) { [cache, hierarchy] in
            try await cache.with { cache in
                if let hierarchy {
                    _ = try await cache.hierarchy(hierarchy)
                    try await cache.remove(hierarchy)
                } else {
                    try await cache.blobs.clear()
                }
            }
        }
    }
}
