import Foundation
import SatchelText
import SatchelCMISCore
import SatchelRepository

/// Properties sent as `propertyId[n]` / `propertyValue[n]` (or `propertyValue[n][m]`) form fields.
struct FormProperty {
    var id: String
    var values: [String]
    var multi: Bool
}

extension BrowserParameters {
    /// The form properties, bounded by the request limits.
    func formProperties(limits: RequestLimits) throws(CMISError) -> [FormProperty] {
        let ids = entries("propertyId")
        guard ids.count <= limits.maxProperties else {
            throw CMISError(.invalidArgument, "the request has more than \(limits.maxProperties) properties")
        }
        let values = indexed["propertyValue"] ?? [:]
        var properties: [FormProperty] = []
        for (index, entry) in ids {
            guard let id = entry.value, !id.isEmpty else { continue }
            let valueEntry = values[index]
            if let multiple = valueEntry?.values, !multiple.isEmpty {
                properties.append(
                    FormProperty(id: id, values: multiple.sorted { $0.key < $1.key }.map(\.value), multi: true))
            } else {
                properties.append(FormProperty(id: id, values: valueEntry?.value.map { [$0] } ?? [], multi: false))
            }
        }
        return properties
    }
}

/// Types form properties with the definitions of the object's type and secondary types.
enum PropertyTyping {
    static func typed(_ form: [FormProperty], definitions: [TypeDefinition]) throws(CMISError) -> Properties {
        var properties = Properties()
        for property in form {
            let definition = definitions.lazy.compactMap { $0.propertyDefinition(id: property.id) }.first
            let type = definition?.propertyType ?? standardTypes[property.id] ?? .string
            let cardinality = definition?.cardinality ?? (property.multi ? .multi : .single)
            var values: [PropertyValue] = []
            for text in property.values {
                if text.isEmpty && type != .string { continue }
                values.append(try value(text, type: type, propertyId: property.id))
            }
            if cardinality == .single && values.count > 1 {
                throw CMISError(.constraint, "property \(property.id) is single-valued but got \(values.count) values")
            }
            properties[property.id] = CMISProperty(
                id: property.id, type: type, cardinality: cardinality, values: values,
                localName: definition?.localName, displayName: definition?.displayName,
                queryName: definition?.queryName)
        }
        return properties
    }

    static func value(_ text: String, type: PropertyType, propertyId: String) throws(CMISError) -> PropertyValue {
        func bad() -> CMISError {
            CMISError(
                .invalidArgument, "property \(propertyId): \"\(text.prefix(40))\" is not a valid \(type.rawValue)")
        }
        switch type {
        case .string: return .string(text)
        case .id: return .id(text)
        case .uri: return .uri(text)
        case .html: return .html(text)
        case .boolean:
            switch text.lowercased() {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: throw bad()
            }
        case .integer:
            guard let number = Int64(text) else { throw bad() }
            return .integer(number)
        case .decimal:
            guard text.count <= 64, let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                !number.isNaN
            else { throw bad() }
            return .decimal(number)
        case .datetime:
            if let milliseconds = Int64(text) {
                return .datetime(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            }
            if let date = ISO8601Timestamp.date(from: text) { return .datetime(date) }
            throw bad()
        }
    }

    /// Standard properties, for when no type definition is at hand.
    static let standardTypes: [String: PropertyType] = {
        var table: [String: PropertyType] = [:]
        for id in [
            "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId", "cmis:versionSeriesId",
            "cmis:versionSeriesCheckedOutId", "cmis:contentStreamId", "cmis:parentId", "cmis:sourceId",
            "cmis:targetId", "cmis:secondaryObjectTypeIds", "cmis:allowedChildObjectTypeIds", "cmis:policyIds",
        ] { table[id] = .id }
        for id in ["cmis:creationDate", "cmis:lastModificationDate"] { table[id] = .datetime }
        table["cmis:contentStreamLength"] = .integer
        return table
    }()
}

extension BrowserCall {
    /// Types form properties for a new object: its type comes from `cmis:objectTypeId` (or `defaultType`).
    func propertiesForCreate(defaultType: String?) async throws -> Properties {
        let form = try parameters.formProperties(limits: environment.limits)
        var typeIds: [String] = []
        if let typeId = form.first(where: { $0.id == "cmis:objectTypeId" })?.values.first ?? defaultType {
            typeIds.append(typeId)
        }
        typeIds += form.first { $0.id == "cmis:secondaryObjectTypeIds" }?.values ?? []
        let known = try await definitions(typeIds)
        var properties = try PropertyTyping.typed(form, definitions: known)
        if properties["cmis:objectTypeId"] == nil, let defaultType {
            properties["cmis:objectTypeId"] = CMISProperty(
                id: "cmis:objectTypeId", type: .id, values: [.id(defaultType)])
        }
        return properties
    }

    /// Types form properties for an existing object (update, check-in).
    func propertiesForUpdate(objectId: String) async throws -> Properties {
        let form = try parameters.formProperties(limits: environment.limits)
        guard !form.isEmpty else { return Properties() }
        let current = try await service.object(
            repositoryId: try repositoryId(), id: objectId,
            context: OperationContext(filter: ["cmis:objectTypeId", "cmis:secondaryObjectTypeIds"]), caller: caller)
        var typeIds = [current.objectTypeId].compactMap { $0 } + current.secondaryObjectTypeIds
        typeIds += form.first { $0.id == "cmis:secondaryObjectTypeIds" }?.values ?? []
        let known = try await definitions(typeIds)
        return try PropertyTyping.typed(form, definitions: known)
    }

    /// The definitions of these types; unknown ids are left to the repository to refuse.
    func definitions(_ typeIds: [String]) async throws -> [TypeDefinition] {
        var result: [TypeDefinition] = []
        for typeId in Array(Set(typeIds)).prefix(32) {
            do {
                result.append(
                    try await service.typeDefinition(repositoryId: try repositoryId(), typeId: typeId, caller: caller))
            } catch let error as CMISError where error.code == .objectNotFound || error.code == .invalidArgument {
                continue
            }
        }
        return result
    }
}
