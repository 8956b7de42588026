import Foundation

/// A page of objects (`query`, `getCheckedOutDocs`, `getObjectRelationships` …).
///
/// ```swift
/// let page = try BrowserParser.queryResults(data)
/// for object in page.objects { print(object.name ?? "") }
/// if page.hasMoreItems { /* ask for skipCount + page.objects.count */ }
/// ```
public struct ObjectList: Sendable, Hashable {
    /// The objects of this page.
    public var objects: [CMISObject]
    /// Whether more objects follow this page.
    public var hasMoreItems: Bool
    /// The total number of objects, when the repository knows it.
    public var numItems: Int64?

    /// A page of objects; `hasMoreItems` defaults to `false`, `numItems` to unknown.
    public init(objects: [CMISObject], hasMoreItems: Bool = false, numItems: Int64? = nil) {
        self.objects = objects
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
    }
}

/// An object in a folder, with its path segment (`getChildren`, `getDescendants`).
public struct ObjectInFolder: Sendable, Hashable {
    /// The child object.
    public var object: CMISObject
    /// The object's name in this folder, when asked for (`includePathSegment`).
    public var pathSegment: String?

    /// A child with its optional path segment.
    public init(object: CMISObject, pathSegment: String? = nil) {
        self.object = object
        self.pathSegment = pathSegment
    }
}

/// A page of a folder's children (`getChildren`).
public struct ObjectInFolderList: Sendable, Hashable {
    /// The children of this page.
    public var objects: [ObjectInFolder]
    /// Whether more children follow this page.
    public var hasMoreItems: Bool
    /// The total number of children, when the repository knows it.
    public var numItems: Int64?

    /// A page of children; `hasMoreItems` defaults to `false`, `numItems` to unknown.
    public init(objects: [ObjectInFolder], hasMoreItems: Bool = false, numItems: Int64? = nil) {
        self.objects = objects
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
    }
}

/// A node of a folder tree (`getDescendants`, `getFolderTree`): an object and its children.
public struct ContainerNode: Sendable, Hashable {
    /// The node's object and its path segment.
    public var item: ObjectInFolder
    /// The nodes one level below; empty for documents and for the depth's last level.
    public var children: [ContainerNode]

    /// A node with its children (none by default).
    public init(item: ObjectInFolder, children: [ContainerNode] = []) {
        self.item = item
        self.children = children
    }

    /// The node's object.
    public var object: CMISObject { item.object }
}

/// A parent of an object (`getObjectParents`), with the object's name in that parent.
public struct ObjectParent: Sendable, Hashable {
    /// The parent folder.
    public var object: CMISObject
    /// The object's name in this parent; `nil` when the response did not carry it.
    public var relativePathSegment: String?

    /// A parent with the object's optional path segment in it.
    public init(object: CMISObject, relativePathSegment: String? = nil) {
        self.object = object
        self.relativePathSegment = relativePathSegment
    }
}
