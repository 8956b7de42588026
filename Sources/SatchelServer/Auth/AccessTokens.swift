import Crypto
public import Foundation
import SatchelRepository
import SatchelJSON
import Synchronization

/// Long-lived tokens a user acquires once with a password, for one application on one device (Nuxeo's
/// `authentication/token`), then sends as `X-Authentication-Token` instead of the password.
///
/// Only each token's SHA-256 is kept (in `tokens.json` in the data folder, owner-only): whoever reads the file learns
/// no token. So the server cannot hand an existing token back: asking again for the same application and device
/// replaces it. A token is read-only (`permission` `r`/`read`: changes are refused) or read-write.
public final class AccessTokens: Sendable {
    /// What a token allows.
    public enum Permission: String, Sendable, Hashable {
        case read
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
        public var user: String
        public var application: String
        public var device: String
        public var deviceDescription: String?
        public var permission: Permission
        public var created: Date
        /// SHA-256 of the token, hex.
        var digest: String
    }

    /// Why a token was not issued.
    public struct Refusal: Error, Sendable, Hashable {
        public var status: Int
        public var message: String
    }

    /// At most this many tokens per user; more is refused until one is revoked.
    public static let maximumPerUser = 100
    static let maximumParameterLength = 256

    private let file: URL?
    private let grants: Mutex<[String: Grant]>

    /// `file`: where grants are kept (nil: in memory only). A missing file is an empty set.
    public init(file: URL?) throws(AuthError) {
        self.file = file
        if let file { PrivateFiles.removeLeftovers(of: file) }
        var loaded: [String: Grant] = [:]
        if let file, FileManager.default.fileExists(atPath: file.path) {
            loaded = try Self.load(file)
        }
        grants = Mutex(loaded)
    }

    /// Issues a token for `user` (already authenticated with a password), replacing the one of the same application
    /// and device.
    public func issue(
        user: String, application: String, device: String, deviceDescription: String?, permission: String
    ) throws(Refusal) -> String {
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
        let grant = Grant(
            user: user, application: application, device: device, deviceDescription: deviceDescription,
            permission: permission, created: Date(), digest: Self.digest(token))
        try change { grants throws(Refusal) in
            grants = grants.filter {
                !($0.value.user == user && $0.value.application == application
                    && $0.value.device == device)
            }
            guard grants.values.count(where: { $0.user == user }) < Self.maximumPerUser else {
                throw Refusal(status: 403, message: "\(user) has \(Self.maximumPerUser) tokens: revoke one first")
            }
            grants[grant.digest] = grant
        }
        return token
    }

    /// Revokes the token of `user` for this application and device; true if there was one.
    @discardableResult
    public func revoke(user: String, application: String, device: String) throws(Refusal) -> Bool {
        var removed = false
        try change { grants throws(Refusal) in
            let before = grants.count
            grants = grants.filter {
                !($0.value.user == user && $0.value.application == application
                    && $0.value.device == device)
            }
            removed = grants.count != before
        }
        return removed
    }

    /// The grant a token stands for, or nil.
    public func grant(for token: String) -> Grant? {
        guard !token.isEmpty, token.utf8.count <= 256 else { return nil }
        return grants.withLock { $0[Self.digest(token)] }
    }

    /// The grants of `user`, oldest first.
    public func grants(of user: String) -> [Grant] {
        grants.withLock { $0.values.filter { $0.user == user } }.sorted { $0.created < $1.created }
    }

    /// Applies a change and writes the file (in the lock: two changes never write out of order). A change that cannot
    /// be written is undone.
    private func change(_ body: (inout [String: Grant]) throws(Refusal) -> Void) throws(Refusal) {
        try grants.withLock { grants throws(Refusal) in
            var changed = grants
            try body(&changed)
            if let file {
                do {
                    try PrivateFiles.replace(file, with: Self.serialized(changed))
                } catch {
                    throw Refusal(status: 500, message: "the server could not record the token")
                }
            }
            grants = changed
        }
    }

    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private static func serialized(_ grants: [String: Grant]) -> Data {
        var writer = JSONWriter()
        writer.writeObject { writer in
            writer.write(key: "tokens") { writer in
                writer.writeArray { writer in
                    for grant in grants.values.sorted(by: { ($0.created, $0.digest) < ($1.created, $1.digest) }) {
                        writer.writeObject { writer in
                            writer.write(key: "sha256", grant.digest)
                            writer.write(key: "user", grant.user)
                            writer.write(key: "application", grant.application)
                            writer.write(key: "device", grant.device)
                            if let description = grant.deviceDescription {
                                writer.write(key: "deviceDescription", description)
                            }
                            writer.write(key: "permission", grant.permission.rawValue)
                            writer.write(key: "created", Int64(grant.created.timeIntervalSince1970 * 1000))
                        }
                    }
                }
            }
        }
        return Data(writer.string.utf8)
    }

    private static func load(_ file: URL) throws(AuthError) -> [String: Grant] {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Data(contentsOf: file), limits: JSONLimits(maxDepth: 8))
        } catch {
            throw AuthError("the tokens file \(file.path) cannot be read: \(error)")
        }
        guard let entries = json["tokens"]?.arrayValue else {
            throw AuthError("the tokens file \(file.path) has no \"tokens\" array")
        }
        var grants: [String: Grant] = [:]
        for (index, entry) in entries.enumerated() {
            guard let digest = entry["sha256"]?.stringValue, digest.count == 64,
                let user = entry["user"]?.stringValue, let application = entry["application"]?.stringValue,
                let device = entry["device"]?.stringValue,
                let permission = entry["permission"]?.stringValue.flatMap(Permission.init(rawValue:)),
                let created = entry["created"]?.int64Value
            else { throw AuthError("the tokens file \(file.path): tokens[\(index)] is incomplete") }
            grants[digest] = Grant(
                user: user, application: application, device: device,
                deviceDescription: entry["deviceDescription"]?.stringValue, permission: permission,
                created: Date(timeIntervalSince1970: Double(created) / 1000), digest: digest)
        }
        return grants
    }
}
