public import Foundation
public import SatchelJSON

/// Writes entities for create and update requests, in the shape each version expects: V2 verbose JSON
/// (Int64/Decimal as strings, `/Date(ms)/`, links as `__metadata.uri` references) or V4 JSON
/// (`@odata.type`, `Nav@odata.bind`). Nested entities are written inline (deep insert).
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

    /// A writer for `version`; `serviceURL` makes V2 binding paths absolute.
    public init(version: ODataVersion, serviceURL: URL? = nil) {
        self.version = version
        self.serviceURL = serviceURL
    }

    /// The JSON bytes of an entity.
    public func data(for entity: ODataEntity) throws -> Data {
        Data(try json(for: entity).serialized())
    }

    /// The entity as a JSON value.
    public func json(for entity: ODataEntity) throws -> JSONValue {
        var object = JSONObject()
        if let type = entity.type {
            if version == .v2 {
                object.append(key: "__metadata", value: ["type": .string(type)])
            } else {
                object.append(key: "@odata.type", value: .string("#" + type))
            }
        }
        for (name, value) in entity.properties {
            object.append(key: name, value: try json(for: value, at: name))
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

    /// One value in the version's JSON form.
    public func json(for value: ODataValue, at location: String = "$") throws -> JSONValue {
        let v2 = version == .v2
        switch value {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value):
            // Int64 travels as a string in V2; Int32 values fit a number either way, but the type is unknown
            // here, so large values are written as strings in V2.
            return v2 && (value > Int64(Int32.max) || value < Int64(Int32.min))
                ? .string(String(value)) : .number(JSONNumber(value))
        case .decimal(let value):
            if v2 { return .string("\(value)") }
            guard let number = JSONNumber(value) else { throw Self.unwritable(value, at: location) }
            return .number(number)
        case .double(let value):
            if value.isNaN { return .string("NaN") }
            if value.isInfinite { return .string(value < 0 ? "-INF" : "INF") }
            guard let number = JSONNumber(value) else { throw Self.unwritable(value, at: location) }
            return .number(number)
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
            var object = JSONObject()
            for (name, value) in properties {
                object.append(key: name, value: try json(for: value, at: location + "." + name))
            }
            return .object(object)
        case .collection(let values):
            return .array(try values.enumerated().map { try json(for: $1, at: location + "[\($0)]") })
        case .entity(let entity): return try json(for: entity)
        case .entities(let entities): return .array(try entities.map { try json(for: $0) })
        }
    }

    private func absolute(_ path: String) -> String {
        // `$1`: an entity created earlier in the same changeset.
        guard let serviceURL, !path.hasPrefix("http"), !path.hasPrefix("$") else { return path }
        return serviceURL.appendingPathComponent(path).absoluteString
    }

    private static func unwritable(_ value: Any, at location: String) -> ODataError {
        ODataError(.invalidArgument, "\(value) cannot be written as JSON", location: location)
    }
}
