import Crypto
public import Foundation
import SatchelText
import Synchronization

/// Where an app keeps the raw keys of its stores, by name (one per store: `alice-shop`), so that a store's key never
/// lives in the app's code or its settings: the Keychain on Apple platforms (`KeychainKeyStore`, built only there), a file sealed
/// under a passcode elsewhere (``PasscodeKeyFile``), or the app's own.
///
/// ```swift
/// let keys = try PasscodeKeyFile(path: folder + "/keys", passcode: passcode)
/// let key = try await keys.key(namedOrNew: "alice-shop")   // made and kept the first time
/// let store = OfflineStore(configuration: .init(service: service, path: path, definingQueries: queries, key: key))
/// ```
public protocol StoreKeyStore: Sendable {
    /// The key kept under `name`; nil when there is none.
    func key(named name: String) async throws -> StoreKey?
    /// Keeps `key` (a raw key: a passphrase is something a person types, not something kept) under `name`,
    /// replacing the one kept there.
    func save(_ key: StoreKey, named name: String) async throws
    /// Forgets the key kept under `name` (nothing happens when there is none). A store sealed with it cannot be
    /// opened any more.
    func removeKey(named name: String) async throws
}

extension StoreKeyStore {
    /// The key kept under `name`; the first time, a new random key, kept before it is returned.
    public func key(namedOrNew name: String) async throws -> StoreKey {
        if let key = try await key(named: name) { return key }
        let key = StoreKey.random()
        try await save(key, named: name)
        return key
    }
}

extension StoreKey {
    /// The raw key's bytes, or `invalidKey` for a passphrase (which no key store keeps).
    func rawBytesForKeeping(path: String) throws(StoreError) -> [UInt8] {
        guard let bytes = withRawBytes({ Array($0) }) else {
            throw StoreError(
                .invalidKey, path: path, detail: "a key store keeps raw keys (StoreKey.random()), not passphrases")
        }
        return bytes
    }
}

/// Store keys in one file sealed under a passcode: the passcode is stretched with PBKDF2-HMAC-SHA256 over the
/// file's random salt, and the keys are sealed with AES-256-GCM, the file's header authenticated with them. A wrong
/// passcode and a changed byte are both refused (`wrongKey`); nothing is read from a file that does not open. The
/// file is written whole to a temporary file beside it and renamed over it (readable by its owner alone), so a
/// crash leaves the old keys or the new ones, never half of them. The file work, the key stretching and the wait for
/// another process's lock run on a dispatch thread (`BlockingWork`), never on a thread of the concurrency pool.
///
/// File layout: `SATKEYS1`, iterations (4 bytes, big-endian), salt (16 bytes), then the sealed box (nonce,
/// ciphertext, tag) of the entries: a count (4 bytes), then per key its name's length (2 bytes), the name in
/// UTF-8 and the key's 32 bytes.
public final class PasscodeKeyFile: StoreKeyStore {
    /// The file.
    public let path: String
    private let passcode: Data
    private let iterations: UInt32
    /// The passcode's key for the file's salt, derived once; every read and write goes through this lock.
    private let sealing: Mutex<(salt: [UInt8], iterations: UInt32, key: SymmetricKey)?>

    static let magic = Array("SATKEYS1".utf8)
    static let headerSize = 8 + 4 + 16
    static let maximumIterations: UInt32 = 10_000_000

    /// The key file at `path` (made at the first ``save(_:named:)``) under `passcode`; a new file stretches the
    /// passcode with `iterations` of PBKDF2 (an existing one keeps its own count).
    public init(path: String, passcode: String, iterations: Int = StoreKey.defaultIterations) throws(StoreError) {
        guard !passcode.isEmpty else { throw StoreError(.invalidKey, path: path, detail: "an empty passcode") }
        self.path = path
        self.passcode = Data(passcode.utf8)
        self.iterations = min(UInt32(clamping: max(1, iterations)), Self.maximumIterations)
        self.sealing = Mutex(nil)
    }

    public func key(named name: String) async throws -> StoreKey? {
        try await BlockingWork.shared.run { [self] () throws(StoreError) -> StoreKey? in
            try sealing.withLock { sealing throws(StoreError) -> StoreKey? in
                guard let bytes = try read(&sealing)[name] else { return nil }
                return try StoreKey.raw(bytes)
            }
        }
    }

    public func save(_ key: StoreKey, named name: String) async throws {
        let bytes = try key.rawBytesForKeeping(path: path)
        try Self.check(name, path: path)
        try await changing { [self] sealing throws(StoreError) in
            var keys = try read(&sealing)
            keys[name] = bytes
            try write(keys, &sealing)
        }
    }

    public func removeKey(named name: String) async throws {
        try await changing { [self] sealing throws(StoreError) in
            var keys = try read(&sealing)
            guard keys.removeValue(forKey: name) != nil else { return }
            try write(keys, &sealing)
        }
    }

    /// The names of the keys kept, sorted.
    public func names() async throws -> [String] {
        try await BlockingWork.shared.run { [self] () throws(StoreError) -> [String] in
            try sealing.withLock { sealing throws(StoreError) in try read(&sealing).keys.sorted() }
        }
    }

    /// Seals the keys under a new passcode (with a new salt): the old passcode opens nothing from then on.
    public func changePasscode(to newPasscode: String) async throws {
        guard !newPasscode.isEmpty else { throw StoreError(.invalidKey, path: path, detail: "an empty passcode") }
        try await changing { [self] sealing throws(StoreError) in try reseal(&sealing, passcode: newPasscode) }
    }

    /// Runs a change of the file on a dispatch thread, under this instance's lock and the file's (`flock`).
    private func changing(
        _ body:
            @escaping @Sendable (inout (salt: [UInt8], iterations: UInt32, key: SymmetricKey)?) throws(StoreError)
            -> Void
    ) async throws {
        try await BlockingWork.shared.run { [self] () throws(StoreError) in
            try sealing.withLock { sealing throws(StoreError) in
                try Self.withFileLock(path) { () throws(StoreError) in try body(&sealing) }
            }
        }
    }

    private func reseal(
        _ sealing: inout (salt: [UInt8], iterations: UInt32, key: SymmetricKey)?, passcode newPasscode: String
    ) throws(StoreError) {
        let keys = try read(&sealing)
        let salt = Self.randomSalt()
        sealing = (
            salt, iterations,
            try StoreKey.stretch(Data(newPasscode.utf8), salt: salt, iterations: iterations, path: path)
        )
        try write(keys, &sealing)
    }

    // MARK: The file

    /// The keys in the file; none when there is no file yet.
    private func read(
        _ sealing: inout (salt: [UInt8], iterations: UInt32, key: SymmetricKey)?
    ) throws(StoreError) -> [String: [UInt8]] {
        let data: Data
        do {
            guard FileManager.default.fileExists(atPath: path) else { return [:] }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw StoreError(.io, path: path, detail: "the key file cannot be read: \(error.localizedDescription)")
        }
        let bytes = [UInt8](data)
        guard bytes.count >= Self.headerSize + 28 else {
            throw StoreError(
                bytes.starts(with: Self.magic) ? .truncated : .notAStore, path: path, found: bytes.count,
                detail: "not a whole key file (\(bytes.count) bytes)")
        }
        guard bytes.starts(with: Self.magic) else {
            throw StoreError(.notAStore, path: path, detail: "not a key file (it does not start with SATKEYS1)")
        }
        let iterations = bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard iterations >= 1, iterations <= Self.maximumIterations else {
            throw StoreError(.notAStore, path: path, detail: "the key file declares \(iterations) iterations")
        }
        let salt = Array(bytes[12..<28])
        let key: SymmetricKey
        if let sealing, sealing.salt == salt, sealing.iterations == iterations {
            key = sealing.key
        } else {
            key = try StoreKey.stretch(passcode, salt: salt, iterations: iterations, path: path)
        }
        let plain: Data
        do {
            let box = try AES.GCM.SealedBox(combined: bytes[Self.headerSize...])
            plain = try AES.GCM.open(box, using: key, authenticating: bytes[0..<Self.headerSize])
        } catch {
            throw StoreError(
                .wrongKey, path: path, detail: "the passcode does not open the key file, or the file was changed")
        }
        // Kept with the count it was derived with: the file is written again with that count, never this
        // instance's.
        sealing = (salt, iterations, key)
        return try Self.entries(in: [UInt8](plain), path: path)
    }

    private func write(
        _ keys: [String: [UInt8]], _ sealing: inout (salt: [UInt8], iterations: UInt32, key: SymmetricKey)?
    ) throws(StoreError) {
        if sealing == nil {
            let salt = Self.randomSalt()
            sealing = (salt, iterations, try StoreKey.stretch(passcode, salt: salt, iterations: iterations, path: path))
        }
        guard let (salt, count, key) = sealing else { return }
        var header = Self.magic
        header += [UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        header += salt
        var plain: [UInt8] = []
        Self.append(UInt32(keys.count), bytes: 4, to: &plain)
        for (name, key) in keys.sorted(by: { $0.key < $1.key }) {
            let utf8 = Array(name.utf8)
            Self.append(UInt32(utf8.count), bytes: 2, to: &plain)
            plain += utf8 + key
        }
        let sealed: Data
        do {
            guard let combined = try AES.GCM.seal(plain, using: key, authenticating: header).combined else {
                throw StoreError(.io, path: path, detail: "sealing the keys failed")
            }
            sealed = combined
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, path: path, detail: "sealing the keys failed: \(error)")
        }
        try Self.replace(path, with: Data(header) + sealed)
    }

    /// Runs `body` holding an exclusive lock on `<path>.lock` (`flock`): two processes changing one key file take
    /// turns, and neither loses the other's key.
    static func withFileLock(_ path: String, _ body: () throws(StoreError) -> Void) throws(StoreError) {
        let descriptor = open(path + ".lock", O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.io, path: path, detail: "cannot open \(path).lock: errno \(errno)")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw StoreError(.io, path: path, detail: "cannot lock \(path).lock: errno \(errno)")
        }
        defer { flock(descriptor, LOCK_UN) }
        try body()
    }

    /// Writes `data` to a new owner-only file beside `path`, flushed, then renames it over `path` (and flushes the
    /// folder, so the rename itself survives a crash).
    static func replace(_ path: String, with data: Data) throws(StoreError) {
        let temporary = path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.io, path: path, detail: "cannot create \(temporary): errno \(errno)")
        }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result <= 0 { return false }
                written += result
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw StoreError(.io, path: path, detail: "cannot write the key file: errno \(errno)")
        }
        let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    static func entries(in plain: [UInt8], path: String) throws(StoreError) -> [String: [UInt8]] {
        var position = 0
        func take(_ count: Int) throws(StoreError) -> ArraySlice<UInt8> {
            guard count >= 0, plain.count - position >= count else {
                throw StoreError(.truncated, path: path, detail: "the key file's entries end at byte \(position)")
            }
            defer { position += count }
            return plain[position..<position + count]
        }
        func number(_ width: Int) throws(StoreError) -> Int {
            try take(width).reduce(0) { $0 << 8 | Int($1) }
        }
        var keys: [String: [UInt8]] = [:]
        let count = try number(4)
        for _ in 0..<count {
            let length = try number(2)
            let name = String(decoding: try take(length), as: UTF8.self)
            keys[name] = Array(try take(32))
        }
        return keys
    }

    static func append(_ value: UInt32, bytes: Int, to buffer: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) { buffer.append(UInt8(value >> shift & 0xFF)) }
    }

    static func check(_ name: String, path: String) throws(StoreError) {
        guard !name.isEmpty, name.utf8.count <= 1024 else {
            throw StoreError(.invalidKey, path: path, detail: "a key's name has 1 to 1024 bytes")
        }
    }

    static func randomSalt() -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: 128)).withUnsafeBytes { Array($0) }
    }
}
