import ArgumentParser
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import Foundation

/// The exit codes `satchel` uses; scripts may rely on them, so a code never changes meaning.
enum SatchelExitCode: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
    case connection = 3
    case authentication = 4
    case notFound = 5
    case httpStatus = 6
    case invalidResponse = 7
    case localFile = 8
    case notAvailable = 9
    case cancelled = 130

    /// The exit code for an error from SatchelHTTP.
    init(_ code: HTTPTransferError.Code) {
        switch code {
        case .timeout, .connection, .tls: self = .connection
        case .unauthorized, .forbidden: self = .authentication
        case .notFound, .gone: self = .notFound
        case .invalidResponse, .responseTooLarge, .tooManyRedirects: self = .invalidResponse
        case .fileSystem: self = .localFile
        case .invalidRequest: self = .usage
        case .cancelled: self = .cancelled
        default: self = .httpStatus  // every other 4xx and 5xx, including codes added later
        }
    }

    /// The exit code for an error from SatchelCMIS: transport failures keep their HTTP meaning.
    init(_ error: CMISError) {
        switch error.code {
        case .objectNotFound: self = .notFound
        case .permissionDenied, .unauthorized: self = .authentication
        case .connection: self = error.httpError.map { SatchelExitCode($0.code) } ?? .connection
        case .invalidResponse: self = .invalidResponse
        default:
            // Cancelled or timed-out requests wrapped in another code still report as such.
            if let code = error.httpError?.code, [.cancelled, .timeout, .connection, .tls].contains(code) {
                self = SatchelExitCode(code)
            } else {
                self = .httpStatus  // every other CMIS exception: invalidArgument, constraint, runtime …
            }
        }
    }

    /// The exit code for an error from SatchelOData (and the offline store).
    init(_ code: ODataError.Code) {
        switch code {
        case .notFound: self = .notFound
        case .unauthorized, .forbidden: self = .authentication
        case .connection: self = .connection
        case .invalidPayload, .invalidMetadata: self = .invalidResponse
        case .invalidArgument: self = .usage
        default: self = .httpStatus
        }
    }

    /// The exit code for an error of the offline store itself.
    init(_ code: OfflineStoreError.Code) {
        switch code {
        case .entityNotFound, .queueEntryNotFound, .contentNotFound, .unknownEntitySet, .unknownDefiningQuery:
            self = .notFound
        case .busy, .pendingRequests, .schemaChange, .damagedQueue, .prebuiltStore: self = .failure
        case .notOpen, .alreadyOpen, .noLocalStore, .unknownProperty, .invalidDefiningQuery, .invalidQuery,
            .invalidReference, .invalidChange, .unsupported, .invalidConfiguration:
            self = .usage
        }
    }

    /// The exit code for an error from SatchelStore.
    init(_ code: StoreError.Code) {
        switch code {
        case .wrongKey, .keyRequired, .openWithAnotherKey: self = .authentication
        case .invalidKey: self = .usage
        case .io: self = .localFile
        case .notEncrypted, .alreadyEncrypted, .notAStore, .newerFormat, .truncated, .corruptPage, .misplacedPage:
            self = .invalidResponse
        }
    }

    /// What the code means, for `--help` and docs/cli.md.
    var summary: String {
        switch self {
        case .success: "success"
        case .failure: "any other failure"
        case .usage: "usage error: bad option, missing argument, unusable URL, no password"
        case .connection: "connection failed, TLS failed or timed out"
        case .authentication: "not authorised: 401, 403, failed login, refused token, a store's wrong key"
        case .notFound: "not found: 404 or 410"
        case .httpStatus: "any other HTTP error status (4xx, 5xx)"
        case .invalidResponse: "unreadable or unexpected response, too many redirects, a damaged store"
        case .localFile: "a local file could not be read or written"
        case .notAvailable: "the command is not part of this build yet"
        case .cancelled: "cancelled (Ctrl-C)"
        }
    }

    static var helpTable: String {
        allCases.map { "  \(String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0))\($0.summary)" }
            .joined(separator: "\n")
    }
}

/// A failure found by the CLI itself, with the exit code it ends in.
struct CLIError: Error, CustomStringConvertible {
    var exitCode: SatchelExitCode
    var message: String

    init(_ exitCode: SatchelExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    var description: String { message }
}
