import Crypto
import Foundation
import _CryptoExtras

/// A salted PBKDF2-HMAC-SHA256 password hash, in the users file as `pbkdf2-sha256$<rounds>$<salt b64>$<hash b64>`.
///
/// ```swift
/// let hash = try PasswordHash.make(password: "s3cret")
/// hash.encoded                       // "pbkdf2-sha256$210000$…$…"
/// hash.verify(password: "s3cret")     // true
/// ```
public struct PasswordHash: Sendable, Hashable {
    /// The scheme name at the start of an encoded hash.
    public static let scheme = "pbkdf2-sha256"
    /// Rounds used for new hashes.
    public static let defaultRounds = 210_000

    /// PBKDF2 iterations.
    public var rounds: Int
    /// The random salt (16 bytes for hashes `make(password:rounds:)` creates).
    public var salt: [UInt8]
    /// The derived key (32 bytes for new hashes; at least 16 in a parsed one).
    public var hash: [UInt8]

    /// A hash of the given parts, unchecked.
    public init(rounds: Int, salt: [UInt8], hash: [UInt8]) {
        self.rounds = rounds
        self.salt = salt
        self.hash = hash
    }

    /// Parses `pbkdf2-sha256$rounds$salt$hash`.
    public init(encoded: String) throws(AuthError) {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Self.scheme else {
            throw AuthError("password hash is not \(Self.scheme)$<rounds>$<salt>$<hash>")
        }
        guard let rounds = Int(parts[1]), rounds > 0, rounds <= 10_000_000 else {
            throw AuthError("password hash has an invalid round count")
        }
        guard let salt = Data(base64Encoded: String(parts[2])), let hash = Data(base64Encoded: String(parts[3])),
            !salt.isEmpty, hash.count >= 16
        else { throw AuthError("password hash has an invalid salt or hash (base64 expected)") }
        self.init(rounds: rounds, salt: Array(salt), hash: Array(hash))
    }

    /// The users-file form.
    public var encoded: String {
        "\(Self.scheme)$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
    }

    /// Hashes `password` with a fresh 16-byte random salt.
    public static func make(password: String, rounds: Int = defaultRounds) throws(AuthError) -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return PasswordHash(
            rounds: rounds, salt: salt, hash: try derive(password: password, salt: salt, rounds: rounds))
    }

    /// Whether `password` matches, compared in constant time.
    public func verify(password: String) -> Bool {
        guard let candidate = try? Self.derive(password: password, salt: salt, rounds: rounds, length: hash.count)
        else { return false }
        return constantTimeEqual(candidate, hash)
    }

    static func derive(password: String, salt: [UInt8], rounds: Int, length: Int = 32) throws(AuthError) -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: length,
                unsafeUncheckedRounds: rounds)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw AuthError("could not derive the password hash: \(error)")
        }
    }
}

/// Compares two byte strings without stopping at the first difference.
func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
}

/// Compares two strings without stopping at the first difference.
func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
    constantTimeEqual(Array(lhs.utf8), Array(rhs.utf8))
}

/// A problem with users, passwords or the users file.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, for a person.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
