import Foundation
import SatchelCMISCore

extension CMISRepository {
    /// The object's property bag with `updates` applied and every system property brought in step with the
    /// object's fields, in the order of the type's definitions. `cmis:path` is left out: it depends on the folders
    /// above and is computed when the object is read.
    func stamp(
        _ object: StoredObject, setting updates: [String: [PropertyValue]], by user: String, creating: Bool
    ) -> Properties {
        guard let type = types.type(object.typeId) else { return object.properties }
        var values: [String: [PropertyValue]] = [:]
        for property in object.properties { values[property.id] = property.values }
        for (id, newValues) in updates { values[id] = newValues }
        values["cmis:objectId"] = [.id(object.id)]
        values["cmis:baseTypeId"] = [.id(object.baseTypeId.rawValue)]
        values["cmis:objectTypeId"] = [.id(object.typeId)]
        values["cmis:name"] = object.name.isEmpty && object.baseTypeId == .relationship ? [] : [.string(object.name)]
        values["cmis:creationDate"] = [.datetime(object.createdAt)]
        values["cmis:lastModificationDate"] = [.datetime(object.modifiedAt)]
        values["cmis:changeToken"] = [.string(String(object.changeToken))]
        values["cmis:lastModifiedBy"] = [.string(user)]
        if creating || values["cmis:createdBy"]?.isEmpty ?? true { values["cmis:createdBy"] = [.string(user)] }
        if values["cmis:secondaryObjectTypeIds"] == nil { values["cmis:secondaryObjectTypeIds"] = [] }
        switch object.baseTypeId {
        case .folder:
            values["cmis:parentId"] = object.parentIds.first.map { [.id($0)] } ?? []
            values["cmis:allowedChildObjectTypeIds"] = []
        case .document:
            let content = object.content
            values["cmis:contentStreamLength"] = content.map { [.integer($0.length)] } ?? []
            values["cmis:contentStreamMimeType"] = content.map { [.string($0.mimeType)] } ?? []
            values["cmis:contentStreamFileName"] = content?.fileName.map { [.string($0)] } ?? []
            values["cmis:contentStreamId"] = []
            values["cmis:isLatestVersion"] = [.boolean(object.isLatestVersion)]
            values["cmis:isPrivateWorkingCopy"] = [.boolean(object.isPrivateWorkingCopy)]
            values["cmis:versionSeriesId"] = object.versionSeriesId.map { [.id($0)] } ?? []
            values["cmis:isImmutable"] = [.boolean(!object.isLatestVersion && !object.isPrivateWorkingCopy)]
        case .relationship:
            values["cmis:sourceId"] = object.sourceId.map { [.id($0)] } ?? []
            values["cmis:targetId"] = object.targetId.map { [.id($0)] } ?? []
        default:
            break
        }
        var properties: [CMISProperty] = []
        properties.reserveCapacity(type.propertyDefinitions.count)
        for definition in type.propertyDefinitions where definition.id != "cmis:path" {
            properties.append(CMISProperty(definition: definition, values: values[definition.id] ?? []))
        }
        return Properties(properties)
    }

    /// A document's versioning properties.
    static func versioning(
        label: String, major: Bool, latestMajor: Bool, checkedOut: (id: String, by: String)?, comment: String?
    ) -> [String: [PropertyValue]] {
        [
            "cmis:versionLabel": [.string(label)],
            "cmis:isMajorVersion": [.boolean(major)],
            "cmis:isLatestMajorVersion": [.boolean(latestMajor)],
            "cmis:isVersionSeriesCheckedOut": [.boolean(checkedOut != nil)],
            "cmis:versionSeriesCheckedOutId": checkedOut.map { [.id($0.id)] } ?? [],
            "cmis:versionSeriesCheckedOutBy": checkedOut.map { [.string($0.by)] } ?? [],
            "cmis:checkinComment": comment.map { [.string($0)] } ?? [],
        ]
    }
}

extension StoredObject {
    /// The first value of a property in the bag.
    func value(_ id: String) -> PropertyValue? { properties[id]?.values.first }

    var isCheckedOut: Bool { value("cmis:isVersionSeriesCheckedOut")?.boolValue ?? false }
    var checkedOutId: String? { value("cmis:versionSeriesCheckedOutId")?.stringValue }
    var checkedOutBy: String? { value("cmis:versionSeriesCheckedOutBy")?.stringValue }
    var versionLabel: String? { value("cmis:versionLabel")?.stringValue }
    var isMajorVersion: Bool { value("cmis:isMajorVersion")?.boolValue ?? false }
    var lastModifiedBy: String { value("cmis:lastModifiedBy")?.stringValue ?? "" }
}
