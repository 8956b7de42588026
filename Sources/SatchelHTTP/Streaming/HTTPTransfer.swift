public import Foundation

/// A transfer running in the background, with its progress as an `AsyncSequence`.
///
/// ```swift
/// let transfer = client.downloadTransfer(HTTPClient.Request(url: url), to: file)
/// for await progress in transfer.progress {
///     print(progress.fraction ?? 0)
/// }
/// let response = try await transfer.response
/// ```
///
/// The progress sequence keeps only the newest value when the consumer is slower than the transfer, and ends
/// when the transfer does. Cancelling the task that awaits ``response`` cancels the transfer.
public struct HTTPTransfer: Sendable {
    /// The transfer's progress, newest value only when the reader is behind; ends with the transfer.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<HTTPClient.Response, any Error>

    init(
        _ body: @escaping @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws -> HTTPClient.Response
    ) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self,
            bufferingPolicy: .bufferingNewest(1)
        )
        progress = stream
        task = Task {
            defer { continuation.finish() }
            return try await body { continuation.yield($0) }
        }
    }

    /// The response, once the transfer is done.
    public var response: HTTPClient.Response {
        get async throws {
            let task = task
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// Cancels the transfer; awaiting `response` then throws.
    public func cancel() { task.cancel() }
}

extension HTTPClient {
    /// Starts a download to `file`; see ``download(_:to:resume:progress:)``.
    public func downloadTransfer(_ request: HTTPClient.Request, to file: URL, resume: Bool = false) -> HTTPTransfer {
        HTTPTransfer { report in try await self.download(request, to: file, resume: resume, progress: report) }
    }

    /// Starts sending `request` with its body (typically a file); see ``send(_:progress:)``.
    public func uploadTransfer(_ request: HTTPClient.Request) -> HTTPTransfer {
        HTTPTransfer { report in try await self.send(request, progress: report) }
    }
}
