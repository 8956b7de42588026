import Foundation
import SatchelCMISCore
import SatchelRepository
import Testing

@Suite("Decoded property bag and ACL cache")
struct StoredDecodeCacheTests {
    static func bag(_ name: String) -> [UInt8] {
        StoredPropertyCodec.encode(Properties([CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])]))
    }

    @Test("a hit equals a fresh decode, and changed bytes for the same id are decoded again")
    func validatesBytes() throws {
        let cache = StoredDecodeCache(maxBags: 4)
        let first = try cache.properties(repositoryId: "r", id: "a", bag: Self.bag("one"))
        #expect(first["cmis:name"]?.firstValue == .string("one"))
        #expect(try cache.properties(repositoryId: "r", id: "a", bag: Self.bag("one")) == first)
        let changed = try cache.properties(repositoryId: "r", id: "a", bag: Self.bag("two"))
        #expect(changed["cmis:name"]?.firstValue == .string("two"))
        // Same id in another repository is another entry.
        let other = try cache.properties(repositoryId: "s", id: "a", bag: Self.bag("three"))
        #expect(other["cmis:name"]?.firstValue == .string("three"))
        #expect(try cache.properties(repositoryId: "r", id: "a", bag: Self.bag("two")) == changed)
    }

    @Test("the tables stay bounded")
    func bounded() throws {
        let cache = StoredDecodeCache(maxBags: 8, maxACLs: 4)
        for index in 0..<100 {
            let properties = try cache.properties(repositoryId: "r", id: "\(index)", bag: Self.bag("n\(index)"))
            #expect(properties["cmis:name"]?.firstValue == .string("n\(index)"))
            let acl = try cache.acl(#"[["user\#(index)",["cmis:read"],true]]"#)
            #expect(acl.first?.principalId == "user\(index)")
            #expect(cache.counts.bags <= 8 && cache.counts.acls <= 4, "\(cache.counts)")
        }
        #expect(cache.counts.bags > 0 && cache.counts.acls > 0)
    }

    @Test("a read of many rows uses bags already held but adds none")
    func scansDoNotEvict() throws {
        let cache = StoredDecodeCache(maxBags: 8)
        _ = try cache.properties(repositoryId: "r", id: "hot", bag: Self.bag("hot"))
        #expect(cache.counts.bags == 1)
        var scan = StoredBagReading(expectedRows: 1000)
        #expect(!scan.keepsDecoded)
        #expect(StoredBagReading(expectedRows: StoredDecodeCache.scanRows).keepsDecoded)
        #expect(!StoredBagReading(expectedRows: nil).keepsDecoded)
        for index in 0..<100 {
            let properties = try cache.properties(
                repositoryId: "r", id: "\(index)", bag: Self.bag("n\(index)"), reading: &scan)
            #expect(properties["cmis:name"]?.firstValue == .string("n\(index)"))
        }
        #expect(cache.counts.bags == 1)
        // The held bag is still used, and still checked against the bytes.
        let hot = try cache.properties(repositoryId: "r", id: "hot", bag: Self.bag("hot"), reading: &scan)
        #expect(hot["cmis:name"]?.firstValue == .string("hot"))
        let changed = try cache.properties(repositoryId: "r", id: "hot", bag: Self.bag("cold"), reading: &scan)
        #expect(changed["cmis:name"]?.firstValue == .string("cold"))
    }

    @Test("an unreadable bag or ACL throws and is not cached")
    func unreadable() throws {
        let cache = StoredDecodeCache()
        #expect(throws: StoredCodingError.self) {
            try cache.properties(repositoryId: "r", id: "x", bag: Array("[{".utf8))
        }
        #expect(throws: StoredCodingError.self) { try cache.acl("[[1,") }
        #expect(throws: StoredCodingError.self) { try cache.acl("[[1,") }
    }
}
