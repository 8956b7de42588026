import Foundation
import SatchelHTTP

/// One transfer in a process of its own, so that its peak RSS belongs to that transport alone.
///
/// Prints `seconds bytes status vmhwm_kib` on one line.
enum Worker {
    static func run(_ options: BenchmarkOptions.WorkerOptions) async -> Int32 {
        guard let url = URL(string: options.url) else {
            FileHandle.standardError.write(Data("worker: bad URL \(options.url)\n".utf8))
            return 2
        }
        let transport: any HTTPTransport
        do {
            switch options.transport {
            case "socket": transport = SocketTransport()
            case "socket-readwrite": transport = SocketTransport(configuration: .init(usesSendFile: false))
            case "automatic": transport = AutomaticTransport()
            #if os(Linux)
                case "nio":
                    transport = try NIOTransport(
                        configuration: .init(tls: .init(trustRoots: options.caFile.map { URL(fileURLWithPath: $0) })))
            #endif
            default: transport = URLSessionTransport()
            }
        } catch {
            FileHandle.standardError.write(Data("worker: \(error)\n".utf8))
            return 2
        }
        let configuration = HTTPClient.Configuration(timeout: .seconds(60), retry: .never)
        let client = HTTPClient(configuration: configuration, transport: transport)
        let file = URL(fileURLWithPath: options.file)
        do {
            let started = ContinuousClock.now
            let status: Int
            let bytes: Int64
            if options.direction == "upload" {
                let response = try await client.upload(HTTPClient.Request(.put, url: url), fromFile: file)
                status = response.status
                bytes = try fileSize(file)
            } else {
                let response = try await client.download(HTTPClient.Request(url: url), to: file)
                status = response.status
                bytes = try fileSize(file)
            }
            let elapsed = ContinuousClock.now - started
            print("\(elapsed.seconds) \(bytes) \(status) \(peakResidentKiB())")
            return 0
        } catch {
            FileHandle.standardError.write(Data("worker \(options.transport) \(options.direction): \(error)\n".utf8))
            return 1
        }
    }

    static func fileSize(_ url: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// `VmHWM` from `/proc/self/status`: the peak resident set of this process, in KiB.
    static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
