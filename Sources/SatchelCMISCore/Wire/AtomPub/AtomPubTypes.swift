public import Foundation
import SatchelText

/// One `atom:link` of an AtomPub entry, feed or workspace.
public struct AtomPubLink: Sendable, Hashable {
    /// The link relation (`self`, `down`, or a CMIS relation under `cmisLinkNamespace`).
    public var rel: String
    /// The link target, as written in the document.
    public var href: String
    /// The media type of the target (`type`), when given.
    public var type: String?
    /// All attributes of the link by qualified name (`cmisra:id`, `cmisra:renditionKind`, `title`, `length`, …).
    public var attributes: [String: String]

    /// A link with this relation and target.
    public init(rel: String, href: String, type: String? = nil, attributes: [String: String] = [:]) {
        self.rel = rel
        self.href = href
        self.type = type
        self.attributes = attributes
    }

    /// `href` as a URL; `nil` when it is not a valid URL.
    public var url: URL? { URL(string: href) }

    /// The `renditionKind` of an `alternate` link that points at a rendition (`cmis:thumbnail`…), whatever prefix
    /// the document gives the restatom namespace (`cmisra:`, or `ns3:` from a JAXB server).
    public var renditionKind: String? {
        attributes["cmisra:renditionKind"]
            ?? attributes.first { $0.key.hasSuffix(":renditionKind") || $0.key == "renditionKind" }?.value
    }
}

/// The AtomPub navigation data of an entry or feed: its links and `atom:content src`.
public struct AtomPubLinks: Sendable, Hashable {
    /// The prefix of the CMIS link relations (`…/link/200908/allowableactions` …).
    public static let cmisLinkNamespace = "http://docs.oasis-open.org/ns/cmis/link/200908/"

    /// The `atom:link` elements, in document order.
    public var links: [AtomPubLink]
    /// The `src` of `atom:content`: where a document's content can be read, when given.
    public var contentSource: String?
    /// The `type` of `atom:content`: the content's media type, when given.
    public var contentType: String?

    /// Navigation data with these links and content reference; all empty by default.
    public init(links: [AtomPubLink] = [], contentSource: String? = nil, contentType: String? = nil) {
        self.links = links
        self.contentSource = contentSource
        self.contentType = contentType
    }

    /// The first link with relation `rel` (and media type `type`, when given).
    public func link(_ rel: String, type: String? = nil) -> AtomPubLink? {
        links.first { $0.rel == rel && (type == nil || $0.type == type) }
    }

    /// Every link with relation `rel`, in document order.
    public func links(_ rel: String) -> [AtomPubLink] { links.filter { $0.rel == rel } }

    /// The `self` link: the entry's or feed's own URL.
    public var selfLink: AtomPubLink? { link("self") }
    /// The `edit` link: where the entry is updated or deleted.
    public var edit: AtomPubLink? { link("edit") }
    /// The `edit-media` link: where a document's content is replaced.
    public var editMedia: AtomPubLink? { link("edit-media") }
    /// The first `up` link: the parent folder (or parent type).
    public var up: AtomPubLink? { link("up") }
    /// The `down` links: children and descendants feeds.
    public var down: [AtomPubLink] { links("down") }
    /// The `describedby` link: the object's type definition.
    public var describedBy: AtomPubLink? { link("describedby") }
    /// The `next` link: the following page of a feed.
    public var next: AtomPubLink? { link("next") }
    /// `alternate` links; with `cmisra:renditionKind` they point at renditions.
    public var alternates: [AtomPubLink] { links("alternate") }
    /// A CMIS link relation such as `allowableactions`, `acl`, `policies`, `relationships`, `foldertree`.
    public func cmis(_ relation: String) -> AtomPubLink? { link(Self.cmisLinkNamespace + relation) }
}

/// An `atom:entry` holding a CMIS object, with its links.
public struct AtomPubEntry: Sendable, Hashable {
    /// The CMIS object the entry holds.
    public var object: CMISObject
    /// The entry's links and content reference.
    public var links: AtomPubLinks
    /// The object's name in the folder (`cmisra:pathSegment`), when given.
    public var pathSegment: String?
    /// Entries of `cmisra:children` (descendants and folder tree feeds).
    public var children: [AtomPubEntry]

    /// An entry for this object with its links; no path segment or children by default.
    public init(object: CMISObject, links: AtomPubLinks, pathSegment: String? = nil, children: [AtomPubEntry] = []) {
        self.object = object
        self.links = links
        self.pathSegment = pathSegment
        self.children = children
    }
}

/// An `atom:feed` of CMIS objects.
public struct AtomPubFeed: Sendable, Hashable {
    /// The entries of this page, in document order.
    public var entries: [AtomPubEntry]
    /// The total number of entries (`cmisra:numItems`), when the repository knows it.
    public var numItems: Int64?
    /// The feed's own links (`self`, `next` …).
    public var links: AtomPubLinks
    /// A change log token the feed carries as an element of its own: AtomPub defines none, so servers use their
    /// own (`<chemistry:changeLogToken>` from the reference server); any namespace is read.
    public var changeLogToken: String?

    /// A feed of these entries; `numItems` defaults to unknown, `links` to none.
    public init(
        entries: [AtomPubEntry], numItems: Int64? = nil, links: AtomPubLinks = .init(), changeLogToken: String? = nil
    ) {
        self.entries = entries
        self.numItems = numItems
        self.links = links
        self.changeLogToken = changeLogToken
    }

    /// AtomPub says "more" with a `next` link.
    public var hasMoreItems: Bool { links.next != nil }
}

/// An `app:collection` of a workspace.
public struct AtomPubCollection: Sendable, Hashable {
    /// `cmisra:collectionType`: root, types, query, checkedout, unfiled, update, …
    public var collectionType: String?
    /// The collection's URL.
    public var href: String
    /// The collection's `atom:title`, when given.
    public var title: String?
    /// The media types the collection accepts (`app:accept`); empty when none are listed.
    public var accept: [String]

    /// A collection of this type at `href`.
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
    /// The URL with `{name}` placeholders.
    public var template: String
    /// The media type of what the expanded URL returns, when given.
    public var mediaType: String?

    /// A template of this type.
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
    /// The workspace's `atom:title`, when given.
    public var title: String?
    /// The repository the workspace stands for (`cmisra:repositoryInfo`).
    public var repositoryInfo: RepositoryInfo
    /// The workspace's collections.
    public var collections: [AtomPubCollection]
    /// The workspace's URI templates.
    public var uriTemplates: [AtomPubURITemplate]
    /// The workspace's own links; none when it has none.
    public var links: AtomPubLinks

    /// A workspace for this repository; collections, templates and links default to none.
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

    /// The first collection of this `cmisra:collectionType` (`root`, `query` …), or `nil`.
    public func collection(_ type: String) -> AtomPubCollection? { collections.first { $0.collectionType == type } }
    /// The first URI template of this type (`objectbyid`, `query` …), or `nil`.
    public func uriTemplate(_ type: String) -> AtomPubURITemplate? { uriTemplates.first { $0.type == type } }
}

/// The `app:service` document of an AtomPub endpoint.
public struct AtomPubServiceDocument: Sendable, Hashable {
    /// The workspaces, one per repository.
    public var workspaces: [AtomPubWorkspace]

    /// A service document with these workspaces.
    public init(workspaces: [AtomPubWorkspace]) { self.workspaces = workspaces }

    /// The repository info of every workspace, in order.
    public var repositoryInfos: [RepositoryInfo] { workspaces.map(\.repositoryInfo) }
    /// The workspace of the repository with this id, or `nil`.
    public func workspace(repositoryId: String) -> AtomPubWorkspace? {
        workspaces.first { $0.repositoryInfo.id == repositoryId }
    }
}
