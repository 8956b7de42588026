import ArgumentParser
import Foundation
import SatchelRepository
import SatchelServer
import SatchelText

/// `satchel serve offline-status`: the offline middle tier's state, per endpoint and defining query, read from the
/// server's store (a running server's too).
struct ServeOfflineStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline-status",
        abstract: "Show the offline middle tier's defining queries and their clients' sync points.",
        discussion: """
            For each endpoint, defining query and scope (shared, or one user's): the version of its rows, how many \
            rows and bytes it holds, when it was last read from the back-end (and how: the back-end's delta link \
            or a full read the middle tier compares), and each client (user) with the version it last received. \
            Reads the store of `satchel serve --data FOLDER` (or --postgres URL), also while that server runs.
            """)

    @Option(help: ArgumentHelp("The server's data folder.", valueName: "folder"))
    var data = "./satchel-data"

    @Option(help: ArgumentHelp("The server's PostgreSQL store instead.", valueName: "url"))
    var postgres: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await CommandRunner.run(global) {
            let choice: ServerConfiguration.Store
            if let postgres {
                choice = .postgres(url: postgres)
            } else {
                let path = URL(fileURLWithPath: data).appendingPathComponent("satchel.sqlite").path
                guard FileManager.default.fileExists(atPath: path) else {
                    throw ServerError("no server store at \(path): give the data folder of satchel serve with --data")
                }
                choice = .sqlite(path: path)
            }
            let store = try await StoreFactory.open(choice)
            do {
                // Read only: the store is the server's to migrate (this command may be newer or older than it).
                guard let tier = store as? any OfflineTierStore else {
                    throw ServerError("this store keeps no offline middle tier state")
                }
                let overview: [OfflineQueryOverview]
                do {
                    overview = try await tier.offlineOverview()
                } catch {
                    throw ServerError(
                        "cannot read the offline middle tier's state (has a satchel serve of this version run on"
                            + " this store?): \(error)")
                }
                print(Self.render(overview, now: Date()), terminator: "")
            } catch {
                await StoreFactory.close(store)
                throw error
            }
            await StoreFactory.close(store)
        }
    }

    /// The overview as text: a line per defining query and scope, then a line per client.
    static func render(_ overview: [OfflineQueryOverview], now: Date) -> String {
        guard !overview.isEmpty else { return "no defining query has been read yet\n" }
        var text = ""
        for entry in overview {
            let state = entry.state
            let age = Int(now.timeIntervalSince(state.refreshedAt))
            let source = state.backendDeltaLink == nil ? "full read, compared here" : "back-end delta link"
            text += "\(entry.query.endpoint)  \(entry.query.query)  \(entry.query.scope)  version \(state.version)"
            text += "  \(state.rows) rows  \(state.bytes) bytes"
            text +=
                "  refreshed \(ISO8601Timestamp.string(from: state.refreshedAt, milliseconds: false)) (\(Self.age(age)) ago, \(source))\n"
            for point in entry.syncPoints {
                let behind = state.version - point.version
                text += "    \(point.client)  version \(point.version)"
                text += behind > 0 ? " (\(behind) behind)" : " (current)"
                text += "  at \(ISO8601Timestamp.string(from: point.at, milliseconds: false))\n"
            }
        }
        return text
    }

    static func age(_ seconds: Int) -> String {
        switch max(seconds, 0) {
        case ..<120: "\(max(seconds, 0)) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3600) h"
        default: "\(seconds / 86400) d"
        }
    }
}
