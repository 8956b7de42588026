import Foundation

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

    /// Replaces `file` with `data` atomically: written to an owner-only temporary file beside it (never readable by
    /// others, not even for a moment), flushed, then renamed over it. A crash leaves the old file or the new one.
    package static func replace(_ file: URL, with data: Data) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(temporary) }
        var written = 0
        let complete = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return fsync(descriptor) == 0
        }
        let error = failure(temporary)
        close(descriptor)
        guard complete, rename(temporary.path, file.path) == 0 else {
            let renameError = complete ? failure(file) : error
            unlink(temporary.path)
            throw renameError
        }
    }

    private static func failure(_ url: URL) -> CocoaError {
        CocoaError(
            .fileWriteUnknown,
            userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
    }

    /// Sets `path`'s mode when it exists.
    package static func restrict(_ path: String, mode: mode_t = 0o600) {
        _ = chmod(path, mode)
    }
}
