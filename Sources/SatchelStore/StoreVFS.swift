import CSatchelStoreVFS
import Foundation
import Synchronization

/// The bridge between the C VFS and the ciphers of the stores open in this process: a registry from each store's
/// full path (as SQLite names it) to its cipher. A file whose database is not registered is ordinary SQLite.
enum StoreVFS {
    private struct Entry {
        let cipher: PageCipher
        var opens: Int
    }

    private static let registry = Mutex<[String: Entry]>([:])

    /// Installs the VFS once per process (as SQLite's default, over the platform's).
    static let installation: Int32 = {
        var cipher = satchel_vfs_cipher(
            retain: { path in
                let key = String(cString: path)
                return StoreVFS.registry.withLock { registry in
                    registry[key].map { Unmanaged.passRetained($0.cipher).toOpaque() }
                }
            },
            retainAgain: { context in _ = Unmanaged<PageCipher>.fromOpaque(context).retain() },
            release: { context in Unmanaged<PageCipher>.fromOpaque(context).release() },
            seal: { context, kind, page, size, location in
                Unmanaged<PageCipher>.fromOpaque(context).takeUnretainedValue()
                    .seal(kind: kind, page: page, size: Int(size), location: location) ? 0 : 1
            },
            open: { context, kind, page, size, location in
                Unmanaged<PageCipher>.fromOpaque(context).takeUnretainedValue()
                    .open(kind: kind, page: page, size: Int(size), location: location) ? 0 : 1
            })
        return satchel_vfs_install(&cipher, Int32(StoreFormat.pageSize), Int32(StoreFormat.reserve))
    }()

    /// The path SQLite gives the files of the database at `path`.
    static func fullPath(_ path: String) throws(StoreError) -> String {
        guard installation == 0 else {
            throw StoreError(.io, path: path, detail: "the encrypting VFS could not be installed (\(installation))")
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard satchel_vfs_full_path(path, &buffer, Int32(buffer.count)) == 0 else {
            throw StoreError(.io, path: path, detail: "cannot resolve the path")
        }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Registers `cipher` for the database at `fullPath` until the registration ends. A store opened again while
    /// open shares the registration when its key check matches.
    static func register(_ cipher: PageCipher, fullPath: String, path: String) throws(StoreError) -> Registration {
        let shared = registry.withLock { registry -> PageCipher? in
            if var entry = registry[fullPath] {
                guard entry.cipher.header == cipher.header else { return nil }
                entry.opens += 1
                registry[fullPath] = entry
                return entry.cipher
            }
            registry[fullPath] = Entry(cipher: cipher, opens: 1)
            return cipher
        }
        guard let shared else { throw StoreError(.openWithAnotherKey, path: path) }
        return Registration(fullPath: fullPath, cipher: shared)
    }

    static func registeredCipher(fullPath: String) -> PageCipher? {
        registry.withLock { $0[fullPath]?.cipher }
    }

    static func isRegistered(fullPath: String) -> Bool {
        registry.withLock { $0[fullPath] != nil }
    }

    fileprivate static func unregister(fullPath: String) {
        registry.withLock { registry in
            guard var entry = registry[fullPath] else { return }
            entry.opens -= 1
            registry[fullPath] = entry.opens > 0 ? entry : nil
        }
    }

    /// A store's place in the registry; ends once, at ``end()`` or when released.
    final class Registration: Sendable {
        let fullPath: String
        let cipher: PageCipher
        private let ended = Atomic<Bool>(false)

        fileprivate init(fullPath: String, cipher: PageCipher) {
            self.fullPath = fullPath
            self.cipher = cipher
        }

        func end() {
            if !ended.exchange(true, ordering: .relaxed) { StoreVFS.unregister(fullPath: fullPath) }
        }

        deinit { end() }
    }
}
