import ArgumentParser
import Foundation
import SatchelHTTP
import SatchelOData
import SatchelJSON

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
            if let created = result.entity {
                print(try jsonLine(created, serviceURL: service.configuration.serviceURL))
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

/// `satchel odata call SERVICE NAME --param Name=literal …`: a function import, function or action; prints its
/// result as JSON.
struct ODataCallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call a function import, function or action (kind and method from $metadata).",
        discussion: "Example: satchel odata call https://host/odata TotalStock --param CategoryID=2")
    @OptionGroup var endpoint: ODataServiceOptions
    @Argument(help: "The operation's name.") var name: String
    @Option(name: .customLong("param"), help: "A parameter as Name=literal (3, 'text', 2026-01-31), repeatable.")
    var parameters: [String] = []

    func run() async throws {
        let command = self
        try await CommandRunner.run(endpoint.global) {
            let service = try command.endpoint.makeService()
            let url = service.configuration.serviceURL
            let version = try await service.version()
            var list: [(String, ODataValue)] = []
            for parameter in command.parameters {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, case .literal(let literal) = try ODataExpression.parse(pair[1], version: version)
                else { throw CLIError(.usage, "--param is Name=literal, got \(parameter)") }
                list.append((pair[0], Self.value(literal)))
            }
            let result = try await service.call(command.name, parameterList: list)
            let writer = ODataPayloadWriter(version: .v4, serviceURL: url)
            print(String(decoding: try writer.json(for: result).serialized(), as: UTF8.self))
        }
    }

    /// A literal as the value a parameter takes.
    static func value(_ literal: ODataLiteral) -> ODataValue {
        switch literal {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(Int64(number))
        case .int64(let number): .int(number)
        case .decimal(let number): .decimal(number)
        case .double(let number): .double(number)
        case .single(let number): .double(Double(number))
        case .string(let text): .string(text)
        case .guid(let uuid): .guid(uuid)
        case .dateTime(let date): .dateTime(date)
        case .dateTimeOffset(let date): .dateTimeOffset(date, offsetMinutes: 0)
        case .date(let year, let month, let day): .date(String(format: "%04d-%02d-%02d", year, month, day))
        case .timeOfDay(let hour, let minute, let second):
            .timeOfDay(String(format: "%02d:%02d:%02d", hour, minute, second))
        case .duration(let text): .duration(text)
        case .binary(let data): .binary(data)
        case .enumMember(_, let member): .enumMember(member)
        case .raw(let text): .string(text)
        }
    }
}
