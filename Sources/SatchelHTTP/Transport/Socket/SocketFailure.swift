import Foundation

/// A failed socket operation, before the exchange knows what it means for the request.
///
/// Socket code throws this; ``SocketExchange`` turns it into an ``HTTPTransferError`` with the context a person needs
/// (how much was sent or received, which server, which timeout).
struct SocketFailure: Error {
    enum Kind: Equatable {
        /// Nothing moved for the idle timeout (`SO_RCVTIMEO` / `SO_SNDTIMEO` expired).
        case timedOut
        /// The peer closed the connection: end of stream on read, EPIPE or ECONNRESET on write.
        case closed
        /// Any other `errno`.
        case system(Int32)
    }

    var kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// Classifies an `errno` left by a failed `send`, `recv` or `sendfile`.
    init(errno code: Int32) {
        if SocketPlatform.isWouldBlock(code) {
            kind = .timedOut
        } else if code == EPIPE || code == ECONNRESET || code == ENOTCONN || code == ESHUTDOWN {
            kind = .closed
        } else {
            kind = .system(code)
        }
    }

    var underlying: (any Error)? {
        guard case .system(let code) = kind else { return nil }
        return POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }

    var systemDescription: String {
        switch kind {
        case .timedOut: "timed out"
        case .closed: "closed by the peer"
        case .system(let code): SocketPlatform.describe(code)
        }
    }
}
