public import Foundation
public import SatchelJSON

/// Writes entities for create and update requests, in the shape each version expects: V2 verbose JSON
/// (`/Date(ms)/`, links as `__metadata.uri` references) or V4 JSON (`@odata.type`, `Nav@odata.bind`). Nested
/// entities are written inline (deep insert).
///
/// Numbers follow the V2 JSON format's table of primitive types: Edm.Boolean, Byte, SByte, Int16 and Int32 are
/// JSON numbers (or booleans); Edm.Int64, Decimal, Double and Single are their literal forms as JSON strings. With
/// ``metadata``, each property is written as its declared type says (a whole number for an Edm.Double property
/// goes as `"3"`); without it, a V2 Double or Decimal is a string, and an integer a number unless it is beyond
/// Int32. V4 writes numbers as numbers.
///
/// ```swift
/// var student = ODataEntity(type: "ZADMISSIONS_SRV.Student")
/// student["LastName"] = "Lovelace"
/// student.bind("School", to: "SchoolSet('S1')")
/// let body = try ODataPayloadWriter(version: .v2).data(for: student)
/// ```
public struct ODataPayloadWriter: Sendable {
    /// The version whose JSON shape is written.
    public var version: ODataVersion
    /// The service root, to make V2 binding paths absolute (`__metadata.uri`).
    public var serviceURL: URL?
    /// The service's metadata: when it describes an entity's type, each property is written as declared.
    public var metadata: ODataMetadata?

    /// A writer for `version`; `serviceURL` makes V2 binding paths absolute; `metadata` types the values.
    public init(version: ODataVersion, serviceURL: URL? = nil, metadata: ODataMetadata? = nil) {
        self.version = version
        self.serviceURL = serviceURL
        self.metadata = metadata
    }

    /// The JSON bytes of an entity; `type` (the entity set's type) types its values when the entity names none
    /// the metadata knows.
    public func data(for entity: ODataEntity, type: CSDLEntityType? = nil) throws -> Data {
        Data(try json(for: entity, type: type).serialized())
    }

    /// The entity as a JSON value; `type` as in ``data(for:type:)``.
    public func json(for entity: ODataEntity, type: CSDLEntityType? = nil) throws -> JSONValue {
        var object = JSONObject()
        if let type = entity.type {
            if version == .v2 {
                object.append(key: "__metadata", value: ["type": .string(type)])
            } else {
                object.append(key: "@odata.type", value: .string("#" + type))
            }
        }
        let declared = declaredProperties(of: entity.type.flatMap { metadata?.entityType(named: $0) } ?? type)
        for (name, value) in entity.properties {
            object.append(key: name, value: try json(for: value, declared: declared[name], at: name))
        }
        for (navigation, paths) in entity.bindings.sorted(by: { $0.key < $1.key }) {
            let isMany =
                paths.count > 1 || entity.properties[navigation]?.entitiesValue != nil
                || entity.collectionBindings.contains(navigation)
            if version == .v4 {
                object.append(
                    key: navigation + "@odata.bind",
                    value: isMany ? .array(paths.map { .string($0) }) : .string(paths.first ?? ""))
            } else {
                let references: [JSONValue] = paths.map { ["__metadata": ["uri": .string(absolute($0))]] }
                object.append(
                    key: navigation, value: isMany || references.count != 1 ? .array(references) : references[0])
            }
        }
        return .object(object)
    }

    /// A parameter object for a V4 action (`{"userName": "x", "tripId": 3}`).
    public func json(forParameters parameters: ODataProperties) throws -> JSONValue {
        var object = JSONObject()
        for (name, value) in parameters { object.append(key: name, value: try json(for: value, at: name)) }
        return .object(object)
    }

    /// The declared type of each property of `type` (its base types' included), by name.
    private func declaredProperties(of type: CSDLEntityType?) -> [String: CSDLTypeReference] {
        guard let type else { return [:] }
        let properties = metadata?.allProperties(of: type) ?? type.properties
        return Dictionary(properties.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
    }

    /// One value in the version's JSON form.
    public func json(for value: ODataValue, at location: String = "$") throws -> JSONValue {
        try json(for: value, declared: nil, at: location)
    }

    /// One value in the version's JSON form, as its declared type says when it is known.
    func json(for value: ODataValue, declared: CSDLTypeReference?, at location: String) throws -> JSONValue {
        let v2 = version == .v2
        // V2: Int64, Decimal, Double and Single go as strings; the smaller integers as numbers.
        let asString: Bool? = declared.flatMap { declared in
            guard v2, !declared.isCollection, let primitive = declared.primitive else { return nil }
            switch primitive {
            case .int64, .decimal, .double, .single: return true
            case .byte, .sbyte, .int16, .int32: return false
            default: return nil
            }
        }
        switch value {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value):
            // Without a declared type, an integer beyond Int32 can only be an Int64: a string in V2.
            let string = asString ?? (v2 && (value > Int64(Int32.max) || value < Int64(Int32.min)))
            return string ? .string(String(value)) : .number(JSONNumber(value))
        case .decimal(let value):
            if asString ?? v2 { return .string("\(value)") }
            guard let number = JSONNumber(value) else { throw Self.unwritable(value, at: location) }
            return .number(number)
        case .double(let value):
            if value.isNaN { return .string("NaN") }
            if value.isInfinite { return .string(value < 0 ? "-INF" : "INF") }
            guard let number = JSONNumber(value) else { throw Self.unwritable(value, at: location) }
            return asString ?? v2 ? .string(number.text) : .number(number)
        case .string(let text), .date(let text), .timeOfDay(let text), .duration(let text), .enumMember(let text):
            return .string(text)
        case .guid(let uuid): return .string(uuid.uuidString.lowercased())
        case .dateTime(let date):
            return .string(v2 ? ODataDateFormat.v2JSONDate(date) : ODataDateFormat.iso8601(date))
        case .dateTimeOffset(let date, let offset):
            // The offset the value was read with goes back with it.
            return .string(
                v2
                    ? ODataDateFormat.v2JSONDate(date, offsetMinutes: offset)
                    : ODataDateFormat.iso8601(date, offsetMinutes: offset ?? 0))
        case .binary(let data):
            return .string(v2 ? data.base64EncodedString() : ODataBinary.encodeURL(data))
        case .geo(let json), .json(let json): return json
        case .complex(let properties):
            let complex = declared.flatMap { metadata?.complexType(named: $0.name) }
            var object = JSONObject()
            for (name, value) in properties {
                object.append(
                    key: name,
                    value: try json(for: value, declared: complex?.property(name)?.type, at: location + "." + name))
            }
            return .object(object)
        case .collection(let values):
            var element = declared
            element?.isCollection = false
            return .array(
                try values.enumerated().map { try json(for: $1, declared: element, at: location + "[\($0)]") })
        case .entity(let entity):
            return try json(for: entity, type: declared.flatMap { metadata?.entityType(named: $0.name) })
        case .entities(let entities):
            let type = declared.flatMap { metadata?.entityType(named: $0.name) }
            return .array(try entities.map { try json(for: $0, type: type) })
        }
    }

    func absolute(_ path: String) -> String {
        // `$1`: an entity created earlier in the same changeset.
        guard let serviceURL, !path.hasPrefix("http"), !path.hasPrefix("$") else { return path }
        return serviceURL.appendingPathComponent(path).absoluteString
    }

    private static func unwritable(_ value: Any, at location: String) -> ODataError {
        ODataError(.invalidArgument, "\(value) cannot be written as JSON", location: location)
    }
}
