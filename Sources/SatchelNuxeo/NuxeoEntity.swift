public import Foundation
public import SatchelJSON
import SatchelText

/// A Nuxeo REST answer, by its `entity-type` (docs/nuxeo.md).
///
/// ```swift
/// switch try NuxeoEntity(json: body) {
/// case .document(let document): print(document.title ?? "", document.blob?.length ?? 0)
/// case .documents(let page): print(page.entries.count, "of", page.totalSize ?? -1)
/// default: break
/// }
/// ```
public enum NuxeoEntity: Sendable, Hashable {
    /// `entity-type: document`.
    case document(NuxeoDocument)
    /// `entity-type: documents`: a page of documents.
    case documents(NuxeoDocumentPage)
    /// `entity-type: login`: who the session is.
    case login(NuxeoLogin)
    /// `entity-type: user`.
    case user(NuxeoUser)
    /// `entity-type: group`.
    case group(NuxeoGroup)
    /// `entity-type: acls`: a document's access control.
    case acls(NuxeoACP)
    /// `entity-type: exception`: the server's refusal, as an error (code `.server`).
    case exception(NuxeoError)
    /// An entity of a type the app registered (`NuxeoEntityRegistry`, the session's `Configuration.entityTypes`).
    case registered(NuxeoRegisteredEntity)
    /// An entity type this client does not model and the app did not register; its JSON as sent.
    case other(type: String, JSONValue)

    /// Reads an answer's body; an entity of a type in `registry` is read by that type.
    public init(json data: Data, registry: NuxeoEntityRegistry = NuxeoEntityRegistry()) throws(NuxeoError) {
        try self.init(value: try Self.parse(data), registry: registry)
    }

    /// An answer's body as JSON; one that is not says what it looks like instead (a login page, a proxy's).
    static func parse(_ data: Data) throws(NuxeoError) -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            let start = String(decoding: data.prefix(60), as: UTF8.self)
            throw NuxeoError(
                .invalidResponse,
                start.lowercased().contains("<html") || start.hasPrefix("<")
                    ? "the server answered with a page, not JSON (a login page or a proxy?): \(start)"
                    : "the server's answer is not JSON: \(error)")
        }
    }

    /// Reads an entity already parsed; an entity of a type in `registry` is read by that type.
    public init(value: JSONValue, registry: NuxeoEntityRegistry = NuxeoEntityRegistry()) throws(NuxeoError) {
        guard case .object = value, let type = value["entity-type"]?.stringValue else {
            throw NuxeoError(.invalidResponse, "the answer has no entity-type")
        }
        switch type {
        case "document": self = .document(try NuxeoDocument(json: value))
        case "documents": self = .documents(try NuxeoDocumentPage(json: value))
        case "login": self = .login(try NuxeoLogin(json: value))
        case "user": self = .user(try NuxeoUser(json: value))
        case "group": self = .group(NuxeoGroup(json: value))
        case "acls": self = .acls(NuxeoACP(json: value))
        case "exception": self = .exception(NuxeoError(exception: value))
        default:
            if let registered = try registry.read(value, entityType: type) {
                self = .registered(NuxeoRegisteredEntity(value: registered, json: value))
            } else {
                self = .other(type: type, value)
            }
        }
    }
}

/// A document (`entity-type: document`).
public struct NuxeoDocument: Sendable, Hashable {
    /// The document's id.
    public var uid: String
    /// The repository it is in (`default`).
    public var repository: String?
    /// Its path (`/default-domain/workspaces/Sales`); nil for a placeless document.
    public var path: String?
    /// Its document type (`Folder`, `File`, `Note`, `Workspace`…).
    public var type: String
    /// Its life-cycle state (`project`, `approved`…).
    public var state: String?
    /// The parent's uid.
    public var parentRef: String?
    /// Its title (`dc:title`), as the entity's own `title` field gives it.
    public var title: String?
    /// When it was last modified; nil when the server sent none or a date that does not parse.
    public var lastModified: Date?
    /// Null on some servers and for some documents: then no optimistic locking.
    public var changeToken: String?
    /// Whether it is checked out (changed since its last version); nil when the server does not say.
    public var isCheckedOut: Bool?
    /// Whether it is a version (a frozen copy); nil when the server does not say.
    public var isVersion: Bool?
    /// Whether it is a proxy (a published reference to another document); nil when the server does not say.
    public var isProxy: Bool?
    /// Whether it is in the trash; nil when the server does not say (older servers).
    public var isTrashed: Bool?
    /// Its version label (`0.1`, `1.0+`), when the server sends one.
    public var versionLabel: String?
    /// Who holds the document's lock, and since when (when the server sends them: `fetch-document: lock`).
    public var lockOwner: String?
    /// When the lock was taken (with `lockOwner`).
    public var lockCreated: Date?
    /// Its facets (`Folderish`, `Versionable`, `Commentable`…); empty when the server sent none.
    public var facets: [String]
    /// `dc:title`, `file:content`…: as sent (only the schemas asked for with the `properties` header).
    public var properties: [String: JSONValue]
    /// Enrichers' output (`contextParameters`).
    public var contextParameters: [String: JSONValue]

    /// Reads a document entity. Throws `NuxeoError` (`.invalidResponse`) when it has no `uid` or `type`; other
    /// fields that are missing or of another JSON type are nil (or empty).
    public init(json value: JSONValue) throws(NuxeoError) {
        guard let uid = value["uid"]?.stringValue, let type = value["type"]?.stringValue else {
            throw NuxeoError(.invalidResponse, "a document without uid or type")
        }
        self.uid = uid
        self.type = type
        repository = value["repository"]?.stringValue
        path = value["path"]?.stringValue
        state = value["state"]?.stringValue
        parentRef = value["parentRef"]?.stringValue
        title = value["title"]?.stringValue
        lastModified = value["lastModified"]?.stringValue.flatMap(NuxeoDate.parse)
        changeToken = value["changeToken"]?.stringValue
        isCheckedOut = value["isCheckedOut"]?.boolValue
        isVersion = value["isVersion"]?.boolValue
        isProxy = value["isProxy"]?.boolValue
        isTrashed = value["isTrashed"]?.boolValue
        versionLabel = value["versionLabel"]?.stringValue
        lockOwner = value["lockOwner"]?.stringValue
        lockCreated = value["lockCreated"]?.stringValue.flatMap(NuxeoDate.parse)
        facets = value["facets"]?.arrayValue?.compactMap(\.stringValue) ?? []
        properties = Self.members(value["properties"])
        contextParameters = Self.members(value["contextParameters"])
    }

    static func members(_ value: JSONValue?) -> [String: JSONValue] {
        guard let object = value?.objectValue else { return [:] }
        var result: [String: JSONValue] = [:]
        for (key, member) in object { result[key] = member }
        return result
    }

    /// The main blob (`file:content`), when the `file` schema was asked for and the document has one.
    public var blob: NuxeoBlob? { blob(at: "file:content") }

    /// The blob at an xpath (`file:content`, `files:files/0/file`).
    public func blob(at xpath: String) -> NuxeoBlob? {
        var parts = xpath.split(separator: "/").map(String.init)
        guard !parts.isEmpty, var value = properties[parts.removeFirst()] else { return nil }
        for part in parts {
            if let index = Int(part), let item = value[index] {
                value = item
            } else if let member = value[part] {
                value = member
            } else {
                return nil
            }
        }
        return NuxeoBlob(json: value)
    }

    /// A string property (`dc:title`).
    public subscript(string property: String) -> String? { properties[property]?.stringValue }
}

/// A blob property's description (the content itself is downloaded separately).
public struct NuxeoBlob: Sendable, Hashable {
    /// The file name.
    public var name: String?
    /// The MIME type (`mime-type`).
    public var mimeType: String?
    /// The character encoding, for text.
    public var encoding: String?
    /// The digest's algorithm as the server names it (`MD5`, `SHA-256`); nil on servers that send none.
    public var digestAlgorithm: String?
    /// The content's digest, in hex.
    public var digest: String?
    /// Sent as a string by the server.
    public var length: Int64?
    /// Where the content is read (absolute, or relative to the server on older ones).
    public var data: String?

    /// Reads a blob property; nil when the value is not a JSON object (an empty blob property is `null`).
    public init?(json value: JSONValue) {
        guard case .object = value else { return nil }
        name = value["name"]?.stringValue
        mimeType = value["mime-type"]?.stringValue
        encoding = value["encoding"]?.stringValue
        digestAlgorithm = value["digestAlgorithm"]?.stringValue
        digest = value["digest"]?.stringValue
        length = value["length"]?.stringValue.flatMap { Int64($0) } ?? value["length"]?.int64Value
        data = value["data"]?.stringValue
    }
}

/// A page of documents (`entity-type: documents`): children, a search, a page provider.
public struct NuxeoDocumentPage: Sendable, Hashable {
    /// The documents of this page.
    public var entries: [NuxeoDocument]
    /// Whether the answer is paged (false when the server does not say).
    public var isPaginable: Bool
    /// The index of this page, from 0 (`currentPageIndex`, older servers `pageIndex`).
    public var pageIndex: Int?
    /// The page size the server used.
    public var pageSize: Int?
    /// How many pages and results in all, when the server counted them (`-1` from some means unknown: nil here).
    public var pageCount: Int?
    /// How many results in all (`resultsCount`, older servers `totalSize`); nil when unknown.
    public var totalSize: Int64?
    /// Whether another page follows; older servers say only the counts.
    public var isNextPageAvailable: Bool

    /// Reads a page. Throws `NuxeoError` (`.invalidResponse`) naming the first entry that is not a document.
    /// Without `isNextPageAvailable`, another page follows when the index and count say so.
    public init(json value: JSONValue) throws(NuxeoError) {
        var entries: [NuxeoDocument] = []
        for (index, entry) in (value["entries"]?.arrayValue ?? []).enumerated() {
            do {
                entries.append(try NuxeoDocument(json: entry))
            } catch {
                throw NuxeoError(.invalidResponse, "entries[\(index)]: \(error.message)")
            }
        }
        self.entries = entries
        isPaginable = value["isPaginable"]?.boolValue ?? false
        pageIndex = (value["currentPageIndex"] ?? value["pageIndex"])?.int64Value.map(Int.init)
        pageSize = value["pageSize"]?.int64Value.map(Int.init)
        pageCount = (value["numberOfPages"] ?? value["pageCount"])?.int64Value.map(Int.init).flatMap {
            $0 < 0 ? nil : $0
        }
        totalSize = (value["resultsCount"] ?? value["totalSize"])?.int64Value.flatMap { $0 < 0 ? nil : $0 }
        if let next = value["isNextPageAvailable"]?.boolValue {
            isNextPageAvailable = next
        } else if let pageIndex, let pageCount {
            isNextPageAvailable = pageIndex + 1 < pageCount
        } else {
            isNextPageAvailable = false
        }
    }
}

/// Who the session is (`automation/login`, `me`).
public struct NuxeoLogin: Sendable, Hashable {
    /// The user's name.
    public var username: String
    /// Whether the user is an administrator (false when the server does not say).
    public var isAdministrator: Bool
    /// The groups the user is in.
    public var groups: [String]
    /// Newer servers also send an id and a display name.
    public var id: String?

    /// Reads a login entity. Throws `NuxeoError` (`.invalidResponse`) when it has no `username`.
    public init(json value: JSONValue) throws(NuxeoError) {
        guard let username = value["username"]?.stringValue else {
            throw NuxeoError(.invalidResponse, "a login without username")
        }
        self.username = username
        isAdministrator = value["isAdministrator"]?.boolValue ?? false
        groups = value["groups"]?.arrayValue?.compactMap(\.stringValue) ?? []
        id = value["id"]?.stringValue
    }
}

/// A user (`entity-type: user`).
public struct NuxeoUser: Sendable, Hashable {
    /// The user's id (the username).
    public var id: String
    /// The user's properties as sent (`firstName`, `email`, `groups`…).
    public var properties: [String: JSONValue]
    /// Whether the user is an administrator (false when the server does not say).
    public var isAdministrator: Bool

    /// Reads a user entity. Throws `NuxeoError` (`.invalidResponse`) when it has no `id`.
    public init(json value: JSONValue) throws(NuxeoError) {
        guard let id = value["id"]?.stringValue else { throw NuxeoError(.invalidResponse, "a user without id") }
        self.id = id
        properties = NuxeoDocument.members(value["properties"])
        isAdministrator = value["isAdministrator"]?.boolValue ?? false
    }
}

/// A group (`entity-type: group`).
public struct NuxeoGroup: Sendable, Hashable {
    /// The group's name (`groupname`, else `id`).
    public var name: String?
    /// Its display label (`grouplabel`).
    public var label: String?
    /// The users in it, when the server lists them.
    public var memberUsers: [String]

    /// Reads a group entity; missing fields are nil or empty.
    public init(json value: JSONValue) {
        name = (value["groupname"] ?? value["id"])?.stringValue
        label = value["grouplabel"]?.stringValue
        memberUsers = value["memberUsers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// A document's access control (`entity-type: acls`): named ACLs of ACEs, local first, inherited last.
public struct NuxeoACP: Sendable, Hashable {
    /// One access control entry: a permission granted or denied to a user or group.
    public struct ACE: Sendable, Hashable {
        /// The user or group it applies to.
        public var username: String
        /// The permission (`Read`, `ReadWrite`, `Everything`…).
        public var permission: String
        /// Whether it grants (true, also when the server does not say) or denies.
        public var granted: Bool
    }

    /// A named list of entries (`local`, `inherited`).
    public struct ACL: Sendable, Hashable {
        /// The list's name; empty when the server sent none.
        public var name: String
        /// Its entries, in order; entries without a username or permission are left out.
        public var aces: [ACE]
    }

    /// The document's ACLs, as the server ordered them.
    public var acls: [ACL]

    /// Reads an `acls` entity (ACEs under `aces` or, on older servers, `ace`).
    public init(json value: JSONValue) {
        acls = (value["acl"]?.arrayValue ?? []).map { acl in
            ACL(
                name: acl["name"]?.stringValue ?? "",
                aces: (acl["aces"]?.arrayValue ?? acl["ace"]?.arrayValue ?? []).compactMap { ace in
                    guard let username = ace["username"]?.stringValue, let permission = ace["permission"]?.stringValue
                    else { return nil }
                    return ACE(username: username, permission: permission, granted: ace["granted"]?.boolValue ?? true)
                })
        }
    }
}

/// Dates as Nuxeo servers write them: 0 to 3 (or more) fraction digits, `Z` or an offset.
public enum NuxeoDate {
    /// The date, or nil when `text` is not an ISO 8601 timestamp.
    public static func parse(_ text: String) -> Date? { ISO8601Timestamp.date(from: text) }
}
