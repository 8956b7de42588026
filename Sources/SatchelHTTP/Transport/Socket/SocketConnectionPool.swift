import Synchronization

/// Idle keep-alive connections, per host and port, at most `maximumPerHost` each.
///
/// A connection comes back here only after a complete response that allows reuse, with nothing unread. Taking one
/// checks that the server has not closed it meanwhile (a readable idle socket means end of stream or stray bytes),
/// and drops connections idle for longer than `maximumIdleTime`, since servers close those on their side.
final class SocketConnectionPool: Sendable {
    private struct Idle {
        var fd: Int32
        var since: ContinuousClock.Instant
    }

    private let idle = Mutex<[String: [Idle]]>([:])
    private let maximumPerHost: Int
    private let maximumIdleTime: Duration

    init(maximumPerHost: Int, maximumIdleTime: Duration) {
        self.maximumPerHost = max(0, maximumPerHost)
        self.maximumIdleTime = maximumIdleTime
    }

    deinit {
        idle.withLock { idle in
            for connections in idle.values { for connection in connections { SocketPlatform.close(connection.fd) } }
            idle.removeAll()
        }
    }

    /// The most recently used live connection to `key`, or nil.
    func take(_ key: String) -> Int32? {
        while true {
            let candidate = idle.withLock { $0[key]?.popLast() }
            guard let candidate else { return nil }
            if ContinuousClock.now - candidate.since < maximumIdleTime, Self.isIdleAndOpen(candidate.fd) {
                return candidate.fd
            }
            SocketPlatform.close(candidate.fd)
        }
    }

    /// Keeps `fd` for the next request to `key`, or closes it when the pool for that host is full.
    func put(_ fd: Int32, for key: String) {
        let now = ContinuousClock.now
        let kept = idle.withLock { idle -> Bool in
            var connections = idle[key, default: []]
            guard connections.count < maximumPerHost else { return false }
            connections.append(Idle(fd: fd, since: now))
            idle[key] = connections
            return true
        }
        if !kept { SocketPlatform.close(fd) }
    }

    /// How many idle connections the pool holds for `key` (for tests).
    func idleCount(for key: String) -> Int { idle.withLock { $0[key]?.count ?? 0 } }

    private static func isIdleAndOpen(_ fd: Int32) -> Bool {
        let events = SocketPlatform.poll(fd, events: SocketPlatform.pollIn, milliseconds: 0)
        return events == 0
    }
}
