/// A document flattened into one array of entries ("tape") before Codable decoding, so containers
/// can find members and skip values without re-tokenizing, and without building dictionaries.
///
/// Objects are laid out as: object entry, then key entry + value subtree per member. A container's
/// `extent` is the tape index just past its last descendant, which makes skipping O(1).
@usableFromInline
final class JSONTape {
    @usableFromInline
    struct Entry {
        @usableFromInline var kind: Kind
        @usableFromInline var escaped: Bool
        /// Members or elements of a container.
        @usableFromInline var count: UInt32
        /// Byte offset: content start for strings and keys, first byte for numbers and containers.
        @usableFromInline var start: Int
        /// Strings, keys and numbers: byte offset of the content end. Containers: tape index past the end.
        @usableFromInline var extent: Int

        @inlinable
        init(kind: Kind, escaped: Bool = false, count: UInt32 = 0, start: Int, extent: Int = 0) {
            self.kind = kind
            self.escaped = escaped
            self.count = count
            self.start = start
            self.extent = extent
        }
    }

    @usableFromInline
    enum Kind: UInt8 {
        case null, `true`, `false`, number, string, array, object
    }

    let entries: [Entry]
    /// The document bytes the entries point into; valid while the decode call runs.
    let base: UnsafePointer<UInt8>
    let count: Int
    /// Absolute offset of `base[0]` (non-zero for a streamed element).
    let origin: Int
    /// Index of a `null` entry appended after the document, for `superDecoder` on a missing key.
    let nullIndex: Int

    init(reader: inout JSONReader) throws {
        var builder = Builder(entries: [])
        builder.entries.reserveCapacity(max(16, (reader.end - reader.index) / 8))
        try builder.value(&reader)
        builder.entries.append(Entry(kind: .null, start: reader.index))
        nullIndex = builder.entries.count - 1
        entries = builder.entries
        base = reader.base
        count = reader.end
        origin = reader.origin
    }

    struct Builder {
        var entries: [Entry]

        mutating func value(_ reader: inout JSONReader) throws {
            switch reader.peekByte() {
            case UInt8(ascii: "\""):
                let span = try reader.scanString()
                entries.append(Entry(kind: .string, escaped: span.escaped, start: span.start, extent: span.end))
            case UInt8(ascii: "{"):
                let me = entries.count
                entries.append(Entry(kind: .object, start: reader.index))
                var count: UInt32 = 0
                try reader.readObject { key, reader in
                    let start = key.base - reader.base
                    entries.append(
                        Entry(kind: .string, escaped: key.unescaped != nil, start: start, extent: start + key.count))
                    try value(&reader)
                    count += 1
                }
                entries[me].count = count
                entries[me].extent = entries.count
            case UInt8(ascii: "["):
                let me = entries.count
                entries.append(Entry(kind: .array, start: reader.index))
                var count: UInt32 = 0
                try reader.readArray { reader in
                    try value(&reader)
                    count += 1
                }
                entries[me].count = count
                entries[me].extent = entries.count
            case UInt8(ascii: "t"), UInt8(ascii: "f"):
                let start = reader.index
                entries.append(Entry(kind: try reader.readBool() ? .true : .false, start: start))
            case UInt8(ascii: "n"):
                let start = reader.index
                try reader.readNull()
                entries.append(Entry(kind: .null, start: start))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let span = try reader.scanNumber()
                entries.append(Entry(kind: .number, start: span.start, extent: span.end))
            default:
                throw reader.syntaxError(expected: "a value", at: reader.index)
            }
        }
    }

    /// Tape index of the entry after the value at `index` (skipping its subtree).
    @inline(__always)
    func next(after index: Int) -> Int {
        let entry = entries[index]
        return entry.kind.rawValue >= Kind.array.rawValue ? entry.extent : index + 1
    }

    @inline(__always)
    func bytes(_ entry: Entry) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + entry.start, count: entry.extent - entry.start)
    }

    func string(_ entry: Entry) -> String {
        let bytes = bytes(entry)
        return entry.escaped ? JSONReader.unescape(bytes) : String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the key entry at `index` spells `name`.
    @inline(__always)
    func key(_ index: Int, equals name: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = entries[index]
        if entry.escaped {
            return string(entry).utf8.elementsEqual(name)
        }
        guard entry.extent - entry.start == name.count else { return false }
        let key = JSONKey(base: base, span: StringSpan(start: entry.start, end: entry.extent, escaped: false))
        return name.count == 0 || key.equals(name.baseAddress!, name.count)
    }

    /// "byte 1234 (line 3, column 17)" for the value at tape index `index`.
    func location(_ index: Int) -> String {
        let position = entries[index].kind == .string ? entries[index].start - 1 : entries[index].start
        guard origin == 0 else { return "byte \(origin + position)" }
        var line = 1
        var lineStart = 0
        for i in 0..<min(position, count) where base[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return "byte \(position) (line \(line), column \(position - lineStart + 1))"
    }

    /// The value at `index` as a ``JSONValue``.
    func value(at index: Int) -> JSONValue {
        let entry = entries[index]
        switch entry.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(JSONNumber(uncheckedText: String(decoding: bytes(entry), as: UTF8.self)))
        case .string: return .string(string(entry))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(Int(entry.count))
            var i = index + 1
            while i < entry.extent {
                elements.append(value(at: i))
                i = next(after: i)
            }
            return .array(elements)
        case .object:
            var keys: [String] = []
            var values: [JSONValue] = []
            var i = index + 1
            while i < entry.extent {
                keys.append(string(entries[i]))
                values.append(value(at: i + 1))
                i = next(after: i + 1)
            }
            return .object(JSONObject(keys: keys, values: values))
        }
    }
}
