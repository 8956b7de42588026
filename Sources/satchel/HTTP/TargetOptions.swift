import ArgumentParser
import SatchelHTTP
import Foundation

/// What to request and where the answer goes.
struct TargetOptions: ParsableArguments, Sendable {
    @Argument(help: ArgumentHelp("The URL; relative to --url when that is given.", valueName: "url"))
    var url: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Write the body to this file instead of standard output.",
            valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Ask for part of the body: START-END, START- or -LAST_BYTES.", valueName: "range"))
    var range: String?

    @Flag(help: "Continue a partial --output file with a range request.")
    var resume = false

    @Flag(name: .shortAndLong, help: "Print the status line and headers (secrets redacted) before the body.")
    var include = false

    @Flag(help: "Print the body of an error response too (the exit code still says it failed).")
    var noFail = false

    func validate() throws {
        if resume, output == nil { throw ValidationError("--resume needs --output") }
        if resume, range != nil { throw ValidationError("--resume and --range can't be used together") }
        if let range, Self.byteRange(range) == nil {
            throw ValidationError("--range needs START-END, START- or -LAST_BYTES, got \"\(range)\"")
        }
    }

    var outputFile: URL? { output.map { URL(fileURLWithPath: $0) } }
    var byteRange: ByteRange? { range.flatMap(Self.byteRange) }

    static func byteRange(_ text: String) -> ByteRange? {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        switch (Int64(parts[0]), Int64(parts[1])) {
        case (let start?, let end?) where start >= 0 && start <= end: return .bytes(start...end)
        case (let start?, nil) where start >= 0 && parts[1].isEmpty: return .from(start)
        case (nil, let count?) where parts[0].isEmpty && count > 0: return .suffix(count)
        default: return nil
        }
    }

    /// The request URL; a relative one resolves against `--url` in the client.
    func requestURL() throws -> URL {
        guard let url = URL(string: url) else {
            throw CLIError(.usage, "\"\(Redaction.text(url))\" is not a URL")
        }
        return url
    }
}
