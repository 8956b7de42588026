import Foundation
import SatchelHTTP
import SatchelText

/// The middle tier as an HTTP transport, in process: a store built on the server (``OfflineTier`` `$satchel.store`)
/// is filled by the client's own `OfflineStore` code, whose requests go straight to ``OfflineTier/handle(endpoint:_:)``
/// as `user`, without a socket or a second authentication. Only URLs under `root` are answered.
struct OfflineTierTransport: HTTPTransport {
    let tier: OfflineTier
    let endpoint: String
    let user: String
    let password: String?
    /// The endpoint's root as the built store's links name it.
    let root: String

    func perform(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let url = request.url.absoluteString
        guard url.hasPrefix(root) else {
            throw HTTPTransferError(.connection, "a store built on the server reads only under \(root), not \(url)")
        }
        let target = url.dropFirst(root.count)
        let path = target.prefix { $0 != "?" }
        let query = target.dropFirst(path.count + 1)
        var body = Data()
        if let segments = request.body?.segments {
            for segment in segments {
                guard case .data(let data) = segment else {
                    throw HTTPTransferError(.invalidRequest, "a store built on the server sends no files")
                }
                body.append(data)
            }
        }
        let answer = await tier.handle(
            endpoint: endpoint,
            OfflineTierRequest(
                method: request.method.rawValue, path: String(path), query: String(query), headers: request.headers,
                body: body, user: user, password: password, root: root))
        switch request.destination {
        case .memory(let limit):
            guard answer.body.count <= limit else {
                throw HTTPTransferError(
                    .responseTooLarge, "the answer is larger than the \(limit) bytes allowed in memory")
            }
            request.progress?.received(Int64(answer.body.count), of: Int64(answer.body.count))
            return TransportResponse(status: answer.status, headers: answer.headers, body: answer.body)
        case .file(let file):
            do {
                let body = answer.body
                try await BlockingWork.shared.run { try body.write(to: file) }
            } catch {
                throw HTTPTransferError(.fileSystem, "cannot write \(file.path)", underlying: error)
            }
            return TransportResponse(
                status: answer.status, headers: answer.headers, bodyLength: Int64(answer.body.count))
        }
    }
}
