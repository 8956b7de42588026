import Foundation

/// The on-disk format of an encrypted store (docs/store-format.md). Version 1:
///
/// - Pages of 4,096 bytes. The last 64 bytes of every page (SQLite's *reserved* bytes) are the trailer below;
///   the rest is AES-256-GCM ciphertext, except bytes 0–15 of the database's page 1, which hold the salt in the clear
///   where SQLite keeps its magic string.
/// - Trailer: nonce (12), tag (16), location (8, big-endian: page number, or byte offset of a journal/WAL page image),
///   format version (1), key derivation (1: 0 raw key, 1 PBKDF2-HMAC-SHA256), iterations (4, big-endian),
///   key check (12), marker (10: `SATCHELSTR`, the same in every version; it tells a store from other files).
/// - Associated data: the file kind (1 byte), trailer bytes 28–63, and for the database's page 1 the salt.
public enum StoreFormat {
    /// The format version this library writes and reads; a store with a higher one is refused (`newerFormat`).
    public static let version: UInt8 = 1
    /// Bytes per page of an encrypted store.
    public static let pageSize = 4096
    /// Bytes at the end of every page that hold the page's trailer (SQLite's reserved bytes).
    public static let reserve = 64
    static let saltSize = 16
    static let nonceSize = 12
    static let tagSize = 16
    static let keyCheckSize = 12

    // Trailer offsets (from the trailer's start).
    static let nonceOffset = 0
    static let tagOffset = 12
    static let locationOffset = 28
    static let versionOffset = 36
    static let derivationOffset = 37
    static let iterationsOffset = 38
    static let keyCheckOffset = 42
    static let markerOffset = 54
    static let marker = Array("SATCHELSTR".utf8)
    /// The largest PBKDF2 iteration count a store may declare.
    public static let maximumIterations: UInt32 = 10_000_000
    /// The authenticated, clear part of the trailer: location through the marker.
    static let authenticatedRange = 28..<64

    static let sqliteMagic = Array("SQLite format 3\0".utf8)

    /// How the store's key is made from what the app holds.
    public enum KeyDerivation: UInt8, Sendable {
        /// A 256-bit key used as is (from the platform keychain).
        case raw = 0
        /// A passphrase through PBKDF2-HMAC-SHA256 with the store's salt.
        case pbkdf2SHA256 = 1
    }
}

/// What page 1 of a store file says before any key is applied.
struct StoreHeader: Equatable {
    var salt: [UInt8]
    var version: UInt8
    var derivation: StoreFormat.KeyDerivation
    var iterations: UInt32
    var keyCheck: [UInt8]

    enum Reading {
        case empty
        case header(StoreHeader)
        case plaintext
        case newerFormat(UInt8)
        case notAStore
        case truncated(bytes: Int)
        /// A store whose clear header fields cannot be right (page 1 damaged).
        case implausible

        /// Why a file read so cannot be opened as it is: nil for an empty file, a store's header and plaintext.
        func failure(path: String) -> StoreError? {
            switch self {
            case .empty, .header, .plaintext: nil
            case .notAStore: StoreError(.notAStore, path: path)
            case .implausible: StoreError(.corruptPage, path: path, page: 1, detail: "its header fields are damaged")
            case .newerFormat(let version): StoreError(.newerFormat, path: path, found: Int(version))
            case .truncated(let bytes):
                StoreError(.truncated, path: path, found: bytes / StoreFormat.pageSize, detail: "\(bytes) bytes")
            }
        }
    }

    /// Reads the header of the file at `path` (page 1, raw).
    static func read(path: String) throws(StoreError) -> Reading {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if !FileManager.default.fileExists(atPath: path) { return .empty }
            throw StoreError(.io, path: path, detail: "cannot read the file")
        }
        defer { try? handle.close() }
        let size: UInt64
        let data: Data
        do {
            size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            data = try handle.read(upToCount: StoreFormat.pageSize) ?? Data()
        } catch {
            throw StoreError(.io, path: path, detail: "\(error)")
        }
        if size == 0 { return .empty }
        let bytes = [UInt8](data)
        if bytes.count >= 16, Array(bytes[0..<16]) == StoreFormat.sqliteMagic { return .plaintext }
        if bytes.count < StoreFormat.pageSize || size % UInt64(StoreFormat.pageSize) != 0 {
            return .truncated(bytes: Int(size))
        }
        let trailer = StoreFormat.pageSize - StoreFormat.reserve
        let marker = trailer + StoreFormat.markerOffset
        guard Array(bytes[marker..<marker + StoreFormat.marker.count]) == StoreFormat.marker else { return .notAStore }
        let version = bytes[trailer + StoreFormat.versionOffset]
        guard version != 0 else { return .notAStore }
        guard version <= StoreFormat.version else { return .newerFormat(version) }
        guard let derivation = StoreFormat.KeyDerivation(rawValue: bytes[trailer + StoreFormat.derivationOffset]) else {
            return .notAStore
        }
        var iterations: UInt32 = 0
        for i in 0..<4 { iterations = iterations << 8 | UInt32(bytes[trailer + StoreFormat.iterationsOffset + i]) }
        // Read before it can be authenticated: an implausible count (a damaged header, or one made to stall the key
        // derivation for minutes) is refused.
        if derivation == .pbkdf2SHA256, iterations == 0 || iterations > StoreFormat.maximumIterations {
            return .implausible
        }
        let check = trailer + StoreFormat.keyCheckOffset
        return .header(
            StoreHeader(
                salt: Array(bytes[0..<StoreFormat.saltSize]), version: version, derivation: derivation,
                iterations: iterations, keyCheck: Array(bytes[check..<check + StoreFormat.keyCheckSize])))
    }
}
