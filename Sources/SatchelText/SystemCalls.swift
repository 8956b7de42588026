#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few system calls several modules make on file descriptors, once, with the platform's module named where a
/// type's own method of the same name would shadow the C function, and interrupted calls retried.
package enum SystemCalls {
    /// One `write(2)` of up to `count` bytes, retried while a signal interrupts it (EINTR): the bytes written, or
    /// -1 with `errno` set.
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        while true {
            #if canImport(Darwin)
                let result = Darwin.write(descriptor, bytes, count)
            #elseif canImport(Glibc)
                let result = Glibc.write(descriptor, bytes, count)
            #else
                let result = Musl.write(descriptor, bytes, count)
            #endif
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// One `read(2)` of up to `count` bytes, retried while a signal interrupts it (EINTR): the bytes read (0 at the
    /// end of the file), or -1 with `errno` set.
    package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        while true {
            #if canImport(Darwin)
                let result = Darwin.read(descriptor, buffer, count)
            #elseif canImport(Glibc)
                let result = Glibc.read(descriptor, buffer, count)
            #else
                let result = Musl.read(descriptor, buffer, count)
            #endif
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// `close(2)`; its result is not looked at (a descriptor is gone either way).
    package static func close(_ descriptor: Int32) {
        #if canImport(Darwin)
            _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Musl.close(descriptor)
        #endif
    }

    /// `unlink(2)`; a file already gone is no error to report.
    package static func unlink(_ path: String) {
        #if canImport(Darwin)
            _ = Darwin.unlink(path)
        #elseif canImport(Glibc)
            _ = Glibc.unlink(path)
        #else
            _ = Musl.unlink(path)
        #endif
    }
}
