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
    case document(NuxeoDocument)
    case documents(NuxeoDocumentPage)
    case login(NuxeoLogin)
    case user(NuxeoUser)
    case group(NuxeoGroup)
    case acls(NuxeoACP)
    case exception(NuxeoError)
    /// An entity type this client does not model; its JSON as sent.
    case other(type: String, JSONValue)

    /// Reads an answer's body.
    public init(json data: Data) throws(NuxeoError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            let start = String(decoding: data.prefix(60), as: UTF8.self)
            throw NuxeoError(
                .invalidResponse,
                start.lowercased().contains("<html") || start.hasPrefix("<")
                    ? "the server answered with a page, not JSON (a login page or a proxy?): \(start)"
                    : "the server's answer is not JSON: \(error)")
        }
        try self.init(value: value)
    }

    /// Reads an entity already parsed.
    public init(value: JSONValue) throws(NuxeoError) {
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
        default: self = .other(type: type, value)
        }
    }
}

/// A document (`entity-type: document`).
public struct NuxeoDocument: Sendable, Hashable {
    public var uid: String
    public var repository: String?
    public var path: String?
    public var type: String
    public var state: String?
    public var parentRef: String?
    public var title: String?
    public var lastModified: Date?
    /// Null on some servers and for some documents: then no optimistic locking.
    public var changeToken: String?
    public var isCheckedOut: Bool?
    public var isVersion: Bool?
    public var isProxy: Bool?
    public var isTrashed: Bool?
    public var versionLabel: String?
    /// Who holds the document's lock, and since when (when the server sends them: `fetch-document: lock`).
    public var lockOwner: String?
    public var lockCreated: Date?
    public var facets: [String]
    /// `dc:title`, `file:content`…: as sent (only the schemas asked for with the `properties` header).
    public var properties: [String: JSONValue]
    /// Enrichers' output (`contextParameters`).
    public var contextParameters: [String: JSONValue]

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
    public var name: String?
    public var mimeType: String?
    public var encoding: String?
    public var digestAlgorithm: String?
    public var digest: String?
    /// Sent as a string by the server.
    public var length: Int64?
    /// Where the content is read (absolute, or relative to the server on older ones).
    public var data: String?

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
    public var entries: [NuxeoDocument]
    public var isPaginable: Bool
    /// The index of this page, from 0 (`currentPageIndex`, older servers `pageIndex`).
    public var pageIndex: Int?
    public var pageSize: Int?
    /// How many pages and results in all, when the server counted them (`-1` from some means unknown: nil here).
    public var pageCount: Int?
    public var totalSize: Int64?
    /// Whether another page follows; older servers say only the counts.
    public var isNextPageAvailable: Bool

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
    public var username: String
    public var isAdministrator: Bool
    public var groups: [String]
    /// Newer servers also send an id and a display name.
    public var id: String?

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
    public var id: String
    public var properties: [String: JSONValue]
    public var isAdministrator: Bool

    public init(json value: JSONValue) throws(NuxeoError) {
        guard let id = value["id"]?.stringValue else { throw NuxeoError(.invalidResponse, "a user without id") }
        self.id = id
        properties = NuxeoDocument.members(value["properties"])
        isAdministrator = value["isAdministrator"]?.boolValue ?? false
    }
}

/// A group (`entity-type: group`).
public struct NuxeoGroup: Sendable, Hashable {
    public var name: String?
    public var label: String?
    public var memberUsers: [String]

    public init(json value: JSONValue) {
        name = (value["groupname"] ?? value["id"])?.stringValue
        label = value["grouplabel"]?.stringValue
        memberUsers = value["memberUsers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// A document's access control (`entity-type: acls`): named ACLs of ACEs, local first, inherited last.
public struct NuxeoACP: Sendable, Hashable {
    public struct ACE: Sendable, Hashable {
        public var username: String
        public var permission: String
        public var granted: Bool
    }

    public struct ACL: Sendable, Hashable {
        public var name: String
        public var aces: [ACE]
    }

    public var acls: [ACL]

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
    public static func parse(_ text: String) -> Date? { ISO8601Timestamp.date(from: text) }
}
