import CSatchelStoreVFS
import Crypto
import Foundation
import Synchronization

#if canImport(CCryptoBoringSSL)
    import CCryptoBoringSSL
#endif

/// Seals and opens the pages of one store (docs/store-format.md): AES-256-GCM with a fresh nonce per write, a key
/// per file kind derived with HKDF from the store's master key and salt, and the file kind, the page's location and
/// the trailer's clear fields (and for page 1 the salt) as associated data. Pages are sealed in place: no allocation
/// per page.
final class PageCipher: Sendable {
    enum Failure: Equatable, Sendable {
        case corrupt(kind: Int32, location: Int64)
        case misplaced(kind: Int32, location: Int64, found: Int64)
    }

    /// File kinds, as the VFS passes them.
    static let database = Int32(SATCHEL_VFS_DATABASE)
    static let wal = Int32(SATCHEL_VFS_WAL)

    let header: StoreHeader
    private let keys: [AEADKey]
    private let lastFailureBox = Mutex<Failure?>(nil)
    /// Nonces: a random 96-bit starting point for this cipher, plus one per page sealed. As unpredictable across
    /// processes as a random nonce per page (two processes collide only if their ranges overlap), without a call to
    /// the random generator per page.
    private let nonceBase: (high: UInt32, low: UInt64)
    private let sealed = Atomic<UInt64>(0)

    /// The most recent page that failed to open (for the error that names it).
    var lastFailure: Failure? { lastFailureBox.withLock { $0 } }

    /// The cipher of a store whose master key is `master`; `header` gives the salt and the trailer's clear fields.
    init(master: SymmetricKey, header: StoreHeader) {
        self.header = header
        var generator = SystemRandomNumberGenerator()
        nonceBase = (generator.next(), generator.next())
        keys = ["database", "journal", "wal"].map { name in
            AEADKey(
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: master, salt: header.salt, info: Data("satchel-store 1 \(name)".utf8),
                    outputByteCount: 32))
        }
    }

    /// The 12 bytes that show a key is right without opening a page.
    static func keyCheck(master: SymmetricKey, salt: [UInt8]) -> [UInt8] {
        let check = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, salt: salt, info: Data("satchel-store 1 key check".utf8),
            outputByteCount: StoreFormat.keyCheckSize)
        return check.withUnsafeBytes { Array($0) }
    }

    /// Where a page's parts are: its trailer, and its payload (page 1 keeps its first bytes, the salt, in clear).
    private struct Layout {
        let trailer: UnsafeMutableRawPointer
        let payload: UnsafeMutableRawBufferPointer
        let firstPage: Bool

        init(kind: Int32, page: UnsafeMutableRawPointer, size: Int, location: Int64) {
            trailer = page + (size - StoreFormat.reserve)
            firstPage = kind == PageCipher.database && location == 1
            let start = firstPage ? StoreFormat.saltSize : 0
            payload = UnsafeMutableRawBufferPointer(start: page + start, count: size - StoreFormat.reserve - start)
        }

        var nonce: UnsafeMutableRawPointer { trailer + StoreFormat.nonceOffset }
        var tag: UnsafeMutableRawPointer { trailer + StoreFormat.tagOffset }
    }

    /// Seals `page` (`size` bytes) in place. Returns false when it cannot.
    func seal(kind: Int32, page: UnsafeMutableRawPointer, size: Int, location: Int64) -> Bool {
        guard size == StoreFormat.pageSize, let key = keys[safe: Int(kind)] else { return false }
        let layout = Layout(kind: kind, page: page, size: size, location: location)
        writeClearTrailer(layout.trailer, location: location)
        if layout.firstPage {
            header.salt.withUnsafeBytes { page.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        writeNonce(layout.nonce)
        return withAssociatedData(kind: kind, trailer: layout.trailer, firstPage: layout.firstPage) { associated in
            key.seal(payload: layout.payload, nonce: layout.nonce, tag: layout.tag, associated: associated)
        }
    }

    /// Opens `page` in place. Returns false (and records why) when it fails authentication.
    func open(kind: Int32, page: UnsafeMutableRawPointer, size: Int, location: Int64) -> Bool {
        guard size == StoreFormat.pageSize, let key = keys[safe: Int(kind)] else { return false }
        let layout = Layout(kind: kind, page: page, size: size, location: location)
        let trailer = layout.trailer
        let stored = Self.location(in: trailer)
        guard stored == location else {
            lastFailureBox.withLock { $0 = .misplaced(kind: kind, location: location, found: stored) }
            return false
        }
        let opened = withAssociatedData(kind: kind, trailer: trailer, firstPage: layout.firstPage) { associated in
            key.open(payload: layout.payload, nonce: layout.nonce, tag: layout.tag, associated: associated)
        }
        guard opened else {
            lastFailureBox.withLock { $0 = .corrupt(kind: kind, location: location) }
            return false
        }
        let firstPage = layout.firstPage
        if firstPage {
            StoreFormat.sqliteMagic.withUnsafeBytes { page.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        // SQLite sees reserved bytes of zeros: what it checksums in a WAL frame when writing it (a page it read, then
        // changed) is then what recovery finds after opening the frame, whatever trailer the frame was sealed with.
        trailer.initializeMemory(as: UInt8.self, repeating: 0, count: StoreFormat.reserve)
        return true
    }

    /// The next nonce: the base plus the number of pages sealed before, big-endian.
    private func writeNonce(_ nonce: UnsafeMutableRawPointer) {
        let count = sealed.wrappingAdd(1, ordering: .relaxed).oldValue
        let (low, carry) = nonceBase.low.addingReportingOverflow(count)
        var high = (nonceBase.high &+ (carry ? 1 : 0)).bigEndian
        var lowBytes = low.bigEndian
        nonce.copyMemory(from: &high, byteCount: 4)
        (nonce + 4).copyMemory(from: &lowBytes, byteCount: 8)
    }

    private func writeClearTrailer(_ trailer: UnsafeMutableRawPointer, location: Int64) {
        var location = UInt64(bitPattern: location).bigEndian
        (trailer + StoreFormat.locationOffset).copyMemory(from: &location, byteCount: 8)
        trailer.storeBytes(of: header.version, toByteOffset: StoreFormat.versionOffset, as: UInt8.self)
        trailer.storeBytes(
            of: header.derivation.rawValue, toByteOffset: StoreFormat.derivationOffset, as: UInt8.self)
        var iterations = header.iterations.bigEndian
        (trailer + StoreFormat.iterationsOffset).copyMemory(from: &iterations, byteCount: 4)
        header.keyCheck.withUnsafeBytes {
            (trailer + StoreFormat.keyCheckOffset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
        StoreFormat.marker.withUnsafeBytes {
            (trailer + StoreFormat.markerOffset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
    }

    static func location(in trailer: UnsafeRawPointer) -> Int64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: trailer + StoreFormat.locationOffset, count: 8))
        }
        return Int64(bitPattern: UInt64(bigEndian: value))
    }

    /// Calls `body` with the associated data: kind, trailer bytes 28–63, and the salt for page 1 (at most 53 bytes,
    /// on the stack).
    private func withAssociatedData<R>(
        kind: Int32, trailer: UnsafeRawPointer, firstPage: Bool, _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw[0] = UInt8(truncatingIfNeeded: kind)
            let clear = StoreFormat.authenticatedRange
            raw.baseAddress!.advanced(by: 1).copyMemory(from: trailer + clear.lowerBound, byteCount: clear.count)
            var count = 1 + clear.count
            if firstPage {
                header.salt.withUnsafeBytes {
                    raw.baseAddress!.advanced(by: count).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                }
                count += header.salt.count
            }
            return body(UnsafeRawBufferPointer(start: raw.baseAddress, count: count))
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

#if canImport(CCryptoBoringSSL)
    /// An AES-256-GCM key in BoringSSL, sealing and opening in place.
    final class AEADKey: @unchecked Sendable {
        // Immutable after init; BoringSSL's seal and open take the context as const and may run concurrently.
        private let context: UnsafeMutablePointer<EVP_AEAD_CTX>

        init(_ key: SymmetricKey) {
            context = key.withUnsafeBytes { bytes in
                CCryptoBoringSSL_EVP_AEAD_CTX_new(
                    CCryptoBoringSSL_EVP_aead_aes_256_gcm(), bytes.bindMemory(to: UInt8.self).baseAddress, 32,
                    StoreFormat.tagSize)!
            }
        }

        deinit { CCryptoBoringSSL_EVP_AEAD_CTX_free(context) }

        /// Seals `payload` in place under the nonce already written at `nonce`.
        func seal(
            payload: UnsafeMutableRawBufferPointer, nonce: UnsafeMutableRawPointer, tag: UnsafeMutableRawPointer,
            associated: UnsafeRawBufferPointer
        ) -> Bool {
            let nonceBytes = nonce.assumingMemoryBound(to: UInt8.self)
            let bytes = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var tagLength = 0
            return CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(
                context, bytes, tag.assumingMemoryBound(to: UInt8.self), &tagLength, StoreFormat.tagSize,
                nonceBytes, StoreFormat.nonceSize, bytes, payload.count, nil, 0,
                associated.baseAddress!.assumingMemoryBound(to: UInt8.self), associated.count) == 1
                && tagLength == StoreFormat.tagSize
        }

        func open(
            payload: UnsafeMutableRawBufferPointer, nonce: UnsafeMutableRawPointer, tag: UnsafeMutableRawPointer,
            associated: UnsafeRawBufferPointer
        ) -> Bool {
            let bytes = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(
                context, bytes, nonce.assumingMemoryBound(to: UInt8.self), StoreFormat.nonceSize, bytes,
                payload.count, tag.assumingMemoryBound(to: UInt8.self), StoreFormat.tagSize,
                associated.baseAddress!.assumingMemoryBound(to: UInt8.self), associated.count) == 1
        }
    }
#else
    /// An AES-256-GCM key through CryptoKit (Apple platforms): one ciphertext copy per page.
    final class AEADKey: Sendable {
        private let key: SymmetricKey

        init(_ key: SymmetricKey) { self.key = key }

        private static func nonce(at pointer: UnsafeMutableRawPointer) -> AES.GCM.Nonce? {
            try? AES.GCM.Nonce(data: UnsafeRawBufferPointer(start: pointer, count: StoreFormat.nonceSize))
        }

        /// Seals `payload` in place under the nonce already written at `nonce`.
        func seal(
            payload: UnsafeMutableRawBufferPointer, nonce: UnsafeMutableRawPointer, tag: UnsafeMutableRawPointer,
            associated: UnsafeRawBufferPointer
        ) -> Bool {
            guard
                let nonceValue = Self.nonce(at: nonce),
                let box = try? AES.GCM.seal(
                    UnsafeRawBufferPointer(payload), using: key, nonce: nonceValue, authenticating: associated)
            else { return false }
            box.ciphertext.copyBytes(to: payload)
            box.tag.withUnsafeBytes { tag.copyMemory(from: $0.baseAddress!, byteCount: StoreFormat.tagSize) }
            return true
        }

        func open(
            payload: UnsafeMutableRawBufferPointer, nonce: UnsafeMutableRawPointer, tag: UnsafeMutableRawPointer,
            associated: UnsafeRawBufferPointer
        ) -> Bool {
            guard
                let nonceValue = Self.nonce(at: nonce),
                let box = try? AES.GCM.SealedBox(
                    nonce: nonceValue, ciphertext: UnsafeRawBufferPointer(payload),
                    tag: UnsafeRawBufferPointer(start: tag, count: StoreFormat.tagSize)),
                let plain = try? AES.GCM.open(box, using: key, authenticating: associated)
            else { return false }
            plain.copyBytes(to: payload)
            return true
        }
    }
#endif
