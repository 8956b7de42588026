import Foundation
import Synchronization

/// The in-memory store behind ``CMISTestServer``: one repository of folders and documents, readable by tests.
public final class CMISTestRepository: Sendable {
    struct Node {
        var id: String
        var name: String
        var parentId: String?
        var isFolder: Bool
        var content: Data?
        var mimeType: String?
        var fileName: String?
        var created: Date
        var modified: Date
        var changeToken: Int
    }

    struct Store {
        var nodes: [String: Node] = [:]
        var children: [String: [String]] = [:]
        var nextId = 100
        var token: String?
        var requests: [String: Int] = [:]
    }

    let store: Mutex<Store>

    init(token: String?) {
        let now = Date()
        var store = Store()
        store.nodes["root"] = Node(
            id: "root", name: "", parentId: nil, isFolder: true, created: now, modified: now, changeToken: 1)
        store.token = token
        self.store = Mutex(store)
    }

    /// The token POSTs must carry (form field `token` or header `X-CSRF-Token`); `nil`: none required.
    /// Setting a new one makes every client holding the old one fail with `permissionDenied`.
    public var token: String? {
        get { store.withLock { $0.token } }
        set { store.withLock { $0.token = newValue } }
    }

    /// How many requests used this `cmisselector` or `cmisaction` (`children`, `typeDefinition`, `createDocument`…);
    /// `tokenHeader` counts POSTs that carried the current token in an `X-CSRF-Token` header.
    public func requestCount(_ selectorOrAction: String) -> Int {
        store.withLock { $0.requests[selectorOrAction] ?? 0 }
    }

    func count(_ key: String) { store.withLock { $0.requests[key, default: 0] += 1 } }

    /// The folder path of a node (`/a/b`; documents have none in CMIS, but the server uses it for lookups).
    static func path(of id: String, in store: Store) -> String {
        var segments: [String] = []
        var current = store.nodes[id]
        while let node = current, let parent = node.parentId {
            segments.insert(node.name, at: 0)
            current = store.nodes[parent]
        }
        return "/" + segments.joined(separator: "/")
    }

    static func resolve(path: [String], in store: Store) -> Node? {
        var node = store.nodes["root"]
        for segment in path {
            guard let current = node else { return nil }
            node = store.children[current.id, default: []].lazy.compactMap { store.nodes[$0] }
                .first { $0.name == segment }
        }
        return node
    }
}
