public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Folders and files that only their owner may open, whatever the process's umask: a repository's metadata and
/// content are nobody else's business on a shared machine.
package enum PrivateFiles {
    /// Creates `folder` and any missing parents (the ones created with mode 0700), and makes `folder` itself 0700.
    package static func createFolder(_ folder: URL) throws {
        var missing: [URL] = []
        var current = folder.standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path) && current.path != "/" {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        for url in missing.reversed() where mkdir(url.path, 0o700) != 0 && errno != EEXIST {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
        restrict(folder.path, mode: 0o700)
    }

    /// Creates an empty file with mode 0600 unless it exists, then makes it 0600. SQLite gives the journal and WAL
    /// files it creates beside a database the database file's mode.
    package static func prepareFile(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        restrict(path)
    }

    /// Replaces `file` with `data` atomically and durably: written to an owner-only temporary file beside it (never
    /// readable by others, not even for a moment), flushed, renamed over it, and the folder flushed. A crash leaves
    /// the old file or the new one, and at most a temporary file that ``removeLeftovers(of:)`` sweeps.
    package static func replace(_ file: URL, with data: Data) throws {
        let folder = file.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(temporary, errno) }
        var code: Int32 = 0
        data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    code = count < 0 ? errno : EIO
                    return
                }
                written += count
            }
            if fsync(descriptor) != 0 { code = errno }
        }
        if close(descriptor) != 0, code == 0 { code = errno }
        if code == 0, rename(temporary.path, file.path) != 0 { code = errno }
        guard code == 0 else {
            unlink(temporary.path)
            throw failure(file, code)
        }
        // The rename itself is durable once the folder is flushed.
        let directory = open(folder.path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Removes the temporary files a crash during ``replace(_:with:)`` of `file` left beside it.
    package static func removeLeftovers(of file: URL) {
        let folder = file.deletingLastPathComponent()
        let prefix = ".\(file.lastPathComponent)."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    private static func failure(_ url: URL, _ code: Int32) -> CocoaError {
        CocoaError(
            .fileWriteUnknown,
            userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: String(cString: strerror(code))])
    }

    /// The permission bits and owner of `file` (a symbolic link's target's), or nil when it cannot be read: what
    /// the checks on secrets (keys, password files, the gateway file) look at.
    package static func access(of file: URL) -> (mode: Int, owner: UInt32)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path),
            let mode = attributes[.posixPermissions] as? Int,
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value
        else { return nil }
        return (mode, owner)
    }

    /// Sets `path`'s mode when it exists.
    package static func restrict(_ path: String, mode: mode_t = 0o600) {
        _ = chmod(path, mode)
    }
}
