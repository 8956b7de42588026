import Foundation
public import SatchelJSON
import SatchelHTTP
import Synchronization

/// An Automation operation as the server's registry (`GET automation`) describes it.
public struct NuxeoOperationInfo: Sendable, Hashable {
    /// One parameter an operation takes.
    public struct Parameter: Sendable, Hashable {
        /// Its name, as `params` keys it.
        public var name: String
        /// `string`, `document`, `boolean`, `properties`…
        public var type: String
        /// Whether a call must give it (false when the registry does not say).
        public var isRequired: Bool
        /// Other names the server accepts for it.
        public var aliases: [String]
    }

    /// The operation's or chain's id (`Document.Fetch`).
    public var id: String
    /// Input and output types, in pairs (`["document", "document", "documents", "documents"]`).
    public var signature: [String]
    /// The parameters it takes (empty for a chain).
    public var parameters: [Parameter]
    /// A chain: its parameters are not listed.
    public var isChain: Bool

    init?(json value: JSONValue, isChain: Bool) {
        guard let id = value["id"]?.stringValue else { return nil }
        self.id = id
        self.isChain = isChain
        signature = value["signature"]?.arrayValue?.compactMap(\.stringValue) ?? []
        parameters = (value["params"]?.arrayValue ?? []).compactMap { param in
            guard let name = param["name"]?.stringValue else { return nil }
            return Parameter(
                name: name, type: param["type"]?.stringValue ?? "string",
                isRequired: param["required"]?.boolValue ?? false,
                aliases: param["aliases"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }
}

extension NuxeoSession {
    /// The server's Automation operations and chains by id (`GET automation`), read once per session.
    public func operations() async throws -> [String: NuxeoOperationInfo] {
        if let known = registry.withLock({ $0 }) { return known }
        let response = try await send(NuxeoRequest.resource("automation"))
        let json: JSONValue
        do {
            json = try JSONValue(parsing: response.body)
        } catch {
            throw NuxeoError(
                .invalidResponse, "the operation registry is not JSON: \(error)", operation: "GET automation")
        }
        guard let operations = json["operations"]?.arrayValue else {
            throw NuxeoError(
                .invalidResponse, "the operation registry lists no operations", operation: "GET automation")
        }
        var found: [String: NuxeoOperationInfo] = [:]
        for (list, isChain) in [(operations, false), (json["chains"]?.arrayValue ?? [], true)] {
            for entry in list {
                guard let info = NuxeoOperationInfo(json: entry, isChain: isChain) else { continue }
                found[info.id] = info
                // Operations are also known by their aliases.
                for alias in entry["aliases"]?.arrayValue?.compactMap(\.stringValue) ?? [] where found[alias] == nil {
                    found[alias] = info
                }
            }
        }
        registry.withLock { $0 = found }
        return found
    }

    /// Checks a call against the registry: the operation exists, every required parameter is given and every
    /// parameter given is one it takes. Throws ``NuxeoError/Code/invalidArgument`` naming what is wrong.
    public func check(_ operationID: String, params: [String: JSONValue]) async throws {
        guard let info = try await operations()[operationID] else {
            throw NuxeoError(.invalidArgument, "the server has no operation \(operationID)", operation: operationID)
        }
        guard !info.isChain else { return }
        for parameter in info.parameters where parameter.isRequired {
            guard ([parameter.name] + parameter.aliases).contains(where: { params[$0] != nil }) else {
                throw NuxeoError(
                    .invalidArgument, "\(operationID) needs the parameter \(parameter.name) (\(parameter.type))",
                    operation: operationID)
            }
        }
        let known = Set(info.parameters.flatMap { [$0.name] + $0.aliases })
        if let unknown = params.keys.sorted().first(where: { !known.contains($0) }) {
            let names = info.parameters.map(\.name).sorted().joined(separator: ", ")
            throw NuxeoError(
                .invalidArgument,
                "\(operationID) takes no parameter \(unknown) (it takes: \(names.isEmpty ? "none" : names))",
                operation: operationID)
        }
    }
}
