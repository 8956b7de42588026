import Foundation
import SatchelOData
import Testing

@testable import SatchelOfflineServer

/// A removed entity that arrives with its id only names the same row as the entity did: the key in its id is
/// percent-decoded and read as V4 or V2 literals, then written as the codec writes keys.
@Suite("Offline rows: keys of removed entities")
struct OfflineRemovedKeyTests {
    static func removed(_ id: String) -> ODataEntity {
        var entity = ODataEntity()
        entity.id = id
        entity.removed = ODataEntity.Removal(reason: "deleted")
        return entity
    }

    @Test(
        "ids name the rows their entities were",
        arguments: [
            (
                "https://h/sap/ProductSet('HT%2D1000')", ["ProductID"], ODataVersion.v2,
                ["ProductID": ODataValue.string("HT-1000")]
            ),
            ("https://h/odata/Products(7)", ["ID"], .v4, ["ID": .int(7)]),
            ("https://h/sap/OrderSet(3L)", ["ID"], .v2, ["ID": .int(3)]),
            (
                "Items(OrderID=1,LineNumber=2)", ["OrderID", "LineNumber"], .v4,
                ["OrderID": .int(1), "LineNumber": .int(2)]
            ),
        ])
    func ids(id: String, keys: [String], version: ODataVersion, values: [String: ODataValue]) throws {
        let codec = OfflineRowCodec(keyProperties: keys, version: version)
        var entity = ODataEntity()
        for (name, value) in values { entity[name] = value }
        #expect(try OfflineRefresher.removedKey(Self.removed(id), codec: codec) == (try codec.key(of: entity)))
    }

    @Test("an id without a key is refused, never a key that names no row")
    func refused() {
        #expect(throws: OfflineRowError.self) {
            _ = try OfflineRefresher.removedKey(
                Self.removed("https://h/odata/Products"), codec: OfflineRowCodec(keyProperties: ["ID"]))
        }
    }

    @Test("a back-end delta: the last word on a key wins (removed then created again; changed twice)")
    func lastWordWins() throws {
        let codec = OfflineRowCodec(keyProperties: ["ID"])
        func product(_ id: Int64, _ name: String) -> ODataEntity {
            ODataEntity(properties: ["ID": .int(id), "Name": .string(name)])
        }
        var changes = OfflineRefresher.DeltaChanges()
        for entity in [
            product(1, "old"), Self.removed("Products(2)"), product(2, "again"), product(1, "new"),
            product(3, "gone soon"), Self.removed("Products(3)"),
        ] {
            try changes.add(entity, codec: codec)
        }
        #expect(changes.upserts.keys.sorted() == ["(1)", "(2)"])
        #expect(changes.upserts["(1)"] == (try codec.row(for: product(1, "new"))))
        #expect(changes.removed == ["(3)"])
    }
}
