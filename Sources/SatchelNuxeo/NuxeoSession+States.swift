public import Foundation
import SatchelHTTP
import SatchelJSON

/// How an update versions a document (`X-Versioning-Option`).
public enum NuxeoVersioning: String, Sendable, Hashable {
    /// No new version.
    case none = "NONE"
    /// A minor version (1.0 → 1.1).
    case minor = "MINOR"
    /// A major version (1.1 → 2.0).
    case major = "MAJOR"
}

/// A document's lock.
public struct NuxeoLock: Sendable, Hashable {
    /// The user who holds the lock.
    public var owner: String
    /// When the lock was taken, when the server says.
    public var created: Date?
}

/// Locks, the trash, versions and permissions.
extension NuxeoSession {
    /// Locks a document for this user (`Document.Lock`): until it is unlocked, nobody else may change, move, trash or
    /// delete it. A document locked already is refused (409).
    @discardableResult
    public func lock(_ id: String) async throws -> NuxeoDocument {
        try await documentOperation("Document.Lock", input: id)
    }

    /// Unlocks a document (`Document.Unlock`): its lock's owner may, and so may whoever has `Everything` on it.
    @discardableResult
    public func unlock(_ id: String) async throws -> NuxeoDocument {
        try await documentOperation("Document.Unlock", input: id)
    }

    /// Who holds a document's lock, or nil when it is not locked (`fetch-document: lock`).
    public func lockStatus(of id: String) async throws -> NuxeoLock? {
        let document = try Self.document(
            try await entity(NuxeoRequest.id(id).header("fetch-document", "lock")))
        return document.lockOwner.map { NuxeoLock(owner: $0, created: document.lockCreated) }
    }

    /// Puts a document in the trash (`Document.Trash`): it leaves its folder's children and searches for live
    /// documents, and can be restored with ``untrash(_:)``.
    @discardableResult
    public func trash(_ id: String) async throws -> NuxeoDocument {
        try await documentOperation("Document.Trash", input: id)
    }

    /// Restores a document from the trash (`Document.Untrash`).
    @discardableResult
    public func untrash(_ id: String) async throws -> NuxeoDocument {
        try await documentOperation("Document.Untrash", input: id)
    }

    /// Makes the document's current state a new version (`Document.CheckIn`); the document keeps its uid.
    @discardableResult
    public func checkIn(_ id: String, major: Bool, comment: String? = nil) async throws -> NuxeoDocument {
        var params: [String: JSONValue] = ["version": .string(major ? "major" : "minor")]
        if let comment { params["comment"] = .string(comment) }
        return try await documentOperation("Document.CheckIn", input: id, params: params)
    }

    /// What this user may do with a document, in Nuxeo's names (`Read`, `Write`, `Remove`, `Everything`…): the
    /// `permissions` enricher.
    public func permissions(of id: String) async throws -> Set<String> {
        let document = try Self.document(
            try await entity(NuxeoRequest.id(id).header("enrichers-document", "permissions")))
        guard let names = document.contextParameters["permissions"]?.arrayValue else {
            throw NuxeoError(.invalidResponse, "the permissions enricher answered nothing for \(id)")
        }
        return Set(names.compactMap(\.stringValue))
    }

    /// An operation whose answer is a document.
    func documentOperation(
        _ operation: String, input: String, params: [String: JSONValue] = [:]
    ) async throws -> NuxeoDocument {
        guard case .document(let document)? = try await execute(operation, input: input, params: params) else {
            throw NuxeoError(.invalidResponse, "\(operation) answered no document")
        }
        return document
    }
}
