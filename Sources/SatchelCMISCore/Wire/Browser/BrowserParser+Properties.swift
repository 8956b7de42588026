import Foundation
import SatchelText
import SatchelJSON

extension BrowserParser {
    /// Full properties: `{ "cmis:name": {id, type, cardinality, value, …}, … }`.
    static func fullProperties(from json: BrowserJSON) throws -> Properties {
        var properties = Properties()
        for (key, entry) in try json.members() {
            let type = try enumValue(PropertyType.self, entry.require("type"))
            let cardinality = try entry["cardinality"].map { try enumValue(Cardinality.self, $0) } ?? .single
            let values = try entry["value"].map { try propertyValues($0, type: type) } ?? []
            // Query results may select one property twice under two query names (`cmis:name AS a, cmis:name
            // AS b`): the second is kept under its query name rather than replacing the first.
            var id = try entry.string("id") ?? key
            if properties[id] != nil, key != id { id = key }
            properties[id] = CMISProperty(
                id: id, type: type, cardinality: cardinality, values: values,
                localName: try entry.string("localName"), displayName: try entry.string("displayName"),
                queryName: try entry.string("queryName"))
        }
        return properties
    }

    /// Succinct properties: `{ "cmis:name": "x", … }`, typed through the object's type definitions.
    static func succinctProperties(from json: BrowserJSON, types: PropertyTyping) throws -> Properties {
        let object = try json.object()
        // The type (and secondary types) come from the properties themselves.
        var typeIds: [String] = []
        if let typeId = object["cmis:objectTypeId"]?.stringValue { typeIds.append(typeId) }
        if let secondary = object["cmis:secondaryObjectTypeIds"]?.arrayValue {
            typeIds += secondary.compactMap(\.stringValue)
        }
        types.begin(typeIds: typeIds)
        let base = json.path
        var properties: [CMISProperty] = []
        properties.reserveCapacity(object.count)
        for (index, (key, value)) in object.enumerated() {
            let entry = BrowserJSON(member: key, of: base, value: value)
            if var property = types.definedProperty(at: index, key: key) {
                property.values = try propertyValues(entry, type: property.type)
                properties.append(property)
                continue
            }
            let (type, cardinality) = standardProperties[key] ?? inferredType(of: value)
            properties.append(
                CMISProperty(
                    id: key, type: type, cardinality: cardinality, values: try propertyValues(entry, type: type)))
        }
        return types.finish(properties)
    }

    /// The type of a value with no definition: arrays are multi-valued, integer lexemes integers,
    /// other numbers decimals.
    static func inferredType(of value: JSONValue) -> (PropertyType, Cardinality) {
        switch value {
        case .bool: return (.boolean, .single)
        case .number(let number): return (number.isInteger ? .integer : .decimal, .single)
        case .array(let elements):
            guard let first = elements.first(where: { !$0.isNull }) else { return (.string, .multi) }
            if case .number = first {
                let allIntegers = elements.allSatisfy { $0.numberValue?.isInteger ?? true }
                return (allIntegers ? .integer : .decimal, .multi)
            }
            return (inferredType(of: first).0, .multi)
        default: return (.string, .single)
        }
    }

    /// Converts a property's JSON value (scalar, array or null) to typed values.
    static func propertyValues(_ json: BrowserJSON, type: PropertyType) throws -> [PropertyValue] {
        switch json.value {
        case .null: return []
        case .array(let elements) where elements.isEmpty: return []
        case .array: return try json.array().compactMap { $0.value.isNull ? nil : try propertyValue($0, type: type) }
        default: return [try propertyValue(json, type: type)]
        }
    }

    static func propertyValue(_ json: BrowserJSON, type: PropertyType) throws -> PropertyValue {
        switch type {
        case .string: return .string(try json.string())
        case .id: return .id(try json.string())
        case .uri: return .uri(try json.string())
        case .html: return .html(try json.string())
        case .boolean: return .boolean(try json.bool())
        case .integer: return .integer(try json.int64())
        case .decimal:
            guard let number = json.value.numberValue else { throw json.shapeError("a number") }
            guard let decimal = number.decimalValue else {
                throw CMISError(
                    .invalidResponse, "number \(number.text) is not representable as Decimal", path: json.path)
            }
            return .decimal(decimal)
        case .datetime:
            return .datetime(try date(json))
        }
    }

    /// Browser binding datetimes are epoch milliseconds, or ISO 8601 text with `dateTimeFormat=extended`.
    static func date(_ json: BrowserJSON) throws -> Date {
        switch json.value {
        case .number(let number):
            guard
                let milliseconds = number.int64Value ?? number.doubleValue.map({ Int64(exactly: $0.rounded()) }) ?? nil
            else { throw CMISError(.invalidResponse, "datetime \(number.text) is out of range", path: json.path) }
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        case .string(let text):
            if let date = ISO8601Timestamp.date(from: text) { return date }
            throw CMISError(.invalidResponse, "invalid datetime \"\(text)\"", path: json.path)
        default:
            throw json.shapeError("a datetime")
        }
    }

    /// Types of the properties every repository defines, used when no type definition is at hand.
    static let standardProperties: [String: (PropertyType, Cardinality)] = {
        var table: [String: (PropertyType, Cardinality)] = [:]
        for id in [
            "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId", "cmis:versionSeriesId",
            "cmis:versionSeriesCheckedOutId", "cmis:contentStreamId", "cmis:parentId", "cmis:sourceId",
            "cmis:targetId",
        ] { table[id] = (.id, .single) }
        for id in ["cmis:secondaryObjectTypeIds", "cmis:allowedChildObjectTypeIds", "cmis:policyIds"] {
            table[id] = (.id, .multi)
        }
        for id in [
            "cmis:name", "cmis:description", "cmis:createdBy", "cmis:lastModifiedBy", "cmis:changeToken",
            "cmis:versionLabel", "cmis:versionSeriesCheckedOutBy", "cmis:checkinComment",
            "cmis:contentStreamMimeType", "cmis:contentStreamFileName", "cmis:path", "cmis:policyText",
        ] { table[id] = (.string, .single) }
        for id in ["cmis:creationDate", "cmis:lastModificationDate"] { table[id] = (.datetime, .single) }
        for id in [
            "cmis:isImmutable", "cmis:isLatestVersion", "cmis:isMajorVersion", "cmis:isLatestMajorVersion",
            "cmis:isPrivateWorkingCopy", "cmis:isVersionSeriesCheckedOut",
        ] { table[id] = (.boolean, .single) }
        table["cmis:contentStreamLength"] = (.integer, .single)
        return table
    }()
}
