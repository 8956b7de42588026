import ArgumentParser
import Foundation
import SatchelHTTP
import SatchelOData

/// `satchel odata create SERVICE SET --json '{…}'`: prints the created entity.
struct ODataCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an entity; --json is its properties in the service's JSON (as the version writes them).")
    @OptionGroup var target: ODataTarget
    @Option(help: "The entity's properties as a JSON object.") var json: String

    func run() async throws {
        let command = self
        try await CommandRunner.run(target.global) {
            let service = try command.target.makeService()
            let result = try await service.create(
                ODataPath(command.target.entitySet), try entity(fromJSON: command.json))
            if var created = result.entity {
                created.annotations = [:]
                let writer = ODataPayloadWriter(version: .v4, serviceURL: service.configuration.serviceURL)
                print(String(decoding: try writer.data(for: created), as: UTF8.self))
            } else {
                print(result.location ?? "created")
            }
        }
    }
}

/// `satchel odata update SERVICE SET KEY --json '{…}'`: merge (PATCH/MERGE) or replace (PUT).
struct ODataUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Change an entity: merge the given properties, or --replace it.")
    @OptionGroup var target: ODataTarget
    @Argument(help: "The key (3, 'HT-1000', A=1,B=2).") var key: String
    @Option(help: "The properties as a JSON object.") var json: String
    @Flag(help: "Replace the entity (PUT): properties not given are reset.") var replace = false
    @Option(help: "Refuse the change unless the entity still has this ETag (If-Match).") var ifMatch: String?

    func run() async throws {
        let command = self
        try await CommandRunner.run(target.global) {
            let service = try command.target.makeService()
            let result = try await service.update(
                ODataPath(command.target.entitySet).key(try odataKey(command.key)),
                with: try entity(fromJSON: command.json), method: command.replace ? .replace : .merge,
                ifMatch: command.ifMatch)
            print(result.etag.map { "updated; ETag \($0)" } ?? "updated")
        }
    }
}

/// `satchel odata delete SERVICE SET KEY`.
struct ODataDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an entity.")
    @OptionGroup var target: ODataTarget
    @Argument(help: "The key (3, 'HT-1000', A=1,B=2).") var key: String
    @Option(help: "Refuse unless the entity still has this ETag (If-Match; * for any).") var ifMatch: String?

    func run() async throws {
        let command = self
        try await CommandRunner.run(target.global) {
            let service = try command.target.makeService()
            try await service.delete(
                ODataPath(command.target.entitySet).key(try odataKey(command.key)), ifMatch: command.ifMatch)
            print("deleted")
        }
    }
}
