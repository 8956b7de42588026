import Foundation
import GRDB
import SatchelHTTP
import SatchelJSON
import SatchelOData
import Synchronization
import SatchelStore

/// A queued request (SAP's `RequestQueue` entity).
public struct OfflineRequest: Sendable, Hashable {
    /// The request's place in the queue: ids grow in the order the changes were made.
    public var requestID: Int64
    /// The entity set of the affected entity.
    public var entitySet: String
    /// The affected entity's id in the store.
    public var entityID: Int64
    /// `POST`, `PATCH`, `PUT` or `DELETE`; `LINK` or `UNLINK` for a link added or removed; `PUTMEDIA` or
    /// `POSTMEDIA` for media content replaced, or a media entity created from its content.
    public var method: String
    /// The `Repeatability-Request-ID` the request is sent with: a lowercase UUID, the same on every attempt (a
    /// new one once a refused request is changed, which makes it a new request).
    public var repeatabilityRequestID: String
    /// The `Repeatability-First-Sent` the request is sent with: an HTTP date, set when the change was queued.
    public var repeatabilityFirstSent: String
    /// Whether it failed and waits in the ErrorArchive.
    public var failed: Bool
    /// Requests of one transaction are uploaded in one changeset.
    public var transactionID: String?
    /// The upload category the change was made with (`OfflineChangeOptions.uploadCategory`); nil for none.
    public var uploadCategory: String?
    /// Never merged with later changes.
    public var unmodifiable: Bool
    /// How many times the service failed it (a 5xx, 408 or 429 answer); after
    /// ``OfflineStore/Configuration/maximumResends`` more it goes to the ErrorArchive.
    public var resends: Int
    /// The service's last failing answer to it (status and message), while it waits to be sent again.
    public var lastFailure: String?
}

/// An entry of the ErrorArchive (SAP's `ErrorArchive` entity): a request the service refused during an upload, or
/// failed more often than ``OfflineStore/Configuration/maximumResends`` allows, with the service's answer.
public struct OfflineErrorArchiveEntry: Sendable, Hashable {
    /// The entry's id: what `OfflineStore.revert(errorID:)` takes.
    public var errorID: Int64
    /// The refused request's id in the queue (`OfflineRequest.requestID`); the request stays queued, marked failed.
    public var requestID: Int64
    /// The entity set of the affected entity.
    public var entitySet: String
    /// The affected entity's id in the store.
    public var entityID: Int64
    /// The HTTP status of the refusal (the other requests of a refused transaction carry the one that failed it);
    /// nil when the answer had none.
    public var httpStatus: Int?
    /// The service's error code.
    public var code: String?
    /// The service's error message.
    public var message: String
    /// The service's inner error (SAP Gateway's `innererror`) as compact JSON text, when it sent one.
    public var innerError: String?
    /// The queued request's method, as in `OfflineRequest.method`.
    public var requestMethod: String
    /// The URL the refused request went to, or the entity set's name when the error did not say.
    public var requestURL: String
    /// The queued request's body as stored: the changed properties as a JSON object by property path (for a link,
    /// the navigation property; for media, the content type); nil for a deletion.
    public var requestBody: String?
    /// On a 412: the entity's current ETag on the server, when it said.
    public var currentETag: String?
}

/// The ErrorArchive entry's former name.
@available(*, deprecated, renamed: "OfflineErrorArchiveEntry")
public typealias OfflineError = OfflineErrorArchiveEntry

/// What an upload did.
public struct OfflineUploadResult: Sendable, Hashable {
    /// Requests the service accepted.
    public var sent: Int
    /// Requests the service refused (now in the ErrorArchive).
    public var failed: Int
    /// Requests held because an earlier request on the same entity (or one they link to) failed or was deferred.
    public var held: Int
    /// Requests the service failed this time (a 5xx, 408 or 429 answer): still queued, sent again at the next
    /// upload (up to ``OfflineStore/Configuration/maximumResends`` times), while the requests that do not depend on
    /// them went on.
    public var deferred: Int
    /// The service's last failing answer, when a request was deferred.
    public var lastFailure: String?

    /// Requests this upload is done with: sent, refused, held or deferred.
    public var processed: Int { sent + failed + held + deferred }

    /// A result with these counts.
    public init(sent: Int, failed: Int, held: Int, deferred: Int = 0, lastFailure: String? = nil) {
        self.sent = sent
        self.failed = failed
        self.held = held
        self.deferred = deferred
        self.lastFailure = lastFailure
    }
}
