import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore

/// `satchel cmis repos`: the repositories behind the service URL.
struct CMISReposCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repos", abstract: "List the repositories: id, name, root folder; MyDocuments is marked.")

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await CMISConnection(connection: connection, cmis: cmis, global: global).run { parameters in
            let infos = try await CMISSession.repositories(parameters)
            let idWidth = infos.map(\.id.count).max() ?? 0
            let nameWidth = infos.map(\.name.count).max() ?? 0
            for info in infos {
                var line =
                    CMISOutput.pad(info.id, idWidth) + "  " + CMISOutput.pad(info.name, nameWidth) + "  root: "
                    + info.rootFolderId
                if let folder = info.extensionValue(named: MobileDocuments.myDocumentsExtension) {
                    line += "  [MyDocuments: \(folder)]"
                }
                try CMISOutput.line(line)
            }
        }
    }
}

/// `satchel cmis info`: the repository info, its capabilities and extensions.
struct CMISInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show the repository info, its capabilities and extensions.")

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let info = session.repositoryInfo
            var rows: [(String, String?)] = [
                ("id", info.id), ("name", info.name), ("description", info.description),
                ("vendor", info.vendorName), ("product", info.productName), ("version", info.productVersion),
                ("cmis version", info.cmisVersionSupported), ("root folder", info.rootFolderId),
                ("MyDocuments", session.myDocumentsFolderId), ("change log token", info.latestChangeLogToken),
            ]
            rows = rows.filter { $0.1 != nil && $0.1 != "" }
            for (label, value) in rows { try CMISOutput.line(CMISOutput.pad(label + ":", 18) + (value ?? "")) }
            let capabilities = Self.capabilities(info.capabilities)
            try CMISOutput.line("capabilities:")
            for (name, value) in capabilities { try CMISOutput.line("  " + CMISOutput.pad(name, 26) + value) }
            if capabilities.isEmpty { try CMISOutput.line("  (none announced)") }
            if !info.extensions.isEmpty {
                try CMISOutput.line("extensions:")
                for element in info.extensions {
                    // The XSRF token is a secret: say that it is there, not what it is.
                    let value =
                        element.name == MobileDocuments.tokenExtension
                        ? "(set)" : element.value ?? "(\(element.children.count) children)"
                    try CMISOutput.line("  " + CMISOutput.pad(element.name, 26) + value)
                }
            }
        }
    }

    /// The capabilities the repository announces, by name (the ones it leaves out are not listed).
    static func capabilities(_ capabilities: RepositoryCapabilities) -> [(String, String)] {
        Mirror(reflecting: capabilities).children.compactMap { child in
            guard let label = child.label else { return nil }
            let unwrapped = Mirror(reflecting: child.value)
            guard unwrapped.displayStyle != .optional || !unwrapped.children.isEmpty else { return nil }
            let value = unwrapped.displayStyle == .optional ? unwrapped.children.first!.value : child.value
            return (label, describe(value))
        }
    }

    private static func describe(_ value: Any) -> String {
        if let value = value as? any RawRepresentable { return "\(value.rawValue)" }
        if let values = value as? [Any] { return values.map(describe).joined(separator: ", ") }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .struct {
            let set = mirror.children.compactMap { child -> String? in
                guard let label = child.label else { return nil }
                let inner = Mirror(reflecting: child.value)
                if inner.displayStyle == .optional {
                    guard let first = inner.children.first else { return nil }
                    return "\(label)=\(describe(first.value))"
                }
                return "\(label)=\(describe(child.value))"
            }
            return set.joined(separator: " ")
        }
        return "\(value)"
    }
}
