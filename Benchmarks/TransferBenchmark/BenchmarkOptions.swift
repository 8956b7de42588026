import Foundation

/// Command-line options of the benchmark; `--worker` runs one transfer and prints its result.
struct BenchmarkOptions {
    var size: Int64 = 1 << 30
    var runs = 5
    /// Where the data file, nginx and the downloads live (a fresh folder under it is created and removed); by
    /// default `/dev/shm` when it has room, so that disk write-back does not add noise to the numbers.
    var directory: String?
    /// Upload sink: `store` (nginx WebDAV PUT writes the body to a file, checked afterwards) or `discard`.
    var sink = "store"
    var methods = ["curl", "urlsession", "socket"]
    /// HTTPS: nginx serves TLS with a certificate made for the run, curl and the workers trust it.
    var tls = false
    var keep = false
    var worker: WorkerOptions?

    struct WorkerOptions {
        var transport = "socket"
        var direction = "download"
        var url = ""
        var file = ""
        /// The PEM authority an `https` worker trusts.
        var caFile: String?
        /// `client` (HTTPClient.download/upload) or `transport` (TransportRequest straight to the transport).
    }

    static let usage = """
        usage: TransferBenchmark [--size BYTES|1G|64M] [--runs N] [--dir PATH (default /dev/shm if it has room)]
                                 [--sink store|discard]
                                 [--methods curl,urlsession,socket,nio] [--tls] [--keep]
        Downloads and uploads a file over loopback through nginx with curl and with SatchelHTTP's transports,
        each in its own process, and prints median throughput and peak RSS beside curl's. --tls does it over HTTPS
        (socket speaks no TLS; nio is the Linux HTTPS transport).
        """

    static func parse(_ arguments: [String]) throws -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var worker: WorkerOptions?
        var iterator = arguments.makeIterator()
        func value(_ name: String) throws -> String {
            guard let value = iterator.next() else { throw BenchmarkError("\(name) needs a value\n\(usage)") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--size": options.size = try parseSize(value(argument))
            case "--runs": options.runs = max(1, Int(try value(argument)) ?? 5)
            case "--dir": options.directory = try value(argument)
            case "--sink": options.sink = try value(argument)
            case "--methods": options.methods = try value(argument).split(separator: ",").map(String.init)
            case "--keep": options.keep = true
            case "--tls": options.tls = true
            case "--ca-file": worker?.caFile = try value(argument)
            case "--worker": worker = WorkerOptions()
            case "--transport": worker?.transport = try value(argument)
            case "--direction": worker?.direction = try value(argument)
            case "--url": worker?.url = try value(argument)
            case "--file": worker?.file = try value(argument)
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw BenchmarkError("unknown argument \(argument)\n\(usage)")
            }
        }
        if options.directory == nil { options.directory = defaultDirectory(for: options.size) }
        guard ["store", "discard"].contains(options.sink) else { throw BenchmarkError("--sink is store or discard") }
        options.worker = worker
        return options
    }

    /// `/dev/shm` (memory-backed) when it can hold the data file, a download and a stored upload at once.
    static func defaultDirectory(for size: Int64) -> String {
        let shm = "/dev/shm"
        if let attributes = try? FileManager.default.attributesOfFileSystem(forPath: shm),
            let free = (attributes[.systemFreeSize] as? NSNumber)?.int64Value, free > 4 * size,
            FileManager.default.isWritableFile(atPath: shm)
        {
            return shm
        }
        return FileManager.default.temporaryDirectory.path
    }

    /// `1073741824`, `1G`, `64M`, `512K` (binary units).
    static func parseSize(_ text: String) throws -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = text.uppercased().last, let unit = units[last], let number = Double(text.dropLast()) {
            return Int64(number * Double(unit))
        }
        guard let bytes = Int64(text), bytes > 0 else { throw BenchmarkError("--size \(text) is not a size") }
        return bytes
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
