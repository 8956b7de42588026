// The one place where SatchelHTTP deals with platform differences. Nothing is re-exported: a module that uses
// Foundation, FoundationNetworking (URLSession on Linux) or SatchelJSON imports it itself.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

enum Platform {
    /// Whether URLSession sends a streamed request body with `Transfer-Encoding: chunked`.
    ///
    /// swift-corelibs-foundation always does, and adds a `Content-Length` we set on top of it — a request
    /// that servers must refuse (RFC 9112 §6.3) — so on Linux a streamed body goes without `Content-Length`.
    #if canImport(FoundationNetworking)
        static let streamedBodiesAreChunked = true
    #else
        static let streamedBodiesAreChunked = false
    #endif

    /// The transport a client uses unless told otherwise.
    ///
    /// On Apple platforms, URLSession. On Linux, swift-corelibs-foundation's URLSession reaches 0.15–0.2× curl's
    /// throughput on large transfers, stalls on a `401` that carries `WWW-Authenticate`, and cancels late; so plain
    /// `http` goes over ``SocketTransport`` there, and `https` over ``NIOTransport`` (see ``AutomaticTransport``).
    static func defaultTransport() -> any HTTPTransport {
        #if canImport(Darwin)
            URLSessionTransport()
        #else
            AutomaticTransport()
        #endif
    }

    /// The transport for `https` where plain `http` goes over ``SocketTransport``: ``NIOTransport``'s shared one
    /// where async-http-client is built (Linux), URLSession elsewhere.
    static func secureTransport() -> any HTTPTransport {
        #if canImport(AsyncHTTPClient)
            NIOTransport.shared
        #else
            URLSessionTransport()
        #endif
    }

    /// Whether standard error is attached to a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Moves `source` over `destination` in one step (rename(2)): readers see the old file or the new one,
    /// never a missing or half-written one. Both must be on the same file system.
    static func rename(_ source: URL, to destination: URL) throws {
        #if canImport(Glibc)
            let result = Glibc.rename(source.path, destination.path)
        #elseif canImport(Musl)
            let result = Musl.rename(source.path, destination.path)
        #else
            let result = Darwin.rename(source.path, destination.path)
        #endif
        guard result == 0 else {
            let code = errno
            throw HTTPTransferError(
                .fileSystem,
                "cannot move \(source.lastPathComponent) to \(destination.path): \(String(cString: strerror(code)))"
            )
        }
    }
}
