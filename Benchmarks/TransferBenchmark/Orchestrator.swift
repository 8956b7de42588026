import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs every method several times against one nginx, checks every transfer, and prints the table.
final class Orchestrator {
    let options: BenchmarkOptions
    /// Set when HTTPClient.download can't finish on this platform (see Worker): downloads then go to the transport.
    let folder: String
    let dataFile: String
    /// The authority the HTTPS transfers trust (`--tls`).
    private var caFile: String?
    let tools: Tools

    struct Tools {
        var nginx: String
        var curl: String
        var time: String
        var cmp: String
        var own: String
    }

    static let methodLabels: [String: String] = [
        "curl": "curl", "urlsession": "URLSessionTransport", "socket": "SocketTransport",
        "automatic": "AutomaticTransport", "socket-readwrite": "Socket, no sendfile", "nio": "NIOTransport",
    ]

    init(options: BenchmarkOptions) throws {
        self.options = options
        func tool(_ name: String) throws -> String {
            guard let path = ChildProcess.which(name) else {
                throw BenchmarkError("\(name) is not installed (scripts/bench-transfer installs nginx, curl and time)")
            }
            return path
        }
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        tools = Tools(
            nginx: try tool("nginx"), curl: try tool("curl"), time: "/usr/bin/time", cmp: try tool("cmp"), own: own)
        guard FileManager.default.isExecutableFile(atPath: tools.time) else {
            throw BenchmarkError("/usr/bin/time is missing (Debian package time)")
        }
        folder = "\(options.directory ?? NSTemporaryDirectory())/satchel-transfer-\(getpid())"
        dataFile = "\(folder)/www/data.bin"
    }

    func run() throws -> Bool {
        try FileManager.default.createDirectory(atPath: "\(folder)/www", withIntermediateDirectories: true)
        defer { if !options.keep { try? FileManager.default.removeItem(atPath: folder) } }
        log("generating \(options.size) random bytes in \(dataFile)")
        try generate(dataFile, size: options.size)
        var tls: (certificate: String, key: String)?
        if options.tls {
            // A certificate for this run: 127.0.0.1, P-256, its own authority.
            let certificate = "\(folder)/tls.pem"
            let key = "\(folder)/tls.key"
            let made = try ChildProcess.run(
                [
                    "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1",
                ], captureErrors: true)
            guard made.status == 0 else { throw BenchmarkError("openssl could not make a certificate: \(made.error)") }
            tls = (certificate, key)
            caFile = certificate
        }
        let nginx = try NginxServer(
            binary: tools.nginx, prefix: "\(folder)/nginx", dataRoot: "\(folder)/www", tls: tls)
        defer { nginx.stop() }
        log("nginx on 127.0.0.1:\(nginx.port), upload sink: \(options.sink)")

        var report = Report()
        for run in 1...options.runs {
            for method in options.methods {
                for direction in ["download", "upload"] {
                    let sample: Sample
                    do {
                        sample = try measure(method, direction, run: run, nginx: nginx)
                    } catch let error as TransferFailure where method == "urlsession" {
                        // URLSession is the baseline being replaced: record its failure and go on.
                        report.fail(error.description, method: method, direction: direction)
                        log("run \(run) \(method) \(direction): FAILED: \(error.description)")
                        continue
                    }
                    report.add(sample, method: method, direction: direction)
                    log(
                        String(
                            format: "run %d %@ %@: %.0f MB/s, %.1f MiB peak RSS", run, method, direction,
                            sample.megabytesPerSecond, Double(sample.peakKiB) / 1024)
                    )
                }
            }
        }
        let methods = options.methods.map { Method(name: $0, label: Self.methodLabels[$0] ?? $0) }
        let header = String(
            format:
                "Loopback transfer of %.2f GiB through %@ (sendfile on; uploads: %@), files in %@, %d run(s), median:",
            Double(options.size) / Double(1 << 30), nginxVersion(),
            options.sink == "store" ? "WebDAV PUT to a file" : "discarded", options.directory ?? "", options.runs)
        print("")
        print(report.render(methods: methods, header: header))
        print("curl: \(curlVersion())")
        var passed = true
        for method in options.methods where method == "socket" || method == "automatic" || method == "nio" {
            let verdict = report.verdict(for: method, label: Self.methodLabels[method] ?? method)
            print(verdict.text)
            passed = passed && verdict.passed
        }
        return passed
    }

    // MARK: One transfer

    private func measure(_ method: String, _ direction: String, run: Int, nginx: NginxServer) throws -> Sample {
        let base = "\(options.tls ? "https" : "http")://127.0.0.1:\(nginx.port)"
        let target = "\(folder)/down-\(method).bin"
        let uploadName = "up-\(method).bin"
        let url =
            direction == "download"
            ? "\(base)/data.bin" : (options.sink == "store" ? "\(base)/dav/\(uploadName)" : "\(base)/sink")
        let rssFile = "\(folder)/rss-\(method)"
        var command = [tools.time, "-f", "%M", "-o", rssFile]
        if method == "curl" {
            command += [
                tools.curl, "-sS", "-H", "Expect:", "-w", "%{time_total} %{size_download} %{size_upload} %{http_code}",
            ]
            if let caFile { command += ["--cacert", caFile] }
            command += direction == "download" ? ["-o", target, url] : ["-T", dataFile, "-o", "/dev/null", url]
        } else {
            command += [tools.own, "--worker", "--transport", method, "--direction", direction, "--url", url]
            command += ["--file", direction == "download" ? target : dataFile]
            if let caFile { command += ["--ca-file", caFile] }
        }
        let child = try ChildProcess.run(command, captureErrors: true)
        guard child.status == 0 else { throw TransferFailure(description: child.error) }
        let fields = child.output.split(separator: " ").map(String.init)
        let peak = Int((try? String(contentsOfFile: rssFile, encoding: .utf8))?.split(separator: "\n").last ?? "") ?? -1
        let seconds: Double
        let status: Int
        if method == "curl" {
            guard fields.count == 4, let time = Double(fields[0]), let code = Int(fields[3]) else {
                throw BenchmarkError("unexpected curl output: \(child.output)")
            }
            (seconds, status) = (time, code)
        } else {
            guard fields.count == 4, let time = Double(fields[0]), let code = Int(fields[2]) else {
                throw BenchmarkError("unexpected worker output: \(child.output)")
            }
            (seconds, status) = (time, code)
        }
        try verify(method, direction, status: status, run: run, target: target, uploadName: uploadName)
        return Sample(seconds: seconds, bytes: options.size, peakKiB: peak)
    }

    /// Sizes on every run, full byte comparison on the first: nothing is faked.
    private func verify(
        _ method: String, _ direction: String, status: Int, run: Int, target: String, uploadName: String
    )
        throws
    {
        if direction == "download" {
            defer { try? FileManager.default.removeItem(atPath: target) }
            guard status == 200 else { throw BenchmarkError("\(method) download: status \(status)") }
            try check(target, method: method, direction: direction, compare: run == 1)
        } else if options.sink == "store" {
            let stored = "\(folder)/nginx/dav/\(uploadName)"
            defer { try? FileManager.default.removeItem(atPath: stored) }
            guard status == 201 || status == 204 else { throw BenchmarkError("\(method) upload: status \(status)") }
            try check(stored, method: method, direction: direction, compare: run == 1)
        } else {
            guard status == 204 else { throw BenchmarkError("\(method) upload: status \(status)") }
        }
    }

    private func check(_ path: String, method: String, direction: String, compare: Bool) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
        guard size == options.size else {
            throw BenchmarkError("\(method) \(direction): \(size) bytes arrived, expected \(options.size)")
        }
        if compare {
            let result = try ChildProcess.run([tools.cmp, "-s", dataFile, path])
            guard result.status == 0 else { throw BenchmarkError("\(method) \(direction): the bytes differ") }
        }
    }

    /// A transfer that did not complete, with the worker's own explanation.
    struct TransferFailure: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Helpers

    private func generate(_ path: String, size: Int64) throws {
        let random = open("/dev/urandom", O_RDONLY)
        let output = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard random >= 0, output >= 0 else { throw BenchmarkError("cannot create \(path)") }
        defer {
            close(random)
            close(output)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var left = size
        while left > 0 {
            let want = Int(min(left, Int64(buffer.count)))
            let got = read(random, buffer.baseAddress!, want)
            guard got > 0, write(output, buffer.baseAddress!, got) == got else {
                throw BenchmarkError("cannot write \(path)")
            }
            left -= Int64(got)
        }
    }

    private func nginxVersion() -> String {
        // nginx prints its version on standard error; ask through a shell so it lands in the captured output.
        let output = (try? ChildProcess.run(["/bin/sh", "-c", "\(tools.nginx) -v 2>&1"]))?.output ?? ""
        return output.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "nginx"
    }

    private func curlVersion() -> String {
        let output = (try? ChildProcess.run([tools.curl, "--version"]))?.output ?? ""
        return output.split(separator: "\n").first.map(String.init) ?? "curl"
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }
}
