import Foundation
import SatchelCMISCore
import SatchelRepository
import SatchelXML

/// The AtomPub documents `satchel serve` answers with: service document, object and type entries and feeds,
/// each with the links CMIS 1.1 (part II, 3.4) gives them. Model values go through ``AtomPubWriter``, the same
/// code the client posts with.
struct AtomPubDocuments: Sendable {
    static let atom = XNamespace.atom
    static let app = XNamespace.app
    static let cmis = XNamespace.cmis
    static let cmisra = XNamespace.cmisRestAtom
    static let cmisLink = "http://docs.oasis-open.org/ns/cmis/link/200908/"

    static let entryType = "application/atom+xml;type=entry"
    static let feedType = "application/atom+xml;type=feed"
    static let treeType = "application/cmistree+xml"

    let urls: AtomPubURLs
    let repositoryId: String
    /// Properties read only to write an entry's `atom:content` (its length and type) that the caller's filter
    /// left out: not written as properties.
    var hiddenProperties: [String] = []

    // MARK: Service document

    /// `app:service` with a workspace per repository.
    static func serviceDocument(
        _ infos: [RepositoryInfo], urls: AtomPubURLs, omitNewTypeCapabilities: Bool
    ) -> [UInt8] {
        var writer = AtomPubWriter.makeWriter()
        writer.start("service", namespace: app)
        for info in infos {
            let docs = AtomPubDocuments(urls: urls, repositoryId: info.id)
            docs.workspace(info, into: &writer, omitNewTypeCapabilities: omitNewTypeCapabilities)
        }
        return writer.finish()
    }

    func workspace(_ info: RepositoryInfo, into writer: inout XMLWriter, omitNewTypeCapabilities: Bool) {
        let root = info.rootFolderId
        writer.start("workspace", namespace: Self.app)
        writer.element("title", namespace: Self.atom, attributes: [("type", "text")], text: info.name)
        AtomPubWriter.repositoryInfo(info, into: &writer, omitNewTypeCapabilities: omitNewTypeCapabilities)
        let collections: [(String, String, String, [String])] = [
            (
                "root", urls.url(repositoryId, "children", [("id", root)]), "Root Collection",
                [Self.entryType, "application/cmisatom+xml"]
            ),
            ("types", urls.url(repositoryId, "types"), "Types Collection", [""]),
            ("query", urls.url(repositoryId, "query"), "Query Collection", ["application/cmisquery+xml"]),
            (
                "checkedout", urls.url(repositoryId, "checkedout"), "Checked Out Collection",
                ["application/cmisatom+xml"]
            ),
            ("unfiled", urls.url(repositoryId, "unfiled"), "Unfiled Collection", ["application/cmisatom+xml"]),
            ("update", urls.url(repositoryId, "update"), "Bulk Update Collection", ["application/cmisatom+xml"]),
        ]
        for (type, href, title, accepts) in collections {
            writer.start("collection", namespace: Self.app, attributes: [("href", href)])
            writer.element("collectionType", namespace: Self.cmisra, text: type)
            writer.element("title", namespace: Self.atom, attributes: [("type", "text")], text: title)
            for accept in accepts { writer.element("accept", namespace: Self.app, text: accept) }
            writer.end()
        }
        link(&writer, Self.cmisLink + "typedescendants", urls.url(repositoryId, "typedesc"), Self.feedType)
        link(&writer, Self.cmisLink + "foldertree", urls.url(repositoryId, "foldertree", [("id", root)]), Self.treeType)
        link(
            &writer, Self.cmisLink + "rootdescendants", urls.url(repositoryId, "descendants", [("id", root)]),
            Self.treeType, extra: [("cmisra:id", root)])
        link(&writer, Self.cmisLink + "changes", urls.url(repositoryId, "changes"), Self.feedType)
        let objectParameters =
            "filter={filter}&includeAllowableActions={includeAllowableActions}&includeACL={includeACL}"
            + "&includePolicyIds={includePolicyIds}&includeRelationships={includeRelationships}"
            + "&renditionFilter={renditionFilter}"
        let templates: [(String, String, String)] = [
            ("objectbyid", urls.url(repositoryId, "id") + "?id={id}&" + objectParameters, Self.entryType),
            ("objectbypath", urls.url(repositoryId, "path") + "?path={path}&" + objectParameters, Self.entryType),
            ("typebyid", urls.url(repositoryId, "type") + "?id={id}", Self.entryType),
            (
                "query",
                urls.url(repositoryId, "query")
                    + "?q={q}&searchAllVersions={searchAllVersions}&includeAllowableActions={includeAllowableActions}"
                    + "&includeRelationships={includeRelationships}&maxItems={maxItems}&skipCount={skipCount}",
                Self.feedType
            ),
        ]
        for (type, template, mediaType) in templates {
            writer.start("uritemplate", namespace: Self.cmisra)
            writer.element("template", namespace: Self.cmisra, text: template)
            writer.element("type", namespace: Self.cmisra, text: type)
            writer.element("mediatype", namespace: Self.cmisra, text: mediaType)
            writer.end()
        }
        writer.end()
    }

    // MARK: Objects

    /// How an entry sits in the document: plain, a child (path segment), a parent (relative path segment).
    struct EntryExtras {
        var pathSegment: String?
        var relativePathSegment: String?
        /// Nested entries of descendants and folder tree feeds.
        var children: [ContainerNode]?
        /// In a policies feed, the object the policy is applied to.
        var policyAppliedTo: String?
    }

    /// A whole entry document.
    func entryDocument(_ object: CMISObject) -> [UInt8] {
        var writer = AtomPubWriter.makeWriter()
        entry(object, into: &writer)
        return writer.finish()
    }

    func entry(_ object: CMISObject, into writer: inout XMLWriter, extras: EntryExtras = .init(), depth: Int = 0) {
        let id = object.id
        writer.start("entry", namespace: Self.atom)
        writer.start("author", namespace: Self.atom)
        writer.element("name", namespace: Self.atom, text: object.createdBy ?? "unknown")
        writer.end()
        writer.element("id", namespace: Self.atom, text: "urn:satchel:\(repositoryId):\(id ?? UUID().uuidString)")
        if let date = object.creationDate {
            writer.element("published", namespace: Self.atom, text: AtomPubWriter.dateString(date))
        }
        writer.element("title", namespace: Self.atom, text: object.name ?? id ?? "")
        let updated = AtomPubWriter.dateString(object.lastModificationDate ?? object.creationDate ?? Date())
        writer.element("edited", namespace: Self.app, text: updated)
        writer.element("updated", namespace: Self.atom, text: updated)
        if let id, object.baseType == .document, object.contentStreamLength != nil {
            writer.element(
                "content", namespace: Self.atom,
                attributes: [
                    ("src", urls.url(repositoryId, "content", [("id", id)])),
                    ("type", object.contentStreamMimeType ?? "application/octet-stream"),
                ])
        }
        var shown = object
        for id in hiddenProperties { shown.properties[id] = nil }
        AtomPubWriter.object(shown, into: &writer)
        if let segment = extras.pathSegment {
            writer.element("pathSegment", namespace: Self.cmisra, text: segment)
        }
        if let segment = extras.relativePathSegment {
            writer.element("relativePathSegment", namespace: Self.cmisra, text: segment)
        }
        if let id { links(of: object, id: id, appliedTo: extras.policyAppliedTo, into: &writer) }
        if let children = extras.children, !children.isEmpty, depth < 64, let id {
            writer.start("children", namespace: Self.cmisra)
            writer.start("feed", namespace: Self.atom)
            feedHeader(
                title: "children of \(object.name ?? id)", selfURL: urls.url(repositoryId, "descendants", [("id", id)]),
                into: &writer)
            for child in children {
                entry(
                    child.object, into: &writer,
                    extras: EntryExtras(pathSegment: child.item.pathSegment, children: child.children),
                    depth: depth + 1)
            }
            writer.end()
            writer.end()
        }
        writer.end()
    }

    func links(of object: CMISObject, id: String, appliedTo: String? = nil, into writer: inout XMLWriter) {
        let entryURL =
            appliedTo.map { urls.url(repositoryId, "policies", [("id", $0), ("policyId", id)]) }
            ?? urls.entry(repositoryId, id: id)
        link(
            &writer, "service", urls.service + "?repositoryId=" + AtomPubURLs.encode(repositoryId),
            "application/atomsvc+xml")
        link(&writer, "self", entryURL, Self.entryType, extra: [("cmisra:id", id)])
        link(&writer, "edit", entryURL, Self.entryType)
        if let typeId = object.objectTypeId {
            link(&writer, "describedby", urls.url(repositoryId, "type", [("id", typeId)]), Self.entryType)
        }
        link(
            &writer, Self.cmisLink + "allowableactions", urls.url(repositoryId, "allowableactions", [("id", id)]),
            "application/cmisallowableactions+xml")
        link(&writer, Self.cmisLink + "acl", urls.url(repositoryId, "acl", [("id", id)]), "application/cmisacl+xml")
        link(&writer, Self.cmisLink + "policies", urls.url(repositoryId, "policies", [("id", id)]), Self.feedType)
        link(
            &writer, Self.cmisLink + "relationships", urls.url(repositoryId, "relationships", [("id", id)]),
            Self.feedType)
        switch object.baseType {
        case .folder:
            link(&writer, "down", urls.url(repositoryId, "children", [("id", id)]), Self.feedType)
            link(&writer, "down", urls.url(repositoryId, "descendants", [("id", id)]), Self.treeType)
            link(
                &writer, Self.cmisLink + "foldertree", urls.url(repositoryId, "foldertree", [("id", id)]),
                Self.feedType)
            if let parent = object.parentId {
                link(&writer, "up", urls.entry(repositoryId, id: parent), Self.entryType)
            }
        case .document:
            link(&writer, "up", urls.url(repositoryId, "parents", [("id", id)]), Self.feedType)
            link(&writer, "version-history", urls.url(repositoryId, "versions", [("id", id)]), Self.feedType)
            // Always there: it is also where a document without content gets its first content.
            link(
                &writer, "edit-media", urls.url(repositoryId, "content", [("id", id)]),
                object.contentStreamMimeType ?? "application/octet-stream")
            if let series = object.versionSeriesId, object.properties["cmis:isPrivateWorkingCopy"]?.boolValue == true {
                link(&writer, "via", urls.url(repositoryId, "versions", [("id", series)]), Self.feedType)
            }
        default:
            link(&writer, "up", urls.url(repositoryId, "parents", [("id", id)]), Self.feedType)
        }
        // Any object may have renditions (a folder's thumbnail, say).
        for rendition in object.renditions {
            var extra = [("title", rendition.title ?? rendition.streamId)]
            if let kind = rendition.kind { extra.append(("cmisra:renditionKind", kind)) }
            if let length = rendition.length { extra.append(("length", String(length))) }
            link(
                &writer, "alternate",
                urls.url(repositoryId, "content", [("id", id), ("streamId", rendition.streamId)]),
                rendition.mimeType ?? "application/octet-stream", extra: extra)
        }
    }

    // MARK: Feeds

    /// One page of a feed: header, `first`/`next`/`previous` links, `cmisra:numItems`, then the entries.
    struct Page {
        var selfURL: String
        /// The URL of a page at another skip count.
        var pageURL: (Int) -> String
        var skipCount: Int
        var count: Int
        var hasMoreItems: Bool
        var numItems: Int64?
    }

    func feed(
        title: String, page: Page, extraLinks: [(String, String, String)] = [],
        entries: (inout XMLWriter) -> Void
    ) -> [UInt8] {
        var writer = AtomPubWriter.makeWriter()
        writer.start("feed", namespace: Self.atom)
        feedHeader(title: title, selfURL: page.selfURL, into: &writer)
        for (rel, href, type) in extraLinks { link(&writer, rel, href, type) }
        link(&writer, "first", page.pageURL(0), Self.feedType)
        if page.hasMoreItems { link(&writer, "next", page.pageURL(page.skipCount + page.count), Self.feedType) }
        if page.skipCount > 0 {
            link(&writer, "previous", page.pageURL(max(0, page.skipCount - max(page.count, 1))), Self.feedType)
        }
        if let numItems = page.numItems {
            writer.element("numItems", namespace: Self.cmisra, text: String(numItems))
        }
        entries(&writer)
        return writer.finish()
    }

    func feedHeader(title: String, selfURL: String, into writer: inout XMLWriter) {
        writer.start("author", namespace: Self.atom)
        writer.element("name", namespace: Self.atom, text: "satchel")
        writer.end()
        writer.element("id", namespace: Self.atom, text: selfURL)
        writer.element("title", namespace: Self.atom, text: title)
        writer.element("updated", namespace: Self.atom, text: AtomPubWriter.dateString(Date()))
        link(&writer, "self", selfURL, Self.feedType)
        link(
            &writer, "service", urls.service + "?repositoryId=" + AtomPubURLs.encode(repositoryId),
            "application/atomsvc+xml")
    }

    // MARK: Types

    func typeEntryDocument(_ type: TypeDefinition) -> [UInt8] {
        var writer = AtomPubWriter.makeWriter()
        typeEntry(type, into: &writer)
        return writer.finish()
    }

    func typeEntry(
        _ type: TypeDefinition, into writer: inout XMLWriter, children: [TypeTreeNode]? = nil, depth: Int = 0
    ) {
        writer.start("entry", namespace: Self.atom)
        writer.start("author", namespace: Self.atom)
        writer.element("name", namespace: Self.atom, text: "satchel")
        writer.end()
        writer.element("id", namespace: Self.atom, text: "urn:satchel:\(repositoryId):type:\(type.id)")
        writer.element("title", namespace: Self.atom, text: type.displayName ?? type.id)
        writer.element("updated", namespace: Self.atom, text: AtomPubWriter.dateString(Date()))
        let typeURL = urls.url(repositoryId, "type", [("id", type.id)])
        link(&writer, "self", typeURL, Self.entryType, extra: [("cmisra:id", type.id)])
        link(&writer, "describedby", typeURL, Self.entryType)
        if let parent = type.parentTypeId {
            link(&writer, "up", urls.url(repositoryId, "type", [("id", parent)]), Self.entryType)
        }
        link(&writer, "down", urls.url(repositoryId, "types", [("typeId", type.id)]), Self.feedType)
        link(&writer, "down", urls.url(repositoryId, "typedesc", [("typeId", type.id)]), Self.treeType)
        AtomPubWriter.typeDefinition(type, into: &writer)
        if let children, !children.isEmpty, depth < 64 {
            writer.start("children", namespace: Self.cmisra)
            writer.start("feed", namespace: Self.atom)
            feedHeader(
                title: "subtypes of \(type.id)", selfURL: urls.url(repositoryId, "typedesc", [("typeId", type.id)]),
                into: &writer)
            for child in children { typeEntry(child.type, into: &writer, children: child.children, depth: depth + 1) }
            writer.end()
            writer.end()
        }
        writer.end()
    }

    // MARK: Helpers

    func link(
        _ writer: inout XMLWriter, _ rel: String, _ href: String, _ type: String?, extra: [(String, String)] = []
    ) {
        var attributes = [("rel", rel), ("href", href)]
        if let type { attributes.append(("type", type)) }
        writer.element("link", namespace: Self.atom, attributes: attributes + extra)
    }
}
