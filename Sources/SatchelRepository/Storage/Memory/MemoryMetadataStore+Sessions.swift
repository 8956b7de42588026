public import Foundation

/// ``SessionStore`` in memory: each change is one step under the store's lock.
extension MemoryMetadataStore: SessionStore {
    /// The first secret proposed under `name`.
    public func sharedSecret(name: String, proposed: [UInt8]) async throws -> [UInt8] {
        withState { state in
            if let stored = state.secrets[name] { return stored }
            state.secrets[name] = proposed
            return proposed
        }
    }

    /// A dictionary update.
    public func replaceSecret(name: String, value: [UInt8]) async throws {
        withState { $0.secrets[name] = value }
    }

    /// A dictionary insert.
    public func startSession(_ session: StoredSession) async throws {
        withState { $0.sessions[session.digest] = session }
    }

    /// A dictionary lookup.
    public func session(digest: String) async throws -> StoredSession? {
        withState { $0.sessions[digest] }
    }

    /// Does nothing for a session that has ended.
    public func extendSession(digest: String, until expires: Date) async throws {
        withState { $0.sessions[digest]?.expires = expires }
    }

    /// A dictionary removal.
    public func endSession(digest: String) async throws -> Bool {
        withState { $0.sessions.removeValue(forKey: digest) != nil }
    }

    /// A filter of every session.
    public func expireSessions(before time: Date) async throws -> Int {
        withState { state in
            let before = state.sessions.count
            state.sessions = state.sessions.filter { $0.value.expires >= time }
            return before - state.sessions.count
        }
    }

    /// The look, the decision and the count in one step under the store's lock.
    public func admitLogin(
        keys: [String], at time: Date, forgetBefore: Date, admit: @escaping @Sendable ([String: LoginFailures]) -> Bool
    ) async throws -> (admitted: Bool, failures: [String: LoginFailures]) {
        withState { state in
            var seen: [String: LoginFailures] = [:]
            for key in keys { seen[key] = state.loginFailures[key] }
            guard admit(seen) else { return (false, seen) }
            for key in Set(keys) {
                let previous = state.loginFailures[key].flatMap { $0.last >= forgetBefore ? $0.count : nil } ?? 0
                state.loginFailures[key] = LoginFailures(count: previous + 1, last: time)
            }
            return (true, seen)
        }
    }

    /// One step under the store's lock.
    public func settleLogin(clearing: [String], takingBack: [String]) async throws {
        withState { state in
            for key in clearing { state.loginFailures[key] = nil }
            for key in takingBack {
                guard var failures = state.loginFailures[key] else { continue }
                failures.count -= 1
                state.loginFailures[key] = failures.count > 0 ? failures : nil
            }
        }
    }

    /// A filter of every count.
    public func forgetLoginFailures(before time: Date) async throws {
        withState { state in state.loginFailures = state.loginFailures.filter { $0.value.last >= time } }
    }
}
