import Foundation
import SatchelJSON

extension BrowserParser {
    /// A page of a folder's children (`cmisselector=children`): `{objects:[{object:{…}, pathSegment}], …}`.
    public static func children(
        _ data: Data, typeDefinition: TypeLookup = { _ in nil }
    ) throws
        -> ObjectInFolderList
    {
        try withTyping(typeDefinition) { types in
            let json = try BrowserJSON.parse(data)
            return ObjectInFolderList(
                objects: try json.require("objects").array().map { try objectInFolder(from: $0, types: types) },
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"))
        }
    }

    /// A folder tree (`cmisselector=descendants` or `folderTree`):
    /// `[{object:{object:{…}, pathSegment}, children:[…]}]`.
    public static func descendants(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> [ContainerNode] {
        try withTyping(typeDefinition) { types in
            return try BrowserJSON.parse(data).array().map { try containerNode(from: $0, types: types) }
        }
    }

    /// An object's parents (`cmisselector=parents`): `[{object:{…}, relativePathSegment}]`.
    public static func parents(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> [ObjectParent] {
        try withTyping(typeDefinition) { types in
            return try BrowserJSON.parse(data).array().map { entry in
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
        try withTyping(typeDefinition) { types in
            let json = try BrowserJSON.parse(data)
            return ObjectList(
                objects: try json.require("results").array().map {
                    try object(from: $0, types: types, requireId: false)
                },
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"))
        }
    }

    /// A list of objects (`checkedout`, `relationships`, `versions` selectors): `{objects:[{…}], …}`, or a
    /// bare array (as `versions` returns).
    public static func objectList(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> ObjectList {
        try withTyping(typeDefinition) { types in
            let json = try BrowserJSON.parse(data)
            if json.value.arrayValue != nil {
                return ObjectList(
                    objects: try json.array().map { try object(from: $0, types: types, requireId: true) })
            }
            return ObjectList(
                objects: try json.require("objects").array().map {
                    try object(from: $0, types: types, requireId: true)
                },
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
        try withTyping(typeDefinition) { types in
            let json = try BrowserJSON.parse(data)
            return ContentChanges(
                objects: try json.require("objects").array().map {
                    try object(from: $0, types: types, requireId: true)
                },
                hasMoreItems: try json.bool("hasMoreItems") ?? false,
                numItems: try json.int64("numItems"),
                changeLogToken: try json.string("changeLogToken"))
        }
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
