import Foundation

/// A page of objects (`query`, `getCheckedOutDocs`, `getObjectRelationships` …).
///
/// ```swift
/// let page = try BrowserParser.queryResults(data)
/// for object in page.objects { print(object.name ?? "") }
/// if page.hasMoreItems { /* ask for skipCount + page.objects.count */ }
/// ```
public struct ObjectList: Sendable, Hashable {
    public var objects: [CMISObject]
    /// Whether more objects follow this page.
    public var hasMoreItems: Bool
    /// The total number of objects, when the repository knows it.
    public var numItems: Int64?

    public init(objects: [CMISObject], hasMoreItems: Bool = false, numItems: Int64? = nil) {
        self.objects = objects
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
    }
}

/// An object in a folder, with its path segment (`getChildren`, `getDescendants`).
public struct ObjectInFolder: Sendable, Hashable {
    public var object: CMISObject
    /// The object's name in this folder, when asked for (`includePathSegment`).
    public var pathSegment: String?

    public init(object: CMISObject, pathSegment: String? = nil) {
        self.object = object
        self.pathSegment = pathSegment
    }
}

/// A page of a folder's children (`getChildren`).
public struct ObjectInFolderList: Sendable, Hashable {
    public var objects: [ObjectInFolder]
    public var hasMoreItems: Bool
    public var numItems: Int64?

    public init(objects: [ObjectInFolder], hasMoreItems: Bool = false, numItems: Int64? = nil) {
        self.objects = objects
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
    }
}

/// A node of a folder tree (`getDescendants`, `getFolderTree`): an object and its children.
public struct ContainerNode: Sendable, Hashable {
    public var item: ObjectInFolder
    public var children: [ContainerNode]

    public init(item: ObjectInFolder, children: [ContainerNode] = []) {
        self.item = item
        self.children = children
    }

    /// The node's object.
    public var object: CMISObject { item.object }
}

/// A parent of an object (`getObjectParents`), with the object's name in that parent.
public struct ObjectParent: Sendable, Hashable {
    public var object: CMISObject
    public var relativePathSegment: String?

    public init(object: CMISObject, relativePathSegment: String? = nil) {
        self.object = object
        self.relativePathSegment = relativePathSegment
    }
}
