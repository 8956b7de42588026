import Foundation
public import Logging
import SatchelText
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's log handler: one `logfmt` line per event, buffered and written to a file descriptor in batches.
///
/// ```
/// 2026-11-22T07:41:57Z info satchel.access msg="GET /cmis/browser/shared/root 200" method=GET status=200 …
/// ```
///
/// A write system call per access-log line costs a busy server a noticeable share of each request, so lines
/// go to a shared ``LogSink`` buffer that a background thread writes out every 200 ms, or at once when it
/// holds 64 KiB or a line is `warning` or worse. ``LogSink/flush()`` writes everything now (the server calls it
/// when it stops).
public struct ServerLogHandler: LogHandler {
    /// The lowest level written (`.info` by default).
    public var logLevel: Logger.Level = .info
    /// Metadata written with every line of this handler.
    public var metadata: Logger.Metadata = [:]
    /// Metadata gathered for each line; an event's own metadata wins over it, and it wins over `metadata`.
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let sink: LogSink

    /// A handler for `label` writing to `sink` (standard error unless told otherwise).
    public init(label: String, sink: LogSink = .standardError) {
        self.label = label
        self.sink = sink
    }

    /// One value of the handler's `metadata`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one `logfmt` line: time, level, label, message, the metadata sorted by key, and the error when there is
    /// one. Values with spaces, quotes, `=` or control characters are quoted. A line of level `warning` or worse is
    /// written out at once.
    public func log(event: LogEvent) {
        var line = ""
        line.reserveCapacity(160)
        line += LogSink.timestamp()
        line += " "
        line += event.level.rawValue
        line += " "
        line += label
        line += " msg="
        Self.appendValue("\(event.message)", to: &line)
        var merged: Logger.Metadata
        if metadata.isEmpty && metadataProvider == nil {
            merged = event.metadata ?? [:]  // the access log's case: no copies
        } else {
            merged = metadata
            if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
            if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " "
            line += key
            line += "="
            Self.appendValue("\(value)", to: &line)
        }
        if let error = event.error {
            line += " error="
            Self.appendValue(String(describing: error), to: &line)
        }
        line += "\n"
        sink.write(line, urgent: event.level >= .warning)
    }

    /// Appends `value`, quoted (with `"` and `\` escaped and newlines as `\n`) when it has spaces, quotes, `=`
    /// or control characters.
    static func appendValue(_ value: String, to line: inout String) {
        let needsQuotes =
            value.isEmpty
            || value.utf8.contains {
                $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\\")
            }
        guard needsQuotes else {
            line += value
            return
        }
        line += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            default:
                if scalar.value < 0x20 {
                    line += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    line.unicodeScalars.append(scalar)
                }
            }
        }
        line += "\""
    }
}

/// A buffer of log lines in front of a file descriptor, written out by a background thread.
public final class LogSink: Sendable {
    /// Standard error, shared by every ``ServerLogHandler`` that is not given another sink.
    public static let standardError = LogSink(fileDescriptor: 2)

    private struct State {
        var buffer: [UInt8] = []
        var flusherStarted = false
    }

    private let fileDescriptor: Int32
    private let state = Mutex(State())
    /// Serialises writes to the descriptor so batches never interleave.
    private let writeLock = Mutex(())
    private let flushThreshold = 64 * 1024

    /// A sink writing to `fileDescriptor` (which it does not close).
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Adds `line`; writes at once when `urgent` or when the buffer is full.
    public func write(_ line: String, urgent: Bool = false) {
        let (full, startFlusher) = state.withLock { state -> (Bool, Bool) in
            state.buffer.append(contentsOf: line.utf8)
            let start = !state.flusherStarted
            state.flusherStarted = true
            return (state.buffer.count >= flushThreshold, start)
        }
        if startFlusher { startFlusherThread() }
        if urgent || full { flush() }
    }

    /// Writes everything buffered now.
    public func flush() {
        writeLock.withLock { _ in
            let bytes = state.withLock { state -> [UInt8] in
                let bytes = state.buffer
                state.buffer.removeAll(keepingCapacity: true)
                return bytes
            }
            guard !bytes.isEmpty else { return }
            bytes.withUnsafeBytes { raw in
                guard var pointer = raw.baseAddress else { return }
                var remaining = raw.count
                while remaining > 0 {
                    let written = SystemCalls.write(fileDescriptor, pointer, remaining)
                    // Nowhere left to report a failing log descriptor.
                    if written < 0 { return }
                    remaining -= written
                    pointer += written
                }
            }
        }
    }

    private func startFlusherThread() {
        // The thread holds the sink weakly and ends once nothing else does.
        let thread = Thread { [weak self] in
            while true {
                Thread.sleep(forTimeInterval: 0.2)
                guard let sink = self else { return }
                sink.flush()
            }
        }
        thread.name = "satchel-log-flush"
        thread.start()
    }

    /// The current UTC time as `2026-11-22T07:41:57Z`, formatted once per second.
    static func timestamp() -> String {
        var now = time(nil)
        return timestampCache.withLock { cache in
            if cache.second == now { return cache.text }
            var parts = tm()
            gmtime_r(&now, &parts)
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let text =
                "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
                + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
            cache = (now, text)
            return text
        }
    }

    private static let timestampCache = Mutex<(second: time_t, text: String)>((0, ""))
}
