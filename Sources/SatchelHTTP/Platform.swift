// The one place where SatchelHTTP deals with platform differences.
//
// On Linux, URLSession, URLRequest and HTTPURLResponse live in FoundationNetworking; on Apple platforms
// they are part of Foundation. Re-exporting keeps every other file free of `#if`.
#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
@_exported import Foundation

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

    /// Whether standard error is attached to a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
