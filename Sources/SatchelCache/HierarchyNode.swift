public import Foundation

/// One folder or document of a cached hierarchy, as its source described it.
public struct HierarchyNode: Sendable, Hashable {
    /// The source's id (a Nuxeo uid, a CMIS object id).
    public var id: String
    /// The parent's id; nil for the hierarchy's root.
    public var parentID: String?
    /// The full path on the server (`/ws/Reports/q3.pdf`).
    public var path: String
    /// The path segment (`q3.pdf`).
    public var name: String
    /// The display title (Nuxeo's `dc:title`, CMIS's `cmis:name`), if the source gave one.
    public var title: String?
    /// The source's type (`Folder`, `File`, `cmis:document`…).
    public var type: String
    /// Whether the node is a folder (a Folderish document in Nuxeo, a `cmis:folder` in CMIS).
    public var isFolder: Bool
    /// When the object was last modified, if the source says.
    public var lastModified: Date?
    /// The source's change token, if it has one.
    public var changeToken: String?
    /// The content, if the node has any.
    public var content: Content?

    /// A document's content as the source describes it.
    public struct Content: Sendable, Hashable {
        /// What the blob cache keys it by: the digest when the source gives one (`SHA-256:…`, `MD5:…`), otherwise
        /// the server or repository, the object id and its change token (a new version is a new key).
        public var key: String
        /// The digest to check the bytes against, when the source gives one in an algorithm Satchel checks.
        public var digest: ContentDigest?
        /// The file name the source gives the content, if any.
        public var fileName: String?
        /// The content's MIME type, if the source gives one.
        public var mimeType: String?
        /// The content's length in bytes, if the source gives it.
        public var length: Int64?

        /// Content with its blob cache key; everything else is optional.
        public init(
            key: String, digest: ContentDigest? = nil, fileName: String? = nil, mimeType: String? = nil,
            length: Int64? = nil
        ) {
            self.key = key
            self.digest = digest
            self.fileName = fileName
            self.mimeType = mimeType
            self.length = length
        }
    }

    /// A node as a `HierarchySource` describes it; the optional fields default to nil.
    public init(
        id: String, parentID: String?, path: String, name: String, title: String? = nil, type: String,
        isFolder: Bool, lastModified: Date? = nil, changeToken: String? = nil, content: Content? = nil
    ) {
        self.id = id
        self.parentID = parentID
        self.path = path
        self.name = name
        self.title = title
        self.type = type
        self.isFolder = isFolder
        self.lastModified = lastModified
        self.changeToken = changeToken
        self.content = content
    }
}

/// A digest a blob's bytes are checked against when they are saved.
public struct ContentDigest: Sendable, Hashable, CustomStringConvertible {
    /// The digest algorithms Satchel checks; the raw value is the name written in `description`.
    public enum Algorithm: String, Sendable, Hashable {
        /// MD5 (assumed for a Nuxeo blob that names no algorithm).
        case md5 = "MD5"
        /// SHA-1.
        case sha1 = "SHA-1"
        /// SHA-256.
        case sha256 = "SHA-256"
    }

    /// The algorithm the digest was made with.
    public var algorithm: Algorithm
    /// Lowercase hex.
    public var hex: String

    /// A digest from its hex text, which is lowercased (not checked).
    public init(algorithm: Algorithm, hex: String) {
        self.algorithm = algorithm
        self.hex = hex.lowercased()
    }

    /// A digest as Nuxeo names it (`MD5`, `SHA-256`, `sha256`…); nil for one Satchel does not check or a value that
    /// is not hex of the right length.
    public init?(algorithm name: String?, hex: String?) {
        guard let hex, let name else { return nil }
        // ASCII only, byte by byte: a tree load reads one digest per document.
        let letters = String(
            decoding: name.utf8.lazy.filter { $0 != UInt8(ascii: "-") }.map {
                (0x61...0x7A).contains($0) ? $0 - 0x20 : $0
            },
            as: UTF8.self)
        let algorithm: Algorithm
        let length: Int
        switch letters {
        case "MD5": (algorithm, length) = (.md5, 32)
        case "SHA1": (algorithm, length) = (.sha1, 40)
        case "SHA256": (algorithm, length) = (.sha256, 64)
        default: return nil
        }
        func isHexDigit(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
        }
        guard hex.utf8.count == length, hex.utf8.allSatisfy(isHexDigit) else { return nil }
        self.init(algorithm: algorithm, hex: hex)
    }

    /// `algorithm:hex`, e.g. `SHA-256:9f86…` (what blob cache keys made from digests look like).
    public var description: String { "\(algorithm.rawValue):\(hex)" }
}
