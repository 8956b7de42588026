import CSatchelStoreVFS
import Foundation
import GRDB

/// What a store's file says about itself, without a key.
public struct StoreInfo: Sendable, Equatable {
    /// Whether the file is an encrypted store (false: plaintext SQLite, or empty).
    public var isEncrypted: Bool
    /// The store's format version; nil when the file is not an encrypted store.
    public var formatVersion: Int?
    /// How the store's key is made (a raw key or a passphrase); nil when the file is not an encrypted store.
    public var keyDerivation: StoreFormat.KeyDerivation?
    /// PBKDF2 iterations (passphrase stores).
    public var iterations: Int?
    /// Bytes per page: 4,096 for an encrypted store; for a plaintext database, the size its header declares.
    public var pageSize: Int
    /// Pages in the database file (not counting the WAL).
    public var pageCount: Int
    /// Bytes in the `-wal` file, when there is one.
    public var walBytes: Int
}

/// The result of ``StoreFile/check(key:)``.
public struct StoreCheck: Sendable, Equatable {
    /// Pages of the database file opened and authenticated.
    public var pages: Int
    /// WAL frames opened and authenticated.
    public var walFrames: Int
    /// `PRAGMA integrity_check`'s answer: `["ok"]` for a sound database.
    public var integrity: [String]

    /// Whether the integrity check answered `ok` and nothing else.
    public var isSound: Bool { integrity == ["ok"] }
}

extension StoreFile {
    private var companions: [String] { ["-wal", "-shm", "-journal"].map { path + $0 } }

    /// The file's format, key derivation and size, read from its header.
    public func info() throws(StoreError) -> StoreInfo {
        let size = fileSize(path) ?? 0
        var info = StoreInfo(
            isEncrypted: false, pageSize: StoreFormat.pageSize, pageCount: size / StoreFormat.pageSize,
            walBytes: fileSize(path + "-wal") ?? 0)
        let reading = try StoreHeader.read(path: path)
        if let failure = reading.failure(path: path) { throw failure }
        switch reading {
        case .empty: info.pageCount = 0
        case .plaintext:
            if let page = try? readBytes(path, count: 100), page.count >= 100 {
                let declared = Int(page[16]) << 8 | Int(page[17])
                info.pageSize = declared == 1 ? 65536 : declared
                info.pageCount = size / max(info.pageSize, 512)
            }
        case .header(let header):
            info.isEncrypted = true
            info.formatVersion = Int(header.version)
            info.keyDerivation = header.derivation
            info.iterations = header.derivation == .raw ? nil : Int(header.iterations)
        case .notAStore, .implausible, .newerFormat, .truncated: break
        }
        return info
    }

    /// Opens and authenticates every page of the database file and of its WAL, then runs SQLite's integrity check.
    /// Throws the first page that fails (``StoreError/Code/corruptPage`` or ``StoreError/Code/misplacedPage``).
    /// Without a key, checks a plaintext database.
    public func check(key: StoreKey?) throws -> StoreCheck {
        var result = StoreCheck(pages: 0, walFrames: 0, integrity: [])
        let store: LocalStore<DatabaseQueue>
        if let key {
            // The key derived once: its cipher authenticates the pages and opens the database.
            let cipher = try cipher(key: key, creating: false)
            result.pages = try authenticate(path, cipher: cipher, kind: PageCipher.database)
            if hasWAL { result.walFrames = try authenticate(path + "-wal", cipher: cipher, kind: PageCipher.wal) }
            store = try open(cipher: cipher, configuration: Configuration()) {
                try DatabaseQueue(path: path, configuration: $0)
            }
        } else {
            store = try openQueue(key: nil)
        }
        defer { try? store.close() }
        result.integrity = try store.database.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        if key == nil { result.pages = try store.database.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 } }
        return result
    }

    /// Every page of a database (`kind` database) or every frame of a WAL, opened with `cipher`; the count.
    private func authenticate(_ file: String, cipher: PageCipher, kind: Int32) throws(StoreError) -> Int {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw StoreError(.io, path: path, detail: "cannot read \(file)")
        }
        defer { try? handle.close() }
        let pageSize = StoreFormat.pageSize
        var count = 0
        var offset = kind == PageCipher.wal ? 32 : 0
        let step = kind == PageCipher.wal ? pageSize + 24 : pageSize
        do {
            try handle.seek(toOffset: UInt64(offset))
            while true {
                let chunk = try handle.read(upToCount: step) ?? Data()
                if chunk.isEmpty { break }
                guard chunk.count == step else {
                    // A WAL may end inside a frame that was being written when a process died: SQLite ignores it.
                    if kind == PageCipher.wal { break }
                    throw StoreError(.truncated, path: path, found: count)
                }
                var page = [UInt8](chunk.suffix(pageSize))
                let location = kind == PageCipher.wal ? Int64(offset + 24) : Int64(count + 1)
                let opened = page.withUnsafeMutableBytes {
                    cipher.open(kind: kind, page: $0.baseAddress!, size: pageSize, location: location)
                }
                guard opened else { throw pageError(cipher.lastFailure, detail: nil) }
                count += 1
                offset += step
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, path: path, detail: "\(error)")
        }
        return count
    }

    /// Re-encrypts the store under `newKey` (a new salt, so new page keys), into a new file that then replaces the
    /// old one in one rename. A store without a WAL or hot journal beside it (one closed cleanly) is re-sealed page by
    /// page: each page opened with the old key and sealed with the new one, no SQL run, the file's pages unchanged;
    /// otherwise the database is rewritten (`VACUUM INTO`), which takes in what the WAL holds. Every page is
    /// authenticated on the way: a damaged one stops the change and leaves the store as it was. Nothing else may have
    /// the store open.
    public func changeKey(from oldKey: StoreKey, to newKey: StoreKey) throws {
        try requireExisting()
        if StoreVFS.isRegistered(fullPath: try StoreVFS.fullPath(path)) {
            throw StoreError(.io, path: path, detail: "the store is open in this process")
        }
        guard case .header = try StoreHeader.read(path: path), !hasWAL, !hasHotJournal else {
            return try rewrite(source: oldKey, target: newKey)
        }
        try reseal(from: oldKey, to: newKey)
    }

    /// Opens every page of the database file with `oldKey` and seals it with `newKey` into a new file, which then
    /// replaces this one.
    private func reseal(from oldKey: StoreKey, to newKey: StoreKey) throws {
        let old = try cipher(key: oldKey, creating: false)
        let temporary = try startReplacement()
        do {
            let new = try StoreFile(path: temporary).cipher(key: newKey, creating: true)
            guard let input = FileHandle(forReadingAtPath: path),
                let output = FileHandle(forWritingAtPath: temporary)
            else {
                throw StoreError(.io, path: path, detail: "cannot read the store or write \(temporary)")
            }
            defer {
                try? input.close()
                try? output.close()
            }
            let pageSize = StoreFormat.pageSize
            var location: Int64 = 1
            while true {
                // 64 pages at a time: one read and one write per 256 KiB.
                let chunk = try input.read(upToCount: pageSize * 64) ?? Data()
                if chunk.isEmpty { break }
                guard chunk.count % pageSize == 0 else {
                    throw StoreError(
                        .truncated, path: path, found: Int(location) - 1 + chunk.count / pageSize,
                        detail: "the file ends inside a page")
                }
                var pages = [UInt8](chunk)
                // The first page that failed, if any (a closure with a typed throw crashes the compiler here).
                let failed: (page: Int64, sealing: Bool)? = pages.withUnsafeMutableBytes { buffer in
                    for start in stride(from: 0, to: buffer.count, by: pageSize) {
                        let page = buffer.baseAddress! + start
                        guard old.open(kind: PageCipher.database, page: page, size: pageSize, location: location)
                        else { return (location, false) }
                        guard new.seal(kind: PageCipher.database, page: page, size: pageSize, location: location)
                        else { return (location, true) }
                        location += 1
                    }
                    return nil
                }
                if let failed {
                    if failed.sealing {
                        throw StoreError(.io, path: path, detail: "page \(failed.page) could not be sealed")
                    }
                    throw pageError(old.lastFailure, detail: nil)
                }
                try output.write(contentsOf: pages)
            }
            try output.synchronize()
            try finishReplacement(temporary)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Encrypts a plaintext SQLite database in place under `key` (rewritten, then renamed over the original).
    public func encrypt(with key: StoreKey) throws {
        switch try StoreHeader.read(path: path) {
        case .plaintext: try rewrite(source: nil, target: key)
        case .header: throw StoreError(.alreadyEncrypted, path: path)
        case .empty: throw StoreError(.io, path: path, detail: "no database at this path")
        default: throw StoreError(.notAStore, path: path)
        }
    }

    /// Writes a plaintext copy of the store to `destination` (a new file), for support cases. The copy keeps the
    /// store's 64 reserved bytes per page, which any SQLite reads.
    public func export(key: StoreKey, to destination: String) throws {
        try requireExisting()
        try PrivateFile.create(destination)
        do {
            let source = try openQueue(key: key)
            defer { try? source.close() }
            try source.database.writeWithoutTransaction {
                try $0.execute(sql: "VACUUM INTO ?", arguments: [destination])
            }
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
    }

    private func requireExisting() throws(StoreError) {
        if case .empty = try StoreHeader.read(path: path) {
            throw StoreError(.io, path: path, detail: "no store at this path")
        }
    }

    /// Removes the store's files. Refused while the store is open in this process.
    public func destroy() throws(StoreError) {
        if StoreVFS.isRegistered(fullPath: try StoreVFS.fullPath(path)) {
            throw StoreError(.io, path: path, detail: "the store is open")
        }
        for file in [path] + companions where FileManager.default.fileExists(atPath: file) {
            do { try FileManager.default.removeItem(atPath: file) } catch {
                throw StoreError(.io, path: path, detail: "\(error)")
            }
        }
    }

    /// Rewrites the database (opened with `source`, or plain) into a new file encrypted under `target`, then
    /// renames it over this one. A crash before the rename leaves the original whole.
    private func rewrite(source: StoreKey?, target: StoreKey) throws {
        try requireExisting()
        if StoreVFS.isRegistered(fullPath: try StoreVFS.fullPath(path)) {
            throw StoreError(.io, path: path, detail: "the store is open in this process")
        }
        let temporary = try startReplacement()
        do {
            let scratch = StoreFile(path: temporary)
            let targetRegistration = try scratch.register(scratch.cipher(key: target, creating: true))
            defer { targetRegistration.end() }
            let store = try openQueue(key: source)
            try store.database.writeWithoutTransaction { db in
                // VACUUM INTO writes pages of the requested size (a database with other pages is converted). Asked
                // first: PRAGMA page_size also resets the requested reserve.
                try db.execute(sql: "PRAGMA page_size = \(StoreFormat.pageSize)")
                // The new file keeps the cipher's reserve at each page's end (the VFS refuses a page 1 without it).
                _ = satchel_vfs_request_reserve(
                    UnsafeMutableRawPointer(db.sqliteConnection!), Int32(StoreFormat.reserve))
                try db.execute(sql: "VACUUM INTO ?", arguments: [temporary])
            }
            try store.close()
            if hasWAL || hasHotJournal {
                throw StoreError(.io, path: path, detail: "its WAL or journal is in use by another process")
            }
            try PrivateFile.synchronize(temporary)
            try finishReplacement(temporary)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// A new, empty, owner-only file beside the store that will replace it. A leftover from a replacement that
    /// crashed is not a store anyone uses (the original was never replaced): it is removed first.
    private func startReplacement() throws(StoreError) -> String {
        let temporary = path + ".rewrite"
        try? FileManager.default.removeItem(atPath: temporary)
        try PrivateFile.create(temporary)
        return temporary
    }

    /// Renames `temporary` (written and synchronised) over the store, in one step, and makes the rename durable.
    private func finishReplacement(_ temporary: String) throws(StoreError) {
        try PrivateFile.protect(temporary)
        for file in companions { try? FileManager.default.removeItem(atPath: file) }
        guard rename(temporary, path) == 0 else {
            throw StoreError(.io, path: path, detail: PrivateFile.errorText())
        }
        try PrivateFile.synchronize(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}

private func readBytes(_ path: String, count: Int) throws -> [UInt8] {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    return [UInt8](try handle.read(upToCount: count) ?? Data())
}

/// Owner-only permissions and `fsync` for files the store writes itself.
enum PrivateFile {
    /// Creates an empty file readable by the owner alone; fails if it exists.
    static func create(_ path: String) throws(StoreError) {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.io, path: path, detail: errorText())
        }
        close(descriptor)
    }

    static func errorText() -> String { String(cString: strerror(errno)) }

    static func protect(_ path: String) throws(StoreError) {
        guard chmod(path, 0o600) == 0 else {
            throw StoreError(.io, path: path, detail: PrivateFile.errorText())
        }
    }

    static func synchronize(_ path: String) throws(StoreError) {
        let descriptor = Foundation.open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw StoreError(.io, path: path, detail: PrivateFile.errorText())
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StoreError(.io, path: path, detail: PrivateFile.errorText())
        }
    }
}
