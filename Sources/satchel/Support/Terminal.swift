// The one place where the CLI deals with the C library: terminals, standard streams, signals, exit.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

enum Terminal {
    /// Whether standard error is a terminal, so a progress bar can be redrawn in place.
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes to the controlling terminal (`/dev/tty`), never to a redirected stream or a log; false when the
    /// process has no terminal.
    static func writeToControllingTerminal(_ text: String) -> Bool {
        let descriptor = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Creates `url` readable and writable by its owner only, holding `text`; an existing file is replaced.
    static func writePrivateFile(_ url: URL, _ text: String) throws {
        unlink(url.path)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    static func writeOutput(_ data: Data) throws {
        try FileHandle.standardOutput.write(contentsOf: data)
    }

    /// One line of standard input without its line break, or nil at end of input.
    static func readLine() -> String? {
        Swift.readLine(strippingNewline: true).map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
    }

    static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name]
    }

    /// The C library's words for an `errno` value.
    static func describeErrorNumber(_ number: Int32) -> String {
        String(cString: strerror(number))
    }

    static func exit(_ code: SatchelExitCode) -> Never {
        Foundation.exit(code.rawValue)
    }

    /// Calls `handler` on every SIGINT until the returned source is cancelled.
    ///
    /// The default action is switched off while the source lives, so Ctrl-C reaches the handler instead of ending
    /// the process before partial files are cleaned up.
    static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: handler)
        source.setCancelHandler { signal(SIGINT, SIG_DFL) }
        source.resume()
        return source
    }
}
