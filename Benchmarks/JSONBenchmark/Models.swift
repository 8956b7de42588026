import Foundation
import SatchelJSON

/// The entity every method decodes into: 10 properties of the usual OData types.
struct Product: Decodable, Equatable, Sendable {
    var id: Int64
    var name: String
    var description: String
    var price: Decimal
    var rating: Double
    var inStock: Bool
    var discontinued: Date?
    var releaseDate: Date
    var category: String
    var quantity: Int64

    enum CodingKeys: String, CodingKey {
        case id = "ID", name = "Name", description = "Description", price = "Price", rating = "Rating"
        case inStock = "InStock", discontinued = "Discontinued", releaseDate = "ReleaseDate", category = "Category"
        case quantity = "Quantity"
    }
}

/// What generated proxy code looks like for the pull decoder.
extension Product: JSONDecodable {
    init(from reader: inout JSONReader) throws {
        var id: Int64?
        var name: String?
        var description: String?
        var price: Decimal?
        var rating: Double?
        var inStock: Bool?
        var discontinued: Date?
        var releaseDate: Date?
        var category: String?
        var quantity: Int64?
        try reader.readObject { key, reader in
            switch key {
            case "ID": id = try reader.readInt64()
            case "Name": name = try reader.readString()
            case "Description": description = try reader.readString()
            case "Price": price = try reader.readDecimal()
            case "Rating": rating = try reader.readDouble()
            case "InStock": inStock = try reader.readBool()
            case "Discontinued": discontinued = try reader.readNil() ? nil : reader.readISO8601Date()
            case "ReleaseDate": releaseDate = try reader.readISO8601Date()
            case "Category": category = try reader.readString()
            case "Quantity": quantity = try reader.readInt64()
            default: break
            }
        }
        self.id = try reader.required(id, "ID")
        self.name = try reader.required(name, "Name")
        self.description = try reader.required(description, "Description")
        self.price = try reader.required(price, "Price")
        self.rating = try reader.required(rating, "Rating")
        self.inStock = try reader.required(inStock, "InStock")
        self.discontinued = discontinued
        self.releaseDate = try reader.required(releaseDate, "ReleaseDate")
        self.category = try reader.required(category, "Category")
        self.quantity = try reader.required(quantity, "Quantity")
    }
}

struct ProductPage: Decodable, Sendable {
    var context: String
    var value: [Product]
    var nextLink: String?

    enum CodingKeys: String, CodingKey {
        case context = "@odata.context", value, nextLink = "@odata.nextLink"
    }
}

extension ProductPage: JSONDecodable {
    init(from reader: inout JSONReader) throws {
        var context: String?
        var value: [Product] = []
        var nextLink: String?
        try reader.readObject { key, reader in
            switch key {
            case "@odata.context": context = try reader.readString()
            case "value": value = try reader.readArray(of: Product.self)
            case "@odata.nextLink": nextLink = try reader.readString()
            default: break
            }
        }
        self.context = try reader.required(context, "@odata.context")
        self.value = value
        self.nextLink = nextLink
    }
}
