import Foundation
import SatchelOData
import SatchelOfflineServer
import SatchelRepository
import Testing

/// Entities become rows whose hash changes exactly when the entity does.
@Suite("Offline rows from entities")
struct OfflineRowCodecTests {
    static func product(_ properties: KeyValuePairs<String, ODataValue>, etag: String? = nil) -> ODataEntity {
        var entity = ODataEntity(type: "Shop.Product")
        for (name, value) in properties { entity[name] = value }
        entity.etag = etag
        return entity
    }

    @Test("the same entity written in another order is the same row; a changed value or ETag is another")
    func hashes() throws {
        let codec = OfflineRowCodec(keyProperties: ["ID"])
        let one = try codec.row(
            for: Self.product(["ID": .int(7), "Name": "Chai", "Price": .decimal(Decimal(string: "18.5")!)]))
        let reordered = try codec.row(
            for: Self.product(["Price": .decimal(Decimal(string: "18.5")!), "Name": "Chai", "ID": .int(7)]))
        #expect(one == reordered)
        #expect(one.key == "(7)")
        #expect(String(decoding: one.body, as: UTF8.self).contains(#""Name":"Chai""#))
        let renamed = try codec.row(for: Self.product(["ID": .int(7), "Name": "Chang", "Price": .decimal(18.5)]))
        #expect(renamed.key == one.key && renamed.hash != one.hash)
        let tagged = try codec.row(
            for: Self.product(
                ["ID": .int(7), "Name": "Chai", "Price": .decimal(Decimal(string: "18.5")!)], etag: "W/\"2\""))
        #expect(tagged.hash != one.hash, "an ETag change is a change")
        #expect(one.hash.count == 32)
    }

    @Test("keys: text quoted, composite keys named, a missing key refused")
    func keys() throws {
        #expect(try OfflineRowCodec(keyProperties: ["Code"]).key(of: Self.product(["Code": "HT-1'0"])) == "('HT-1''0')")
        let composite = OfflineRowCodec(keyProperties: ["Order", "Item"])
        #expect(try composite.key(of: Self.product(["Item": .int(2), "Order": .int(10)])) == "(Order=10,Item=2)")
        #expect(throws: OfflineRowError.self) {
            _ = try composite.key(of: Self.product(["Order": .int(10)]))
        }
        #expect(throws: OfflineRowError.self) {
            _ = try composite.row(for: Self.product(["Order": .int(10), "Item": .null]))
        }
    }
}
