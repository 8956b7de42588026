import Foundation
import Testing

@testable import SatchelJSON

@Suite struct StringTableTests {
    /// Where a string's UTF-8 lives: equal for two strings only when they share storage.
    private static func storage(_ string: String) -> UnsafeRawPointer? {
        var string = string
        return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    private static func readStrings(_ json: String, table: inout JSONStringTable) throws -> [String] {
        try JSONReader.read(json) { reader in
            var strings: [String] = []
            try reader.readArray { strings.append(try $0.readString(sharing: &table)) }
            return strings
        }
    }

    @Test func repeatedLongStringsShareStorage() throws {
        var table = JSONStringTable()
        let strings = try Self.readStrings(
            #"["cmis:contentStreamMimeType", "short", "cmis:contentStreamMimeType", "short", "cmis:lastModifiedBy"]"#,
            table: &table)
        #expect(
            strings == [
                "cmis:contentStreamMimeType", "short", "cmis:contentStreamMimeType", "short", "cmis:lastModifiedBy",
            ])
        #expect(Self.storage(strings[0]) == Self.storage(strings[2]))
        #expect(Self.storage(strings[0]) != Self.storage(strings[4]))
        // Short strings live inline in the String value; they never enter the table.
        #expect(table.storedCount == 2)
        // The table outlives a document: a later one gets the same storage.
        let later = try Self.readStrings(#"["cmis:lastModifiedBy"]"#, table: &table)
        #expect(Self.storage(later[0]) == Self.storage(strings[4]))
    }

    @Test func escapedStringsAreDecodedNotShared() throws {
        var table = JSONStringTable()
        let strings = try Self.readStrings(
            #"["a long string with \"quotes\"", "a long string with \"quotes\""]"#, table: &table)
        #expect(strings == [#"a long string with "quotes""#, #"a long string with "quotes""#])
        #expect(table.storedCount == 0)
    }

    @Test func aFullTableStillReadsEveryString() throws {
        var table = JSONStringTable(capacity: 4)
        let words = (0..<50).map { "a string long enough #\($0)" }
        let json = "[" + (words + words).map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let strings = try Self.readStrings(json, table: &table)
        #expect(strings == words + words)
        #expect(table.storedCount == 4)
        #expect(Self.storage(strings[0]) == Self.storage(strings[50]))
        #expect(Self.storage(strings[10]) != Self.storage(strings[60]))
    }

    @Test func collidingHashesStillCompareBytes() throws {
        // Same length, same first bytes: only the content tells them apart.
        var table = JSONStringTable(capacity: 2)
        let strings = try Self.readStrings(
            #"["0123456789abcdefX", "0123456789abcdefY", "0123456789abcdefX", "0123456789abcdefY"]"#, table: &table)
        #expect(strings == ["0123456789abcdefX", "0123456789abcdefY", "0123456789abcdefX", "0123456789abcdefY"])
        #expect(Self.storage(strings[1]) == Self.storage(strings[3]))
    }

    @Test func aNonStringIsATypeMismatch() throws {
        var table = JSONStringTable()
        #expect(throws: JSONError.self) { try Self.readStrings("[1]", table: &table) }
    }
}

@Suite struct ValueSharingTests {
    @Test func objectsWithTheSameKeysShareKeysAndLookup() throws {
        // 20 keys: over the size at which an object builds a lookup table.
        let keys = (0..<20).map { "a key long enough to share #\($0)" }
        func object(_ value: Int, keys: [String]) -> String {
            "{" + keys.enumerated().map { "\"\($1)\": \(value * 100 + $0)" }.joined(separator: ",") + "}"
        }
        var reordered = keys
        reordered.swapAt(0, 19)
        var duplicated = keys
        duplicated[5] = keys[3]
        let json =
            "["
            + [
                object(1, keys: keys), object(2, keys: keys), object(3, keys: reordered),
                object(4, keys: duplicated), object(5, keys: keys),
            ].joined(separator: ",") + "]"
        let elements = try #require(try JSONValue(parsing: json).arrayValue)
        let objects = elements.compactMap(\.objectValue)
        #expect(objects.count == 5)
        for (index, object) in objects.enumerated() where index != 3 {
            #expect(object[keys[0]] == .number(JSONNumber((index + 1) * 100 + (index == 2 ? 19 : 0))))
            #expect(object[keys[19]] == .number(JSONNumber((index + 1) * 100 + (index == 2 ? 0 : 19))))
            #expect(object["missing"] == nil)
        }
        // A repeated key: the last one wins, whatever lookup the object shares.
        #expect(objects[3][keys[3]] == .number(JSONNumber(405)))
        #expect(objects[3][keys[5]] == nil)
        var first = objects[0].keys[7]
        var second = objects[4].keys[7]
        let same = first.withUTF8 { a in second.withUTF8 { b in a.baseAddress == b.baseAddress } }
        #expect(same)
    }
}
