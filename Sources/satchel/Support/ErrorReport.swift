import ArgumentParser
import SatchelCMIS
import SatchelCMISCore
import SatchelCache
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import Foundation

/// Turns a failure into one readable line on standard error and an exit code.
enum ErrorReport {
    /// Prints `satchel: error: …` (with `verbose`, the full debug description and the response excerpt).
    static func report(_ error: any Error, verbose: Bool) -> SatchelExitCode {
        let (code, text) = describe(error, verbose: verbose)
        Terminal.writeError("satchel: error: \(text)\n")
        return code
    }

    static func describe(_ error: any Error, verbose: Bool) -> (SatchelExitCode, String) {
        switch error {
        case let error as CLIError:
            return (error.exitCode, error.message)
        case let error as HTTPTransferError:
            return (SatchelExitCode(error.code), verbose ? error.debugDescription : summary(of: error))
        case let error as CMISError:
            return (
                SatchelExitCode(error),
                verbose ? verboseText(of: error) : Redaction.text("\(error.code): \(error.message)")
            )
        case let error as StoreError:
            return (SatchelExitCode(error.code), error.description)
        case let error as CacheError:
            switch error.code {
            case .unknownHierarchy, .unknownNode, .notCached, .noContent: return (.notFound, error.description)
            default: return (.failure, error.description)
            }
        case let error as ODataError:
            return (SatchelExitCode(error.code), Redaction.text(error.description))
        case let error as OfflineStoreError:
            return (SatchelExitCode(error.code), Redaction.text(error.description))
        case let error as OfflineConfigurationError:
            return (.usage, error.description)
        case is CancellationError:
            return (.cancelled, "cancelled")
        case let error as CocoaError where error.isFileError:
            return (.localFile, Redaction.text(error.localizedDescription))
        default:
            return (.failure, Redaction.text(String(describing: error)))
        }
    }

    /// The error's description with a short cause instead of the underlying error's dump, plus the start of the
    /// body when the server's own message could not be found: that is usually what says why.
    private static func summary(of error: HTTPTransferError) -> String {
        var short = error
        short.underlying = nil
        var text = short.description
        if let cause = error.underlying.flatMap(cause(of:)) { text += " (\(cause))" }
        if error.serverMessage == nil, let excerpt = error.responseExcerpt {
            let flat = excerpt.split(whereSeparator: \.isNewline).joined(separator: " ")
            text += ": " + (flat.count > 200 ? flat.prefix(200) + "…" : flat)
        }
        return text
    }

    /// `objectNotFound: message (HTTP 404)` and the transport error's full description.
    private static func verboseText(of error: CMISError) -> String {
        var text = error.description
        if let http = error.httpError { text += "\n  " + http.debugDescription }
        return Redaction.text(text)
    }

    /// The innermost readable reason of a Foundation error ("Couldn't connect to server", "No such file …").
    private static func cause(of error: any Error) -> String? {
        if error is HTTPTransferError || error is CLIError { return Redaction.text(String(describing: error)) }
        var current = error as NSError
        while let inner = current.userInfo[NSUnderlyingErrorKey] as? NSError { current = inner }
        guard let text = current.userInfo[NSLocalizedDescriptionKey] as? String ?? posixReason(current) else {
            return nil
        }
        return Redaction.text(text)
    }

    private static func posixReason(_ error: NSError) -> String? {
        guard error.domain == NSPOSIXErrorDomain else { return nil }
        return Terminal.describeErrorNumber(Int32(error.code))
    }
}

extension CocoaError {
    fileprivate var isFileError: Bool {
        (CocoaError.Code.fileNoSuchFile.rawValue...CocoaError.Code.fileWriteVolumeReadOnly.rawValue)
            .contains(code.rawValue)
    }
}
