import Crypto
public import Foundation
public import SatchelRepository
import SatchelJSON

/// Long-lived tokens a user acquires once with a password, for one application on one device (Nuxeo's
/// `authentication/token`), then sends as `X-Authentication-Token` instead of the password.
///
/// Only each token's SHA-256 is kept, in the metadata store (`ServerStateStore`): whoever reads the database learns
/// no token, and every server process on one PostgreSQL database accepts the tokens any of them issued. So the
/// server cannot hand an existing token back: asking again for the same application and device replaces it. A token
/// is read-only (`permission` `r`/`read`: changes are refused) or read-write.
public struct AccessTokens: Sendable {
    /// What a token allows.
    public enum Permission: String, Sendable, Hashable {
        /// Reads only: every change made with the token is refused (`r`, `read`).
        case read = "r"
        /// Reads and changes, as far as the user's own rights go (`rw`, `readWrite`).
        case readWrite = "rw"

        /// Nuxeo's clients say `rw`, `ReadWrite`, `r`, `read`…
        init?(parameter: String) {
            switch parameter.lowercased() {
            case "r", "read", "readonly", "read-only": self = .read
            case "rw", "w", "write", "readwrite", "read-write": self = .readWrite
            default: return nil
            }
        }
    }

    /// One token's record (never the token itself).
    public struct Grant: Sendable, Hashable {
        /// The user the token signs in.
        public var user: String
        /// The application the token was issued to (`applicationName`).
        public var application: String
        /// The device the token was issued for (`deviceId`).
        public var device: String
        /// The device's description, when the client gave one.
        public var deviceDescription: String?
        /// What the token allows.
        public var permission: Permission
        /// When the token was issued.
        public var created: Date
        /// SHA-256 of the token, hex.
        var digest: String

        init(_ stored: AccessGrant) {
            user = stored.user
            application = stored.application
            device = stored.device
            deviceDescription = stored.deviceDescription
            // Anything but a read-only grant's mark is read-write: a grant is never made wider than it was stored.
            permission = stored.permission == Permission.readWrite.rawValue ? .readWrite : .read
            created = stored.created
            digest = stored.digest
        }
    }

    /// Why a token was not issued.
    public struct Refusal: Error, Sendable, Hashable {
        /// The HTTP status to answer with: 400 for a bad parameter, 403 past the limit per user, 500 for the store.
        public var status: Int
        /// Why, for a person.
        public var message: String
    }

    /// At most this many tokens per user; more is refused until one is revoked.
    public static let maximumPerUser = 100
    static let maximumParameterLength = 256

    /// Where the grants are kept.
    public let store: any ServerStateStore

    /// Tokens kept in `store`, shared with every server process using it.
    public init(store: any ServerStateStore) {
        self.store = store
    }

    /// Grants kept in memory only.
    public init() {
        store = MemoryMetadataStore()
    }

    /// Issues a token for `user` (already authenticated with a password), replacing the one of the same application
    /// and device.
    public func issue(
        user: String, application: String, device: String, deviceDescription: String?, permission: String
    ) async throws(Refusal) -> String {
        for (name, value) in [("applicationName", application), ("deviceId", device)] {
            guard !value.isEmpty else { throw Refusal(status: 400, message: "\(name) is required") }
        }
        for value in [application, device, deviceDescription ?? ""]
        where value.utf8.count > Self.maximumParameterLength || value.contains(where: \.isNewline) {
            throw Refusal(status: 400, message: "a token parameter is longer than 256 bytes or holds a line break")
        }
        guard let permission = Permission(parameter: permission) else {
            throw Refusal(
                status: 400, message: "permission must be r (read) or rw (read and write), not '\(permission)'")
        }
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let grant = AccessGrant(
            digest: Self.digest(token), user: user, application: application, device: device,
            deviceDescription: deviceDescription, permission: permission.rawValue, created: Date())
        let issued: Bool
        do {
            issued = try await store.issue(grant, maximumPerUser: Self.maximumPerUser)
        } catch {
            throw Refusal(status: 500, message: "the server could not record the token")
        }
        guard issued else {
            throw Refusal(status: 403, message: "\(user) has \(Self.maximumPerUser) tokens: revoke one first")
        }
        return token
    }

    /// Revokes the token of `user` for this application and device; true if there was one.
    @discardableResult
    public func revoke(user: String, application: String, device: String) async throws(Refusal) -> Bool {
        do {
            return try await store.revokeGrant(user: user, application: application, device: device)
        } catch {
            throw Refusal(status: 500, message: "the server could not revoke the token")
        }
    }

    /// The grant a token stands for, or nil.
    public func grant(for token: String) async throws -> Grant? {
        guard !token.isEmpty, token.utf8.count <= 256 else { return nil }
        return try await store.grant(digest: Self.digest(token)).map(Grant.init)
    }

    /// The grants of `user`, oldest first.
    public func grants(of user: String) async throws -> [Grant] {
        try await store.grants(user: user).map(Grant.init)
    }

    /// What the store keeps of a token: its SHA-256, lower-case hex.
    public static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Upgrading

    /// Moves the grants an earlier version kept in `file` (`tokens.json`) into the store, then renames the file
    /// `….imported` (kept, owner-only): tokens issued before the upgrade keep working. No file: nothing to do.
    ///
    /// - Returns: how many grants were read from the file.
    @discardableResult
    public static func importFile(_ file: URL, into store: any ServerStateStore) async throws -> Int {
        guard FileManager.default.fileExists(atPath: file.path) else { return 0 }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Data(contentsOf: file), limits: JSONLimits(maxDepth: 8))
        } catch {
            throw AuthError("the tokens file \(file.path) cannot be read: \(error)")
        }
        guard let entries = json["tokens"]?.arrayValue else {
            throw AuthError("the tokens file \(file.path) has no \"tokens\" array")
        }
        var grants: [AccessGrant] = []
        for (index, entry) in entries.enumerated() {
            // Earlier versions wrote `read` for a read-only grant.
            guard let digest = entry["sha256"]?.stringValue, digest.count == 64,
                let user = entry["user"]?.stringValue, let application = entry["application"]?.stringValue,
                let device = entry["device"]?.stringValue,
                let permission = entry["permission"]?.stringValue.flatMap(Permission.init(parameter:)),
                let created = entry["created"]?.int64Value
            else { throw AuthError("the tokens file \(file.path): tokens[\(index)] is incomplete") }
            grants.append(
                AccessGrant(
                    digest: digest, user: user, application: application, device: device,
                    deviceDescription: entry["deviceDescription"]?.stringValue, permission: permission.rawValue,
                    created: Date(timeIntervalSince1970: Double(created) / 1000)))
        }
        for grant in grants {
            // The file held at most the quota per user; the store keeps whatever it holds beside them.
            _ = try await store.issue(grant, maximumPerUser: Int.max)
        }
        try ImportedFile.retire(file)
        return grants.count
    }
}
