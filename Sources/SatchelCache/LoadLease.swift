import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A load in progress, said by a file it keeps locked (`flock`) while it runs: whoever opens the cache meanwhile
/// (another process, or this one) discards only loads whose lease nobody holds — those of a process that died.
final class LoadLease: Sendable {
    let name: String
    private let path: String
    private let descriptor: Int32

    init(in folder: URL) throws {
        name = UUID().uuidString
        path = folder.appendingPathComponent(name).path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Ends the load's lease (its file goes).
    func end() {
        unlink(path)
        close(descriptor)
    }

    /// Whether a live load holds the lease `name` (a missing file: its process died before or after holding it).
    static func isHeld(_ name: String?, in folder: URL) -> Bool {
        guard let name, !name.contains("/") else { return false }
        let path = folder.appendingPathComponent(name).path
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return true }
        unlink(path)
        return false
    }
}
