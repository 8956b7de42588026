import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore

/// `satchel cmis acl PATH [--add P=PERM…] [--remove P=PERM…]`.
struct CMISACLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acl",
        abstract: "Show an object's access control list, or change it with --add and --remove.",
        discussion: """
            Each line is a principal, its permissions and whether the entry is set on the object itself (direct) \
            or inherited. --add and --remove take PRINCIPAL=PERMISSION and may be repeated, for example \
            --add bob=cmis:read --remove anyone=cmis:write.
            """)

    @Argument(help: ArgumentHelp("The object path.", valueName: "path"))
    var path: String

    @Option(help: ArgumentHelp("Grant a permission.", valueName: "principal=permission"))
    var add: [String] = []

    @Option(help: ArgumentHelp("Revoke a permission.", valueName: "principal=permission"))
    var remove: [String] = []

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        for entry in add + remove where Self.parse(entry) == nil {
            throw ValidationError("'\(entry)' is not PRINCIPAL=PERMISSION")
        }
    }

    /// `bob=cmis:read` → an ACE.
    static func parse(_ entry: String) -> ACE? {
        guard let equals = entry.firstIndex(of: "=") else { return nil }
        let principal = String(entry[..<equals])
        let permission = String(entry[entry.index(after: equals)...])
        guard !principal.isEmpty, !permission.isEmpty else { return nil }
        return ACE(principalId: principal, permissions: [permission])
    }

    func run() async throws {
        let path = path
        let adding = add.compactMap(Self.parse)
        let removing = remove.compactMap(Self.parse)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let object = try await session.object(at: path)
            guard let id = object.id else { throw CLIError(.invalidResponse, "\(path) came back without an id") }
            let acl =
                adding.isEmpty && removing.isEmpty
                ? try await session.acl(of: id)
                : try await session.applyACL(to: id, adding: adding, removing: removing)
            for ace in acl.aces {
                try CMISOutput.line(
                    "\(CMISOutput.pad(ace.principalId, 16))  \(CMISOutput.pad(ace.isDirect ? "direct" : "inherited", 9))  "
                        + ace.permissions.joined(separator: ","))
            }
        }
    }
}
