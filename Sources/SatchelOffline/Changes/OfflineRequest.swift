import Foundation
import GRDB
import SatchelHTTP
import SatchelJSON
import SatchelOData
import Synchronization
import SatchelStore

/// A queued request (SAP's `RequestQueue` entity).
public struct OfflineRequest: Sendable, Hashable {
    public var requestID: Int64
    public var entitySet: String
    /// The affected entity's id in the store.
    public var entityID: Int64
    /// POST, PATCH, PUT or DELETE.
    public var method: String
    public var repeatabilityRequestID: String
    public var repeatabilityFirstSent: String
    /// Whether it failed and waits in the ErrorArchive.
    public var failed: Bool
    /// Requests of one transaction are uploaded in one changeset.
    public var transactionID: String?
    public var uploadCategory: String?
    /// Never merged with later changes.
    public var unmodifiable: Bool
}

/// A request the service refused during an upload (SAP's `ErrorArchive` entity).
public struct OfflineError: Sendable, Hashable {
    public var errorID: Int64
    public var requestID: Int64
    public var entitySet: String
    /// The affected entity's id in the store.
    public var entityID: Int64
    public var httpStatus: Int?
    /// The service's error code.
    public var code: String?
    public var message: String
    public var innerError: String?
    public var requestMethod: String
    public var requestURL: String
    public var requestBody: String?
    /// On a 412: the entity's current ETag on the server, when it said.
    public var currentETag: String?
}

/// What an upload did.
public struct OfflineUploadResult: Sendable, Hashable {
    /// Requests the service accepted.
    public var sent: Int
    /// Requests the service refused (now in the ErrorArchive).
    public var failed: Int
    /// Requests held because an earlier request on the same entity failed.
    public var held: Int

    public init(sent: Int, failed: Int, held: Int) {
        self.sent = sent
        self.failed = failed
        self.held = held
    }
}
