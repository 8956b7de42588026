import SatchelHTTP
import Foundation

/// One `satchel http` request: build it from the options, send it, write the answer.
struct HTTPInvocation: Sendable {
    var method: HTTPClient.Method
    var target: TargetOptions
    var body: BodyOptions?
    var connection: ConnectionOptions
    var global: GlobalOptions

    func run() async throws {
        try await CommandRunner.run(global) { try await perform() }
    }

    private func perform() async throws {
        let client = try connection.makeClient()
        var request = HTTPClient.Request(method, url: try target.requestURL(), body: try body?.makeBody())
        // Like curl: a generic tool takes whatever comes back, so an HTML page is data, not an expired login.
        if !client.configuration.headers.contains("Accept") { request.headers["Accept"] = "*/*" }
        request.range = target.byteRange
        request.validatesStatus = !target.noFail
        let progress = ProgressDisplay(quiet: global.quiet)
        let response: HTTPClient.Response
        do {
            response = try await send(request, with: client, progress: progress)
            progress?.finish()
        } catch {
            progress?.abandon()
            throw error
        }
        if !response.isSuccess {
            // Only with --no-fail: the body was printed, the exit code still reports the status.
            throw HTTPTransferError(
                HTTPTransferError.Code(status: response.status),
                "the server answered \(response.status) \(ResponseOutput.reason(response.status))",
                method: method,
                url: response.url,
                status: response.status,
                responseHeaders: response.headers
            )
        }
    }

    /// HEAD reads nothing; everything else streams to a file (the `-o` one, or a temporary one copied to standard
    /// output), so large bodies never sit in memory.
    private func send(
        _ request: HTTPClient.Request, with client: HTTPClient, progress: ProgressDisplay?
    ) async throws
        -> HTTPClient.Response
    {
        var report: (@Sendable (TransferProgress) -> Void)?
        if let progress { report = { progress.report($0) } }
        if method == .head {
            let response = try await client.send(request, progress: report)
            try ResponseOutput.write(response, includeHeaders: target.include, bodyFile: nil)
            return response
        }
        if let file = target.outputFile {
            try ResponseOutput.checkWritable(file)
            let response = try await client.download(request, to: file, resume: target.resume, progress: report)
            try ResponseOutput.write(response, includeHeaders: target.include, bodyFile: nil)
            return response
        }
        let directory = try ResponseOutput.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body")
        let response = try await client.download(request, to: file, progress: report)
        progress?.finish()
        try ResponseOutput.write(response, includeHeaders: target.include, bodyFile: response.bodyFile)
        return response
    }
}
