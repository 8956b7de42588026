import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelCache
import SatchelCacheCMIS

struct CMISSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Load a folder tree (and with --content its documents' content) into the offline cache.",
        discussion: """
            The tree under PATH is read folder by folder, each folder's children page by page; it replaces the cached \
            tree NAME only when the load completes. Browse it offline with `satchel cache ls NAME`. See \
            `satchel cache --help` for the cache's folder and key.
            """)

    @Argument(help: "The name to keep the tree under.") var name: String
    @Argument(help: ArgumentHelp("The folder path (default /).", valueName: "path")) var path = "/"
    @Flag(help: "Also fetch every document's content (the blob cache's limits still hold).") var content = false
    @Option(help: ArgumentHelp("Children per request (default 500).", valueName: "n")) var pageSize = 500

    @OptionGroup var cache: CacheOptions
    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if pageSize < 1 { throw ValidationError("--page-size must be 1 or more") }
    }

    func run() async throws {
        let (cache, name, path, content, pageSize) = (cache, name, path, content, pageSize)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let source = CMISHierarchySource(session: session, rootPath: path, pageSize: pageSize)
            try await cache.with { cache in
                let summary = try await cache.load(name, from: source)
                let fetched = content ? try await cache.fetchContent(of: name, from: source) : nil
                print(try await CacheOptions.report(summary, fetched: fetched, cache: cache))
            }
        }
    }
}
