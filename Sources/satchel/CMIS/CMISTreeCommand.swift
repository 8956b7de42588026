import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore

/// `satchel cmis tree [PATH]`: the folders (and documents) below a folder, indented.
struct CMISTreeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tree", abstract: "Show what is below a folder as a tree (one request per call, not per folder).")

    @Argument(help: ArgumentHelp("The folder path (default /).", valueName: "path"))
    var path = "/"

    @Option(help: ArgumentHelp("Levels to show (default: all).", valueName: "n"))
    var depth: Int?

    @Flag(name: .shortAndLong, help: "Folders only (the folder tree).")
    var directories = false

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let depth, depth < 1 { throw ValidationError("--depth must be 1 or more") }
    }

    func run() async throws {
        let (path, depth, directories) = (path, depth, directories)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let folder = try await session.object(at: path)
            guard folder.baseType == .folder, let id = folder.id else {
                throw CLIError(.usage, "\(path) is not a folder")
            }
            let nodes =
                directories
                ? try await session.folderTree(of: id, depth: depth)
                : try await session.descendants(of: id, depth: depth)
            try CMISOutput.line("/" + path.split(separator: "/").joined(separator: "/"))
            var lines: [String] = []
            Self.render(nodes, prefix: "", into: &lines)
            for line in lines { try CMISOutput.line(line) }
        }
    }

    /// Box-drawing lines, children sorted by name.
    static func render(_ nodes: [ContainerNode], prefix: String, into lines: inout [String]) {
        let sorted = nodes.sorted {
            ($0.item.pathSegment ?? $0.object.name ?? "") < ($1.item.pathSegment ?? $1.object.name ?? "")
        }
        for (index, node) in sorted.enumerated() {
            let last = index == sorted.count - 1
            let name = (node.item.pathSegment ?? node.object.name ?? "?") + (node.object.baseType == .folder ? "/" : "")
            lines.append(prefix + (last ? "└── " : "├── ") + name)
            render(node.children, prefix: prefix + (last ? "    " : "│   "), into: &lines)
        }
    }
}
