public import SatchelJSON

/// An app's own Nuxeo entity type: what a server answers or accepts under an `entity-type` this client does not
/// model (a workflow, a task, a directory entry, a plug-in's entity), read from and written as its JSON.
///
/// ```swift
/// struct Workflow: NuxeoEntityType {
///     static let entityType = "workflow"
///     var id: String
///     var name: String
///
///     init(id: String, name: String) {
///         self.id = id
///         self.name = name
///     }
///
///     init(nuxeoEntity json: JSONValue) throws {
///         guard let id = json["id"]?.stringValue, let name = json["name"]?.stringValue else {
///             throw NuxeoError(.invalidResponse, "a workflow without id or name")
///         }
///         self.init(id: id, name: name)
///     }
///
///     var nuxeoEntityMembers: JSONObject { ["id": .string(id), "name": .string(name)] }
/// }
///
/// var configuration = NuxeoSession.Configuration(serverURL: server)
/// configuration.entityTypes.register(Workflow.self)   // entity(_:) now answers .registered for workflows
/// let started = try await session.entity(
///     .id(documentID).adapter("workflow"), sending: Workflow(id: "", name: "SerialDocumentReview"),
///     as: Workflow.self)
/// ```
public protocol NuxeoEntityType: Sendable {
    /// The `entity-type` this type reads and writes.
    static var entityType: String { get }
    /// Reads one from the entity's JSON (an object; its `entity-type` is this type's). Throws when the JSON does
    /// not hold one: the error reaches the caller inside a `NuxeoError` naming the entity type.
    init(nuxeoEntity json: JSONValue) throws
    /// The entity's members, in the order to write them, without `entity-type` (the writer puts it first).
    var nuxeoEntityMembers: JSONObject { get }
}

extension NuxeoEntityType {
    /// The entity as Nuxeo's JSON: `entity-type` first, then the type's members (a member named `entity-type` is
    /// left out: the type's own name wins).
    public var nuxeoEntityJSON: JSONValue {
        var object = JSONObject()
        object.append(key: "entity-type", value: .string(Self.entityType))
        for member in nuxeoEntityMembers where member.key != "entity-type" {
            object.append(key: member.key, value: member.value)
        }
        return .object(object)
    }

    /// Reads an entity's JSON as this type, checking its `entity-type` first.
    static func read(_ value: JSONValue) throws(NuxeoError) -> Self {
        let found = value["entity-type"]?.stringValue
        guard found == entityType else {
            throw NuxeoError(
                .invalidResponse,
                "expected a \(entityType) entity, the server answered "
                    + (found.map { "a \(String($0.prefix(100))) entity" } ?? "JSON without an entity-type"))
        }
        do {
            return try Self(nuxeoEntity: value)
        } catch let error as NuxeoError {
            throw error
        } catch {
            throw NuxeoError(.invalidResponse, "the \(entityType) entity could not be read: \(error)")
        }
    }
}

/// The entity types an app registers, by `entity-type`: `NuxeoEntity` reads an entity of one of them as
/// `.registered`, instead of `.other` with its bare JSON. The types Satchel models itself (`document`,
/// `documents`, `login`, `user`, `group`, `acls`, `exception`) are always read as Satchel's; registering one of
/// those names changes nothing.
public struct NuxeoEntityRegistry: Sendable {
    private var types: [String: any NuxeoEntityType.Type]

    /// A registry of these types (a later one with the same `entity-type` replaces an earlier one).
    public init(_ types: [any NuxeoEntityType.Type] = []) {
        self.types = [:]
        for type in types { register(type) }
    }

    /// Adds `type` under its `entity-type`, replacing a type registered before under the same name.
    public mutating func register(_ type: any NuxeoEntityType.Type) {
        types[type.entityType] = type
    }

    /// The type registered under `entityType`, if any.
    public func type(for entityType: String) -> (any NuxeoEntityType.Type)? { types[entityType] }

    /// The `entity-type`s registered, sorted.
    public var entityTypes: [String] { types.keys.sorted() }

    /// Reads `value` as the type registered for its `entity-type`; nil when none is registered.
    func read(_ value: JSONValue, entityType: String) throws(NuxeoError) -> (any NuxeoEntityType)? {
        guard let type = types[entityType] else { return nil }
        return try type.read(value)
    }
}

/// An entity of a type the app registered: the value its type read, and the JSON it was read from.
public struct NuxeoRegisteredEntity: Sendable, Hashable {
    /// What the registered type made of the entity.
    public let value: any NuxeoEntityType
    /// The entity as sent.
    public let json: JSONValue

    /// The value as `type`, when it is one.
    public func value<T: NuxeoEntityType>(as type: T.Type) -> T? { value as? T }

    /// Equal when they were read from the same JSON.
    public static func == (lhs: NuxeoRegisteredEntity, rhs: NuxeoRegisteredEntity) -> Bool { lhs.json == rhs.json }

    /// Hashes the JSON the entity was read from.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}
