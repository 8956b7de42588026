import Synchronization

/// A bearer token (RFC 6750) with an async refresh hook.
///
/// The token is fetched on first use when none is given, and refreshed after a `401`. Concurrent requests that
/// fail together share one refresh.
///
/// ```swift
/// let auth = BearerTokenAuth { try await identityProvider.accessToken() }
/// ```
public final class BearerTokenAuth: HTTPAuthProvider {
    private struct State {
        var token: String?
        var refresh: Task<String, any Error>?
    }

    private let state: Mutex<State>
    private let refreshToken: @Sendable () async throws -> String

    /// Starts with `token` (fetched with `refresh` on first use when nil); `refresh` returns a new token.
    public init(token: String? = nil, refresh: @escaping @Sendable () async throws -> String) {
        state = Mutex(State(token: token))
        refreshToken = refresh
    }

    /// The token in use now.
    public var token: String? { state.withLock { $0.token } }

    /// Sets `Authorization: Bearer …`, fetching a token first when there is none.
    public func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws {
        var token = state.withLock { $0.token }
        if token == nil { token = try await refreshed(replacing: nil) }
        guard let token else { return }
        request.headers["Authorization"] = "Bearer \(token)"
    }

    /// After a `401`, refreshes the token (unless another request already replaced the one sent) and asks for a resend.
    /// A failed refresh throws `.unauthorized`.
    public func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws
        -> Bool
    {
        guard response.status == 401 else { return false }
        let sent = request.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) }
        _ = try await refreshed(replacing: sent)
        return true
    }

    /// Refreshes unless another request already replaced `stale`; all callers wait for the same refresh.
    private func refreshed(replacing stale: String?) async throws -> String {
        let task = state.withLock { state -> Task<String, any Error> in
            if let current = state.token, current != stale { return Task { current } }
            if let running = state.refresh { return running }
            let refresh = refreshToken
            let task = Task { try await refresh() }
            state.refresh = task
            return task
        }
        do {
            let token = try await task.value
            state.withLock {
                $0.token = token
                $0.refresh = nil
            }
            return token
        } catch {
            state.withLock { $0.refresh = nil }
            throw HTTPTransferError(.unauthorized, "refreshing the bearer token failed", underlying: error)
        }
    }
}
