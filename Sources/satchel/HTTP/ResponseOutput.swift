import SatchelHTTP
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes responses to standard output: headers for `--include`, then the body.
enum ResponseOutput {
    /// Writes the status line and headers (if asked), then the body: from `bodyFile` in chunks, or the
    /// in-memory body of an error response kept with `--no-fail`.
    static func write(_ response: HTTPClient.Response, includeHeaders: Bool, bodyFile: URL?) throws {
        if includeHeaders {
            var head = "HTTP \(response.status) \(reason(response.status))\n"
            let headers = response.headers.description
            if !headers.isEmpty { head += headers + "\n" }
            try Terminal.writeOutput(Data((head + "\n").utf8))
        }
        if let bodyFile {
            try copy(bodyFile)
        } else if !response.isSuccess {
            try Terminal.writeOutput(response.body)
        }
    }

    static func reason(_ status: Int) -> String {
        HTTPURLResponse.localizedString(forStatusCode: status)
    }

    /// Fails early, before anything is downloaded, when the output can't be a file.
    static func checkWritable(_ file: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIError(.localFile, "\(file.path) is a directory")
        }
        let parent = file.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw CLIError(.localFile, "the folder \(parent.path) does not exist") }
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError(
                .localFile, "cannot create a temporary folder in \(directory.deletingLastPathComponent().path)")
        }
        return directory
    }

    /// Copies in 1 MiB chunks, stopping if the command is cancelled meanwhile.
    private static func copy(_ file: URL) throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            try Task.checkCancellation()
            try Terminal.writeOutput(chunk)
        }
    }
}
