public import Foundation
import SatchelJSON

/// The users the server accepts: `{"users":[{"name":"alice","passwordHash":"pbkdf2-sha256$…","admin":true}]}`.
///
/// `"admin": true` makes a user an administrator: `cmis:all` on everything in the shared repository, and the only
/// one who may change its root folder's ACL.
///
/// ```swift
/// let users = try UsersFile.load(from: URL(fileURLWithPath: "users.json"))
/// users.entries["alice"]?.verify(password: "s3cret")
/// users.administrators.contains("alice")
/// ```
public struct UsersFile: Sendable, Hashable {
    /// Password hashes by user name.
    public var entries: [String: PasswordHash]
    /// The users marked `"admin": true`.
    public var administrators: Set<String>

    /// Users of `entries`; `administrators` keeps only the names that are in `entries`.
    public init(entries: [String: PasswordHash] = [:], administrators: Set<String> = []) {
        self.entries = entries
        self.administrators = administrators.filter { entries[$0] != nil }
    }

    /// Reads and validates a users file.
    public static func load(from url: URL) throws(AuthError) -> UsersFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AuthError("cannot read the users file \(url.path): \(error.localizedDescription)")
        }
        return try parse(data, source: url.path)
    }

    /// Parses the users file JSON.
    public static func parse(_ data: Data, source: String = "users file") throws(AuthError) -> UsersFile {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data, limits: JSONLimits(maxDepth: 16))
        } catch {
            throw AuthError("\(source) is not valid JSON: \(error)")
        }
        guard let users = json["users"]?.arrayValue else {
            throw AuthError("\(source) has no \"users\" array")
        }
        var entries: [String: PasswordHash] = [:]
        var administrators: Set<String> = []
        for (index, user) in users.enumerated() {
            guard let name = user["name"]?.stringValue, isValidUserName(name) else {
                throw AuthError("\(source): users[\(index)] has no valid name (letters, digits, . _ - @)")
            }
            guard let encoded = user["passwordHash"]?.stringValue else {
                throw AuthError("\(source): user \(name) has no passwordHash")
            }
            do throws(AuthError) {
                entries[name] = try PasswordHash(encoded: encoded)
            } catch {
                throw AuthError("\(source): user \(name): \(error.message)")
            }
            switch user["admin"] {
            case nil, .bool(false)?: break
            case .bool(true)?: administrators.insert(name)
            default: throw AuthError("\(source): user \(name): \"admin\" must be true or false")
            }
        }
        return UsersFile(entries: entries, administrators: administrators)
    }

    /// The file's JSON text.
    public func serialized() -> String {
        var writer = JSONWriter()
        writer.writeObject { writer in
            writer.write(key: "users") { writer in
                writer.writeArray { writer in
                    for name in entries.keys.sorted() {
                        guard let hash = entries[name] else { continue }
                        Self.writeEntry(&writer, name: name, hash: hash, isAdministrator: administrators.contains(name))
                    }
                }
            }
        }
        return writer.string + "\n"
    }

    /// Writes the file readable by its owner only.
    public func save(to url: URL) throws(AuthError) {
        do {
            try Data(serialized().utf8).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw AuthError("cannot write the users file \(url.path): \(error.localizedDescription)")
        }
    }

    /// One users-file entry as JSON (what `satchel serve hash-password` prints).
    public static func entryJSON(name: String, hash: PasswordHash, isAdministrator: Bool = false) -> String {
        var writer = JSONWriter()
        writeEntry(&writer, name: name, hash: hash, isAdministrator: isAdministrator)
        return writer.string
    }

    private static func writeEntry(_ writer: inout JSONWriter, name: String, hash: PasswordHash, isAdministrator: Bool)
    {
        writer.writeObject { writer in
            writer.write(key: "name", name)
            writer.write(key: "passwordHash", hash.encoded)
            if isAdministrator { writer.write(key: "admin", true) }
        }
    }

    /// User names become repository ids (`mydocs-<user>`): keep them to a safe alphabet.
    public static func isValidUserName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64 else { return false }
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"),
                UInt8(ascii: "@"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
