package import Foundation

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

    /// The permission bits and owner of `file` (a symbolic link's target's), or nil when it cannot be read: what
    /// the checks on secrets (keys, password files, the gateway file) look at.
    package static func access(of file: URL) -> (mode: Int, owner: UInt32)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path),
            let mode = attributes[.posixPermissions] as? Int,
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value
        else { return nil }
        return (mode, owner)
    }

    /// The content of a file holding a secret (a password), without its leading and trailing line breaks, after checking that the file belongs to this
    /// process's user (or root) and that nobody else may read or change it. `role` names the secret in messages.
    package static func readSecret(_ file: URL, role: String) throws(PrivateFileError) -> String {
        let mode = try ownedMode(of: file)
        guard mode & 0o077 == 0 else {
            throw PrivateFileError(
                "the \(role) file \(file.path) may be read by others (mode \(String(mode, radix: 8))): chmod 600 it")
        }
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw PrivateFileError("cannot read the \(role) file \(file.path)")
        }
        let secret = text.trimmingCharacters(in: .newlines)
        guard !secret.isEmpty else { throw PrivateFileError("the \(role) file \(file.path) is empty") }
        return secret
    }

    /// Refuses a configuration file that others could change, or that belongs to someone else: what it says
    /// decides where credentials go. `role` names the file in messages.
    package static func checkNotWritableByOthers(_ file: URL, role: String) throws(PrivateFileError) {
        let mode = try ownedMode(of: file)
        guard mode & 0o022 == 0 else {
            throw PrivateFileError(
                "the \(role) \(file.path) may be changed by others (mode \(String(mode, radix: 8))): chmod go-w it")
        }
    }

    /// The permission bits of `file`, once it is known to belong to this process's user or root.
    private static func ownedMode(of file: URL) throws(PrivateFileError) -> Int {
        guard let (mode, owner) = access(of: file) else { throw PrivateFileError("cannot read \(file.path)") }
        guard owner == geteuid() || owner == 0 else {
            throw PrivateFileError("\(file.path) belongs to another user (uid \(owner))")
        }
        return mode
    }

    /// Sets `path`'s mode when it exists.
    package static func restrict(_ path: String, mode: mode_t = 0o600) {
        _ = chmod(path, mode)
    }
}

/// A private file that cannot be used, and why.
package struct PrivateFileError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
