import Foundation
import SatchelCMISCore
import Synchronization

/// The session's object cache (by id) and path → id lookups, each entry valid for a time-to-live.
///
/// Only objects read with the session's default operation context are cached, so a cached object always has
/// what a default read would return. Writes through the session evict what they change.
final class ObjectCache: Sendable {
    private struct Entry<Value> {
        var value: Value
        var expires: ContinuousClock.Instant
    }

    private struct Storage {
        var objects: [String: Entry<CMISObject>] = [:]
        var paths: [String: Entry<String>] = [:]
    }

    private let ttl: Duration
    private let capacity: Int
    private let storage = Mutex(Storage())

    init(ttl: Duration, capacity: Int) {
        self.ttl = ttl
        self.capacity = max(capacity, 1)
    }

    var isEnabled: Bool { ttl > .zero }

    func object(id: String) -> CMISObject? {
        let now = ContinuousClock.now
        return storage.withLock { storage in
            guard let entry = storage.objects[id] else { return nil }
            guard entry.expires > now else {
                storage.objects[id] = nil
                return nil
            }
            return entry.value
        }
    }

    func objectId(path: String) -> String? {
        let now = ContinuousClock.now
        return storage.withLock { storage in
            guard let entry = storage.paths[path], entry.expires > now else { return nil }
            return entry.value
        }
    }

    func store(_ object: CMISObject, path: String? = nil) {
        guard isEnabled, let id = object.id else { return }
        let now = ContinuousClock.now
        storage.withLock { storage in
            if storage.objects.count >= capacity { Self.evict(&storage, now: now, keeping: capacity / 2) }
            storage.objects[id] = Entry(value: object, expires: now + ttl)
            if let path { storage.paths[path] = Entry(value: id, expires: now + ttl) }
        }
    }

    /// Forgets an object and every path that led to it; with `allPaths`, every path lookup (a rename or a
    /// folder deletion changes the paths below it).
    func remove(id: String, allPaths: Bool = false) {
        storage.withLock { storage in
            storage.objects[id] = nil
            if allPaths {
                storage.paths.removeAll()
            } else {
                storage.paths = storage.paths.filter { $0.value.value != id }
            }
        }
    }

    func removeAll() {
        storage.withLock { $0 = Storage() }
    }

    /// Drops expired entries, then the ones expiring soonest until at most `keeping` remain.
    private static func evict(_ storage: inout Storage, now: ContinuousClock.Instant, keeping: Int) {
        storage.objects = storage.objects.filter { $0.value.expires > now }
        storage.paths = storage.paths.filter { $0.value.expires > now }
        guard storage.objects.count > keeping else { return }
        let oldest = storage.objects.sorted { $0.value.expires < $1.value.expires }.prefix(
            storage.objects.count - keeping)
        for (id, _) in oldest { storage.objects[id] = nil }
    }
}
