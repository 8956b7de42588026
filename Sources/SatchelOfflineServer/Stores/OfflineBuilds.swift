import Foundation
import SatchelStore
import Synchronization

/// What prebuilt stores need between requests: the folder they are built in, the templates of shared data (one per
/// endpoint, sealed under a key that lives only in this process), and the builds running (one per user at a time,
/// at most ``OfflineTierLimits/maxConcurrentBuilds`` in all).
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
        var templates: [String: Template] = [:]
        /// The template each endpoint had before its current one: removed when the next replaces it, so a build
        /// still copying it is never cut short.
        var retired: [String: Template] = [:]
        var templateBuilds: [String: Task<Template, any Error>] = [:]
    }

    let directory: URL
    let maxConcurrent: Int
    private let state = Mutex(State())

    var templatesFolder: URL { directory.appendingPathComponent("templates", isDirectory: true) }
    var buildsFolder: URL { directory.appendingPathComponent("builds", isDirectory: true) }

    /// Prepares `directory`: what an earlier process left there (templates sealed under keys it took with it,
    /// stores it was building) is removed. The folders are made when the first store is built.
    init(directory: URL, maxConcurrent: Int) {
        self.directory = directory
        self.maxConcurrent = max(1, maxConcurrent)
        for folder in [templatesFolder, buildsFolder] { try? FileManager.default.removeItem(at: folder) }
    }

    /// A new file name for a store being built.
    func newBuildPath() throws -> String {
        try Self.folder(buildsFolder).appendingPathComponent(UUID().uuidString + ".store").path
    }

    func newTemplatePath(endpoint: String) throws -> String {
        try Self.folder(templatesFolder).appendingPathComponent("\(endpoint)-\(UUID().uuidString).store").path
    }

    /// `folder`, made (owner-only) when missing.
    private static func folder(_ folder: URL) throws -> URL {
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
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
        sweepAbandonedBuilds()
    }

    func end(user: String) {
        state.withLock { state in
            state.running -= 1
            state.users.remove(user)
        }
    }

    /// Removes built stores older than an hour: answers whose client went away before reading them.
    private func sweepAbandonedBuilds() {
        let old = Date().addingTimeInterval(-3600)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: buildsFolder.path)) ?? []
        for name in files {
            let path = buildsFolder.appendingPathComponent(name).path
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified < old { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// The endpoint's current template, if one was built.
    func template(_ endpoint: String) -> Template? { state.withLock { $0.templates[endpoint] } }

    /// Builds the endpoint's template with `build` unless a build of it is running already (then waits for that
    /// one), and makes it current.
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
        let result = await task.result
        let leaving = state.withLock { state -> Template? in
            state.templateBuilds[endpoint] = nil
            guard case .success(let template) = result else { return nil }
            let leaving = state.retired[endpoint]
            state.retired[endpoint] = state.templates[endpoint]
            state.templates[endpoint] = template
            return leaving
        }
        if let leaving { try? FileManager.default.removeItem(atPath: leaving.path) }
        return try result.get()
    }
}
