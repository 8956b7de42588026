import Foundation
import SatchelRepository
import SatchelStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What prebuilt stores need between requests: the folder they are built in, the templates of shared data (one per
/// endpoint, sealed under a key that lives only in this process), and the builds running (one per user at a time,
/// at most ``OfflineTierLimits/maxConcurrentBuilds`` in all).
///
/// Each process works in a folder of its own under the configured one (several servers on one PostgreSQL store may
/// share a data folder), holding a lock on it while it runs; folders whose process is gone are removed when
/// another starts. Answers a client never read are removed after ``answerLifetime``.
final class OfflineBuilds: Sendable {
    /// Shared data of one endpoint, built ahead of time into a store that each build copies.
    struct Template: Sendable {
        let path: String
        let key: StoreKey
        let builtAt: Date
        /// The root its delta links were made under (replaced by the client's in each copy).
        let root: String
    }

    private struct State {
        var running = 0
        var users: Set<String> = []
        /// Stores being built: never swept.
        var building: Set<String> = []
        var templates: [String: Template] = [:]
        /// The template each endpoint had before its current one: removed when the next replaces it, so a build
        /// still copying it is never cut short.
        var retired: [String: Template] = [:]
        var templateBuilds: [String: Task<Template, any Error>] = [:]
    }

    /// How long a built store waits for its client to read it before it is removed.
    static let answerLifetime: TimeInterval = 600

    /// This process's folder.
    let directory: URL
    let maxConcurrent: Int
    private let state = Mutex(State())
    /// The lock on ``directory`` (its `owner.lock`), held until the process ends; -1 when it could not be taken.
    private let lock: Int32

    var templatesFolder: URL { directory.appendingPathComponent("templates", isDirectory: true) }
    var buildsFolder: URL { directory.appendingPathComponent("builds", isDirectory: true) }

    /// Works in a new folder under `parent`, after removing the folders there that no running process holds (their
    /// templates are sealed under keys that went with their process; their builds were never sent).
    init(parent: URL, maxConcurrent: Int) {
        self.maxConcurrent = max(1, maxConcurrent)
        try? PrivateFiles.createFolder(parent)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] {
            let folder = parent.appendingPathComponent(name, isDirectory: true)
            let descriptor = open(folder.appendingPathComponent("owner.lock").path, O_RDWR | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // its process runs
            }
            try? FileManager.default.removeItem(at: folder)
        }
        directory = parent.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try? PrivateFiles.createFolder(directory)
        let descriptor = open(directory.appendingPathComponent("owner.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            lock = descriptor
        } else {
            if descriptor >= 0 { close(descriptor) }
            lock = -1
        }
    }

    deinit {
        if lock >= 0 { close(lock) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new file for a store being built, kept from the sweep until ``finishBuilding(_:)``.
    func newBuildPath() throws -> String {
        let path = try Self.folder(buildsFolder).appendingPathComponent(UUID().uuidString + ".store").path
        _ = state.withLock { $0.building.insert(path) }
        return path
    }

    /// The store at `path` is built (its answer on its way) or abandoned: the sweep may remove it from now on.
    func finishBuilding(_ path: String) {
        _ = state.withLock { $0.building.remove(path) }
    }

    func newTemplatePath(endpoint: String) throws -> String {
        try Self.folder(templatesFolder).appendingPathComponent("\(endpoint)-\(UUID().uuidString).store").path
    }

    /// `folder`, made (owner-only) when missing.
    private static func folder(_ folder: URL) throws -> URL {
        try PrivateFiles.createFolder(folder)
        return folder
    }

    /// Removes a store file and its companions (`-wal`, `-shm`, `-journal`).
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Takes a build slot for `user`, waiting up to `wait` while the user has a build running (one per user at a
    /// time) or ``maxConcurrent`` builds run; then 503.
    func begin(user: String, wait: Duration) async throws {
        let deadline = ContinuousClock.now + wait
        while true {
            let started = state.withLock { state -> Bool in
                guard state.running < maxConcurrent, !state.users.contains(user) else { return false }
                state.running += 1
                state.users.insert(user)
                return true
            }
            if started { break }
            guard ContinuousClock.now < deadline else {
                throw OfflineTierFailure(
                    503, code: "satchel.buildsBusy",
                    "stores are being built (\(maxConcurrent) at a time, one per user): ask again in a moment")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        sweepAbandonedAnswers()
    }

    func end(user: String) {
        state.withLock { state in
            state.running -= 1
            state.users.remove(user)
        }
    }

    /// Removes built stores no build holds any more and no client read within ``answerLifetime`` (a client that went
    /// away before its answer began).
    func sweepAbandonedAnswers() {
        let old = Date().addingTimeInterval(-Self.answerLifetime)
        let building = state.withLock { $0.building }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: buildsFolder.path)) ?? []
        for name in files where name.hasSuffix(".store") {
            let path = buildsFolder.appendingPathComponent(name).path
            guard !building.contains(path) else { continue }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified < old { Self.remove(path) }
        }
    }

    /// The endpoint's current template, if one was built.
    func template(_ endpoint: String) -> Template? { state.withLock { $0.templates[endpoint] } }

    /// Forgets the endpoint's current template (its file failed to copy): the next request builds another.
    func dropTemplate(_ endpoint: String, path: String) {
        state.withLock { state in
            if state.templates[endpoint]?.path == path { state.templates[endpoint] = nil }
        }
    }

    /// Builds the endpoint's template with `build` unless a build of it is running already (then waits for that
    /// one), and makes it current. Cancelling the caller cancels the build.
    func rebuildTemplate(
        _ endpoint: String, _ build: @escaping @Sendable () async throws -> Template
    ) async throws -> Template {
        let (task, owner) = state.withLock { state -> (Task<Template, any Error>, Bool) in
            if let running = state.templateBuilds[endpoint] { return (running, false) }
            let task = Task { try await build() }
            state.templateBuilds[endpoint] = task
            return (task, true)
        }
        guard owner else { return try await task.value }
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        let leaving = state.withLock { state -> Template? in
            state.templateBuilds[endpoint] = nil
            guard case .success(let template) = result else { return nil }
            let leaving = state.retired[endpoint]
            state.retired[endpoint] = state.templates[endpoint]
            state.templates[endpoint] = template
            return leaving
        }
        if let leaving { Self.remove(leaving.path) }
        return try result.get()
    }
}
