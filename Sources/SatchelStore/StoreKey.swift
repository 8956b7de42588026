import Crypto
public import Foundation
import _CryptoExtras

/// The secret that opens a store: a raw 256-bit key (what an app keeps in the platform keychain) or a passphrase,
/// stretched with PBKDF2-HMAC-SHA256 over the store's random salt. Its description never shows the secret.
///
/// ```swift
/// let key = try StoreKey.raw(keychainData)             // 32 bytes
/// let typed = StoreKey.passphrase("correct horse")     // 600,000 iterations by default
/// ```
public struct StoreKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    enum Material: Sendable {
        case raw(SymmetricKey)
        case passphrase(Data, iterations: UInt32)
    }

    let material: Material

    /// PBKDF2 iterations for a new store opened with a passphrase (OWASP's figure for PBKDF2-HMAC-SHA256; about
    /// 60 ms per open on a server core with SHA extensions). An existing store uses the count it was created with.
    public static let defaultIterations = 600_000

    /// A raw 256-bit key.
    public static func raw(_ bytes: some ContiguousBytes) throws(StoreError) -> StoreKey {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == 256 else {
            throw StoreError(.invalidKey, path: "", detail: "a raw key has 32 bytes, not \(key.bitCount / 8)")
        }
        return StoreKey(material: .raw(key))
    }

    /// A fresh random 256-bit key (for an app to keep in its keychain).
    public static func random() -> StoreKey {
        StoreKey(material: .raw(SymmetricKey(size: .bits256)))
    }

    /// A passphrase, stretched with `iterations` of PBKDF2-HMAC-SHA256 when a store is created with it.
    public static func passphrase(_ passphrase: String, iterations: Int = defaultIterations) -> StoreKey {
        StoreKey(
            material: .passphrase(
                Data(passphrase.utf8),
                iterations: min(UInt32(clamping: max(1, iterations)), StoreFormat.maximumIterations)))
    }

    /// The raw key's 32 bytes, for an app that made it with ``random()`` and stores it itself; nil for a passphrase.
    public func withRawBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard case .raw(let key) = material else { return nil }
        return try key.withUnsafeBytes(body)
    }

    /// `StoreKey(raw, redacted)` or `StoreKey(passphrase, redacted)`: the kind of key, never the secret.
    public var description: String {
        switch material {
        case .raw: "StoreKey(raw, redacted)"
        case .passphrase: "StoreKey(passphrase, redacted)"
        }
    }

    /// The same as `description`: the secret does not show in a debugger either.
    public var debugDescription: String { description }

    var derivation: StoreFormat.KeyDerivation {
        switch material {
        case .raw: .raw
        case .passphrase: .pbkdf2SHA256
        }
    }

    /// Iterations for a new store.
    var iterations: UInt32 {
        switch material {
        case .raw: 0
        case .passphrase(_, let iterations): iterations
        }
    }

    /// A 256-bit key stretched from a secret a person types: PBKDF2-HMAC-SHA256, `iterations` rounds over `salt`.
    static func stretch(
        _ secret: Data, salt: [UInt8], iterations: UInt32, path: String
    ) throws(StoreError)
        -> SymmetricKey
    {
        do {
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: secret, salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: Int(iterations))
        } catch {
            throw StoreError(.invalidKey, path: path, detail: "key derivation failed")
        }
    }

    /// The store's master key, from this key and the store's header parameters.
    func master(
        salt: [UInt8], derivation: StoreFormat.KeyDerivation, iterations: UInt32, path: String
    )
        throws(StoreError) -> SymmetricKey
    {
        switch (material, derivation) {
        case (.raw(let key), .raw):
            return key
        case (.passphrase(let passphrase, _), .pbkdf2SHA256):
            guard !passphrase.isEmpty else { throw StoreError(.invalidKey, path: path, detail: "an empty passphrase") }
            return try Self.stretch(passphrase, salt: salt, iterations: iterations, path: path)
        case (.raw, .pbkdf2SHA256):
            throw StoreError(.wrongKey, path: path, detail: "the store was created with a passphrase, not a raw key")
        case (.passphrase, .raw):
            throw StoreError(.wrongKey, path: path, detail: "the store was created with a raw key, not a passphrase")
        }
    }
}
