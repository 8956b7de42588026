import Foundation

extension SocketTransport {
    /// Reads one response from the connected socket `fd` exactly as an exchange does (interim heads skipped, the
    /// final head, the body as its framing says, into memory up to `limit` bytes), without making a connection.
    ///
    /// For the response reader's fuzz target (SatchelFuzzing), which writes a hostile server's bytes into one end of
    /// a socket pair and reads them here from the other. The end of the stream and socket errors become
    /// `HTTPTransferError`s of code `.connection`.
    ///
    /// - Returns: the response, and whether the connection could carry another request.
    package static func readResponse(
        from fd: Int32, method: HTTPClient.Method, limit: Int, configuration: Configuration = Configuration()
    ) throws -> (response: TransportResponse, reusable: Bool) {
        let request = TransportRequest(
            method: method, url: URL(string: "http://127.0.0.1/")!, headers: HTTPClient.Headers(), body: nil,
            timeout: .seconds(5), destination: .memory(limit: limit))
        let exchange = try SocketExchange(
            request: request, configuration: configuration,
            pool: SocketConnectionPool(maximumPerHost: 1, maximumIdleTime: .seconds(1)))
        // Sized as an exchange sizes it: a head larger than the buffer size still fits whole.
        let reader = SocketReader(fd: fd, capacity: exchange.readerCapacity)
        do {
            let head = try exchange.readFinalHead(reader)
            let outcome = try exchange.readBody(of: head, from: reader)
            return (outcome.response, outcome.reusable)
        } catch let failure as SocketFailure {
            throw HTTPTransferError(.connection, "the response ended early or could not be read: \(failure.kind)")
        }
    }
}
