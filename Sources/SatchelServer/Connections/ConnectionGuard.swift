import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How long a connection may take and how many one address may hold: the defence against clients that open
/// connections and then send nothing, half a request's headers, or a body that stops (slowloris).
///
/// ```swift
/// var configuration = ServerConfiguration(dataDirectory: data)
/// configuration.connectionLimits.bodyTimeout = .seconds(60)     // slow mobile uploads
/// ```
public struct ConnectionLimits: Sendable, Hashable {
    /// The longest a connection may wait between requests, and so also the longest a request's headers may take
    /// to arrive: the headers of a request must be complete within this time of the connection opening or of
    /// the previous answer.
    public var idleTimeout: Duration
    /// The longest pause while a request's body arrives.
    public var bodyTimeout: Duration
    /// The most connections one address may have open at once (trusted proxies are not limited).
    public var maximumConnectionsPerAddress: Int

    /// Limits whose defaults are: 30 seconds idle, 30 seconds of pause in a body, 64 connections per address.
    public init(
        idleTimeout: Duration = .seconds(30), bodyTimeout: Duration = .seconds(30),
        maximumConnectionsPerAddress: Int = 64
    ) {
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }
}

/// The open connections per address, shared by every connection's ``ConnectionGuard``.
final class ConnectionCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts a new connection; false (and nothing counted) when the address is at `limit` already.
    func open(_ address: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let current = counts[address] ?? 0
            guard current < limit else { return false }
            counts[address] = current + 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLock { counts in
            if let current = counts[address], current > 1 {
                counts[address] = current - 1
            } else {
                counts[address] = nil
            }
        }
    }
}

/// One connection's guard: refuses it when its address has too many open, closes it when a request's body stops
/// arriving for ``ConnectionLimits/bodyTimeout``, and answers `Expect: 100-continue`: `100 Continue` at once, or
/// `413` (and close) when the declared body is larger than the server accepts, before the client sends it.
/// (Hummingbird's idle timeout, set to ``ConnectionLimits/idleTimeout``, closes connections that wait too long for
/// a complete request head.)
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let counter: ConnectionCounter
    private let proxies: TrustedProxies
    private var countedAddress: String?
    /// The check that closes a stalled body, when one is scheduled.
    private var bodyCheck: Scheduled<Void>?
    /// When the request being read last sent something; nil when no body is being read.
    private var lastBodyProgress: NIODeadline?

    /// The largest request body the server accepts (content plus form fields).
    private let maximumBodyBytes: Int64

    init(limits: ConnectionLimits, counter: ConnectionCounter, proxies: TrustedProxies, maximumBodyBytes: Int64) {
        self.limits = limits
        self.counter = counter
        self.proxies = proxies
        self.maximumBodyBytes = maximumBodyBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release(context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if head.headerFields[.expect]?.lowercased() == "100-continue" {
                if let length = head.headerFields[.contentLength].flatMap({ Int64($0) }), length > maximumBodyBytes {
                    refuseTooLarge(context)
                    return
                }
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            // Only a request with a body can stall in it (most reads have none: no timer to schedule and cancel).
            if head.headerFields[.contentLength].map({ $0 != "0" }) ?? (head.headerFields[.transferEncoding] != nil) {
                armBodyTimer(context)
            }
        case .body: armBodyTimer(context)
        case .end: disarmBodyTimer()
        }
        context.fireChannelRead(data)
    }

    /// 413 before the body is sent, then close: the request never reaches the router.
    private func refuseTooLarge(_ context: ChannelHandlerContext) {
        var response = HTTPResponse(status: .contentTooLarge)
        response.headerFields[.contentLength] = "0"
        response.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard countedAddress == nil, let peer = context.channel.remoteAddress, !proxies.trusts(peer) else { return }
        let address = peer.ipAddress ?? "unknown"
        if counter.open(address, limit: limits.maximumConnectionsPerAddress) {
            countedAddress = address
        } else {
            context.close(promise: nil)
        }
    }

    private func release(_ context: ChannelHandlerContext) {
        cancelBodyCheck()
        if let address = countedAddress {
            counter.close(address)
            countedAddress = nil
        }
    }

    /// Notes progress in a request body; one check, scheduled when none is, closes the connection once the body
    /// has made none for the body timeout (parts arriving reset a time stamp, not a timer).
    private func armBodyTimer(_ context: ChannelHandlerContext) {
        lastBodyProgress = .now()
        guard bodyCheck == nil else { return }
        scheduleBodyCheck(context, in: Self.timeAmount(limits.bodyTimeout))
    }

    private func scheduleBodyCheck(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        bodyCheck = loop.scheduleTask(in: delay) { [self, context] in
            bodyCheck = nil
            guard let last = lastBodyProgress else { return }
            let quiet = NIODeadline.now() - last
            let timeout = Self.timeAmount(limits.bodyTimeout)
            if quiet >= timeout {
                context.close(promise: nil)
            } else {
                scheduleBodyCheck(context, in: timeout - quiet)
            }
        }
    }

    private func disarmBodyTimer() {
        lastBodyProgress = nil
    }

    private func cancelBodyCheck() {
        bodyCheck?.cancel()
        bodyCheck = nil
        lastBodyProgress = nil
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}
