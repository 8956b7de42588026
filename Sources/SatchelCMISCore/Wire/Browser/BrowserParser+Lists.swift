public import Foundation
import SatchelJSON

extension BrowserParser {
    /// A page of a folder's children (`cmisselector=children`): `{objects:[{object:{…}, pathSegment}], …}`.
    public static func children(
        _ data: Data, typeDefinition: TypeLookup = { _ in nil }
    ) throws
        -> ObjectInFolderList
    {
        try parse(data, typeDefinition) { json, types in
            ObjectInFolderList(
                objects: try json.require("objects").array().map { try objectInFolder(from: $0, types: types) },
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"))
        }
    }

    /// A folder tree (`cmisselector=descendants` or `folderTree`):
    /// `[{object:{object:{…}, pathSegment}, children:[…]}]`.
    public static func descendants(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> [ContainerNode] {
        try parse(data, typeDefinition) { json, types in
            try json.array().map { try containerNode(from: $0, types: types) }
        }
    }

    /// An object's parents (`cmisselector=parents`): `[{object:{…}, relativePathSegment}]`.
    public static func parents(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> [ObjectParent] {
        try parse(data, typeDefinition) { json, types in
            try json.array().map { entry in
                ObjectParent(
                    object: try object(from: entry.require("object"), types: types, requireId: true),
                    relativePathSegment: try entry.string("relativePathSegment"))
            }
        }
    }

    /// Query results (`cmisselector=query` or `cmisaction=query`): `{results:[{properties:{…}}], …}`.
    /// Results need not carry `cmis:objectId` (the statement may not select it); properties may be keyed by
    /// query name or alias.
    public static func queryResults(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> ObjectList {
        try parse(data, typeDefinition) { json, types in
            ObjectList(
                objects: try objects(json.require("results"), types: types, requireId: false),
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"))
        }
    }

    /// A list of objects (`checkedout`, `relationships`, `versions` selectors): `{objects:[{…}], …}`, or a
    /// bare array (as `versions` returns).
    public static func objectList(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> ObjectList {
        try parse(data, typeDefinition) { json, types in
            if json.value.arrayValue != nil {
                return ObjectList(objects: try objects(json, types: types, requireId: true))
            }
            return ObjectList(
                objects: try objects(json.require("objects"), types: types, requireId: true),
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"))
        }
    }

    /// A page of the change log (`cmisselector=contentChanges`): `{objects:[…], changeLogToken, …}`.
    public static func contentChanges(
        _ data: Data, typeDefinition: TypeLookup = { _ in nil }
    ) throws
        -> ContentChanges
    {
        try parse(data, typeDefinition) { json, types in
            ContentChanges(
                objects: try objects(json.require("objects"), types: types, requireId: true),
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"),
                changeLogToken: try json.string("changeLogToken"))
        }
    }

    /// The objects of a JSON array of objects.
    static func objects(_ json: BrowserJSON, types: PropertyTyping, requireId: Bool) throws -> [CMISObject] {
        try json.array().map { try object(from: $0, types: types, requireId: requireId) }
    }

    static func objectInFolder(from json: BrowserJSON, types: PropertyTyping) throws -> ObjectInFolder {
        ObjectInFolder(
            object: try object(from: json.require("object"), types: types, requireId: true),
            pathSegment: try json.string("pathSegment"))
    }

    static func containerNode(from json: BrowserJSON, types: PropertyTyping) throws -> ContainerNode {
        ContainerNode(
            item: try objectInFolder(from: json.require("object"), types: types),
            children: try json["children"]?.array().map { try containerNode(from: $0, types: types) } ?? [])
    }
}
