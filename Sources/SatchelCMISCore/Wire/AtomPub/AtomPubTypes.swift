public import Foundation
import SatchelText

/// One `atom:link` of an AtomPub entry, feed or workspace.
public struct AtomPubLink: Sendable, Hashable {
    public var rel: String
    public var href: String
    public var type: String?
    /// All attributes of the link by qualified name (`cmisra:id`, `cmisra:renditionKind`, `title`, `length`, …).
    public var attributes: [String: String]

    public init(rel: String, href: String, type: String? = nil, attributes: [String: String] = [:]) {
        self.rel = rel
        self.href = href
        self.type = type
        self.attributes = attributes
    }

    public var url: URL? { URL(string: href) }
}

/// The AtomPub navigation data of an entry or feed: its links and `atom:content src`.
public struct AtomPubLinks: Sendable, Hashable {
    public static let cmisLinkNamespace = "http://docs.oasis-open.org/ns/cmis/link/200908/"

    public var links: [AtomPubLink]
    public var contentSource: String?
    public var contentType: String?

    public init(links: [AtomPubLink] = [], contentSource: String? = nil, contentType: String? = nil) {
        self.links = links
        self.contentSource = contentSource
        self.contentType = contentType
    }

    /// The first link with relation `rel` (and media type `type`, when given).
    public func link(_ rel: String, type: String? = nil) -> AtomPubLink? {
        links.first { $0.rel == rel && (type == nil || $0.type == type) }
    }

    public func links(_ rel: String) -> [AtomPubLink] { links.filter { $0.rel == rel } }

    public var selfLink: AtomPubLink? { link("self") }
    public var edit: AtomPubLink? { link("edit") }
    public var editMedia: AtomPubLink? { link("edit-media") }
    public var up: AtomPubLink? { link("up") }
    public var down: [AtomPubLink] { links("down") }
    public var describedBy: AtomPubLink? { link("describedby") }
    public var next: AtomPubLink? { link("next") }
    /// `alternate` links; with `cmisra:renditionKind` they point at renditions.
    public var alternates: [AtomPubLink] { links("alternate") }
    /// A CMIS link relation such as `allowableactions`, `acl`, `policies`, `relationships`, `foldertree`.
    public func cmis(_ relation: String) -> AtomPubLink? { link(Self.cmisLinkNamespace + relation) }
}

/// An `atom:entry` holding a CMIS object, with its links.
public struct AtomPubEntry: Sendable, Hashable {
    public var object: CMISObject
    public var links: AtomPubLinks
    public var pathSegment: String?
    /// Entries of `cmisra:children` (descendants and folder tree feeds).
    public var children: [AtomPubEntry]

    public init(object: CMISObject, links: AtomPubLinks, pathSegment: String? = nil, children: [AtomPubEntry] = []) {
        self.object = object
        self.links = links
        self.pathSegment = pathSegment
        self.children = children
    }
}

/// An `atom:feed` of CMIS objects.
public struct AtomPubFeed: Sendable, Hashable {
    public var entries: [AtomPubEntry]
    public var numItems: Int64?
    public var links: AtomPubLinks

    public init(entries: [AtomPubEntry], numItems: Int64? = nil, links: AtomPubLinks = .init()) {
        self.entries = entries
        self.numItems = numItems
        self.links = links
    }

    /// AtomPub says "more" with a `next` link.
    public var hasMoreItems: Bool { links.next != nil }
}

/// An `app:collection` of a workspace.
public struct AtomPubCollection: Sendable, Hashable {
    /// `cmisra:collectionType`: root, types, query, checkedout, unfiled, update, …
    public var collectionType: String?
    public var href: String
    public var title: String?
    public var accept: [String]

    public init(collectionType: String?, href: String, title: String? = nil, accept: [String] = []) {
        self.collectionType = collectionType
        self.href = href
        self.title = title
        self.accept = accept
    }
}

/// A `cmisra:uritemplate`: a URL with `{placeholders}`.
public struct AtomPubURITemplate: Sendable, Hashable {
    /// objectbyid, objectbypath, query, typebyid
    public var type: String
    public var template: String
    public var mediaType: String?

    public init(type: String, template: String, mediaType: String? = nil) {
        self.type = type
        self.template = template
        self.mediaType = mediaType
    }

    /// Replaces each `{name}` with the percent-encoded value, and unknown placeholders with "".
    public func expand(_ values: [String: String]) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            result += values[name].map(Self.encode) ?? ""
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Percent-encodes every byte of the UTF-8 but RFC 3986's unreserved `A-Z a-z 0-9 - . _ ~`.
    package static func encode(_ value: String) -> String { PercentEncoding.encode(value) }
}

/// One `app:workspace`: a repository, its collections, URI templates and links.
public struct AtomPubWorkspace: Sendable, Hashable {
    public var title: String?
    public var repositoryInfo: RepositoryInfo
    public var collections: [AtomPubCollection]
    public var uriTemplates: [AtomPubURITemplate]
    public var links: AtomPubLinks

    public init(
        title: String?, repositoryInfo: RepositoryInfo, collections: [AtomPubCollection] = [],
        uriTemplates: [AtomPubURITemplate] = [], links: AtomPubLinks = .init()
    ) {
        self.title = title
        self.repositoryInfo = repositoryInfo
        self.collections = collections
        self.uriTemplates = uriTemplates
        self.links = links
    }

    public func collection(_ type: String) -> AtomPubCollection? { collections.first { $0.collectionType == type } }
    public func uriTemplate(_ type: String) -> AtomPubURITemplate? { uriTemplates.first { $0.type == type } }
}

/// The `app:service` document of an AtomPub endpoint.
public struct AtomPubServiceDocument: Sendable, Hashable {
    public var workspaces: [AtomPubWorkspace]

    public init(workspaces: [AtomPubWorkspace]) { self.workspaces = workspaces }

    public var repositoryInfos: [RepositoryInfo] { workspaces.map(\.repositoryInfo) }
    public func workspace(repositoryId: String) -> AtomPubWorkspace? {
        workspaces.first { $0.repositoryInfo.id == repositoryId }
    }
}
