import Foundation

/// Strings read before, handed out again so that text repeated across a document shares one allocation.
///
/// A page of 1,000 objects repeats the same few dozen property ids and names 1,000 times each. Read through a
/// table, each distinct text is allocated once and every later occurrence is a retain of the same storage, which
/// also makes comparing them cheap (equal storage compares equal without looking at the bytes).
///
/// The table is bounded: once it holds `capacity` strings it stops adding, and text it does not hold is read as
/// usual. Strings of up to 15 UTF-8 bytes are stored inline by `String` and never go through the table.
///
/// ```swift
/// var names = JSONStringTable()
/// try reader.readObject { key, reader in
///     if key == "id" { id = try reader.readString(sharing: &names) }
/// }
/// ```
public struct JSONStringTable: Sendable {
    // Empty until the first string longer than 15 bytes, so a table that is never used costs nothing; it grows
    // as it fills, up to twice `capacity` slots.
    private var hashes: [UInt64] = []
    private var strings: [String] = []
    private var count = 0
    private var mask = 0
    private let capacity: Int

    /// A table that keeps up to `capacity` distinct strings.
    public init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// How many distinct strings the table holds.
    public var storedCount: Int { count }

    /// The string with these UTF-8 bytes (already validated), shared with earlier calls when the table has it.
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if bytes.count <= 15 { return String(decoding: bytes, as: UTF8.self) }
        let hash = Self.hash(bytes)
        if !hashes.isEmpty {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while hashes[slot] != 0 {
                if hashes[slot] == hash, Self.equal(strings[slot], bytes) { return strings[slot] }
                slot = (slot &+ 1) & mask
            }
        }
        let string = String(decoding: bytes, as: UTF8.self)
        if count < capacity { insert(string, hash: hash) }
        return string
    }

    private mutating func insert(_ string: String, hash: UInt64) {
        if (count + 1) * 2 > hashes.count { grow() }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while hashes[slot] != 0 { slot = (slot &+ 1) & mask }
        hashes[slot] = hash
        strings[slot] = string
        count += 1
    }

    private mutating func grow() {
        let slots = max(32, hashes.count * 2)
        let oldHashes = hashes
        let oldStrings = strings
        hashes = Array(repeating: 0, count: slots)
        strings = Array(repeating: "", count: slots)
        mask = slots - 1
        count = 0
        for index in oldHashes.indices where oldHashes[index] != 0 {
            insert(oldStrings[index], hash: oldHashes[index])
        }
    }

    /// A 64-bit hash of the bytes, never zero (zero marks an empty slot).
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        while i &+ 8 <= raw.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x0000_0100_0000_01b3
            hash ^= hash >> 29
            i &+= 8
        }
        while i < raw.count {
            hash = (hash ^ UInt64(raw[i])) &* 0x0000_0100_0000_01b3
            i &+= 1
        }
        return hash | 1
    }

    private static func equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var string = string
        return string.withUTF8 { stored in
            stored.count == bytes.count
                && (stored.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
    }
}

extension JSONReader {
    /// Reads a string, shared through `table` with equal strings read before (see ``JSONStringTable``).
    ///
    /// ```swift
    /// let id = try reader.readString(sharing: &names)
    /// ```
    public mutating func readString(sharing table: inout JSONStringTable) throws -> String {
        guard peekByte() == UInt8(ascii: "\"") else { throw typeMismatch(expected: "a string", at: index) }
        let span = try scanString()
        if span.escaped { return makeString(span) }
        return table.string(UnsafeBufferPointer(start: base + span.start, count: span.end - span.start))
    }
}
