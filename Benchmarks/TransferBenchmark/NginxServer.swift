import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// nginx serving the data file with `sendfile on`, run as a child process from a generated configuration.
///
/// `/data.bin` is the download; `PUT /dav/NAME` stores an upload (WebDAV, so the body is really received and can be
/// checked afterwards); `/sink` answers 204 and discards the body.
final class NginxServer {
    let port: Int
    let prefix: String
    let davRoot: String
    private let pid: pid_t

    /// `tls`: the PEM certificate and key to serve HTTPS with.
    init(binary: String, prefix: String, dataRoot: String, tls: (certificate: String, key: String)? = nil) throws {
        self.prefix = prefix
        davRoot = "\(prefix)/dav"
        for folder in ["logs", "body", "dav", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(atPath: "\(prefix)/\(folder)", withIntermediateDirectories: true)
        }
        port = try Self.freePort()
        let user = geteuid() == 0 ? "user root;" : ""
        let configuration = """
            daemon off;
            master_process off;
            \(user)
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log warn;
            events { worker_connections 64; }
            http {
                log_format bench '$request_method $uri $status $request_length $body_bytes_sent';
                access_log \(prefix)/logs/access.log bench;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                default_type application/octet-stream;
                sendfile on;
                tcp_nopush on;
                keepalive_timeout 65;
                server {
                    listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl");
                    \(tls.map { "ssl_certificate \($0.certificate); ssl_certificate_key \($0.key); ssl_protocols TLSv1.2 TLSv1.3;" } ?? "")
                    root \(dataRoot);
                    location /dav/ {
                        alias \(prefix)/dav/;
                        dav_methods PUT DELETE;
                        client_max_body_size 0;
                        client_body_buffer_size 1m;
                    }
                    location = /sink {
                        client_max_body_size 0;
                        return 204;
                    }
                }
            }
            """
        let path = "\(prefix)/nginx.conf"
        try configuration.write(toFile: path, atomically: true, encoding: .utf8)
        pid = try ChildProcess.spawn(
            [binary, "-p", prefix, "-c", path, "-e", "\(prefix)/logs/error.log"],
            captureOutput: false
        ).pid
        try waitUntilListening()
    }

    func stop() {
        kill(pid, SIGTERM)
        ChildProcess.wait(pid)
    }

    var errorLog: String { (try? String(contentsOfFile: "\(prefix)/logs/error.log", encoding: .utf8)) ?? "" }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.canConnect(port) { return }
            if waitpid(pid, nil, WNOHANG) == pid {
                throw BenchmarkError("nginx exited at start:\n\(errorLog)")
            }
            usleep(20_000)
        }
        throw BenchmarkError("nginx did not start listening on port \(port):\n\(errorLog)")
    }

    /// A port that was free a moment ago: bind port 0, read it back, release it.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw BenchmarkError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
