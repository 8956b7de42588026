import Foundation
import SatchelJSON
import SatchelOData

// Written by hand in the shape SatchelODataGen emits for an entity type (pull decoding only), so that the
// benchmark measures what generated proxies will run. Swap this file for the generator's output when it lands.

/// `Bench.Product`.
struct Product: Sendable, Hashable {
    var ID: Int32
    var Name: String
    var Description: String
    var Price: Decimal
    var Quantity: Int64
    var InStock: Bool
    var ReleaseDate: String
    var ModifiedAt: Date
    var ProductGuid: UUID
    var Discontinued: Date?
}

extension Product: JSONDecodable {
    /// Reads the value straight from JSON (V2 and V4 shapes); unknown members are skipped.
    init(from reader: inout JSONReader) throws {
        var ID: Int32?
        var Name: String?
        var Description: String?
        var Price: Decimal?
        var Quantity: Int64?
        var InStock: Bool?
        var ReleaseDate: String?
        var ModifiedAt: Date?
        var ProductGuid: UUID?
        var Discontinued: Date?
        try reader.readObject { key, reader in
            switch key {
            case "ID": ID = try reader.readInteger(Int32.self)
            case "Name": Name = try reader.readString()
            case "Description": Description = try reader.readString()
            case "Price": Price = try reader.readODataDecimal()
            case "Quantity": Quantity = try reader.readODataInt64()
            case "InStock": InStock = try reader.readBool()
            case "ReleaseDate": ReleaseDate = try reader.readString()
            case "ModifiedAt": ModifiedAt = try reader.readODataDate()
            case "ProductGuid": ProductGuid = try reader.readODataGUID()
            case "Discontinued": Discontinued = try reader.readNil() ? nil : reader.readODataDate()
            default: break
            }
        }
        self.ID = try reader.required(ID, "ID")
        self.Name = try reader.required(Name, "Name")
        self.Description = try reader.required(Description, "Description")
        self.Price = try reader.required(Price, "Price")
        self.Quantity = try reader.required(Quantity, "Quantity")
        self.InStock = try reader.required(InStock, "InStock")
        self.ReleaseDate = try reader.required(ReleaseDate, "ReleaseDate")
        self.ModifiedAt = try reader.required(ModifiedAt, "ModifiedAt")
        self.ProductGuid = try reader.required(ProductGuid, "ProductGuid")
        self.Discontinued = Discontinued
    }
}
