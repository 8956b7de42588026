/// A JSON object: members in document order, with lookup by key.
///
/// Duplicate keys are kept in order; lookup returns the last one, as JavaScript and most parsers do.
///
/// ```swift
/// var object: JSONObject = ["Name": "Pen", "Price": 1.5]
/// object["Name"]             // .string("Pen")
/// object["Stock"] = 12
/// object.keys                // ["Name", "Price", "Stock"]
/// ```
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// Member keys in document order.
    public private(set) var keys: [String]
    /// Member values in document order.
    public private(set) var values: [JSONValue]
    /// Key → last position, built for larger objects where a linear scan would cost.
    private var lookup: [String: Int]?

    private static let indexThreshold = 16

    /// An empty object.
    public init() {
        keys = []
        values = []
    }

    /// An object with these members, in this order.
    public init(keys: [String], values: [JSONValue]) {
        precondition(keys.count == values.count, "JSONObject needs one value per key")
        self.keys = keys
        self.values = values
        buildLookup()
    }

    /// An object with these members, in this order.
    public init(_ members: [(key: String, value: JSONValue)]) {
        self.init(keys: members.map(\.key), values: members.map(\.value))
    }

    /// An object with the literal's members, in the order written (duplicate keys are kept).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(keys: elements.map(\.0), values: elements.map(\.1))
    }

    /// An object with these members whose keys are `shape`'s keys, in the same order, sharing its lookup.
    init(keys: [String], values: [JSONValue], shape: JSONObject.Shape) {
        self.keys = keys
        self.values = values
        self.lookup = shape.lookup
    }

    /// The keys of an object and the lookup built for them, kept while a document is read so that objects with
    /// the same keys in the same order (a page of entities) build the lookup once.
    struct Shape: Sendable {
        let keys: [String]
        let lookup: [String: Int]?
    }

    /// This object's keys and lookup.
    var shape: Shape { Shape(keys: keys, lookup: lookup) }

    /// Whether an object with this many keys has a lookup table.
    static func hasLookup(keyCount: Int) -> Bool { keyCount > indexThreshold }

    private mutating func buildLookup() {
        guard keys.count > JSONObject.indexThreshold else {
            lookup = nil
            return
        }
        var table = [String: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() { table[key] = position }
        lookup = table
    }

    /// Position of the (last) member named `key`.
    public func index(forKey key: String) -> Int? {
        if let lookup { return lookup[key] }
        return keys.lastIndex(of: key)
    }

    /// The value of the member named `key`; setting `nil` removes every member with that key.
    public subscript(key: String) -> JSONValue? {
        get { index(forKey: key).map { values[$0] } }
        set {
            if let newValue {
                if let position = index(forKey: key) {
                    values[position] = newValue
                } else {
                    keys.append(key)
                    values.append(newValue)
                    if lookup != nil || keys.count > JSONObject.indexThreshold { lookup = nil; buildLookup() }
                }
            } else {
                while let position = keys.lastIndex(of: key) {
                    keys.remove(at: position)
                    values.remove(at: position)
                }
                buildLookup()
            }
        }
    }

    /// Appends a member, even if one with the same key exists.
    public mutating func append(key: String, value: JSONValue) {
        keys.append(key)
        values.append(value)
        if lookup != nil {
            lookup?[key] = keys.count - 1
        } else if keys.count > JSONObject.indexThreshold {
            buildLookup()
        }
    }

    /// 0: members are indexed by position.
    public var startIndex: Int { 0 }
    /// The number of members, duplicates included.
    public var endIndex: Int { keys.count }
    /// The member at `position` (0-based, in document order).
    public subscript(position: Int) -> (key: String, value: JSONValue) { (keys[position], values[position]) }

    /// The members as a dictionary (the last of duplicate keys wins; order is lost).
    public var dictionary: [String: JSONValue] {
        Dictionary(zip(keys, values), uniquingKeysWith: { _, last in last })
    }

    /// Whether both have the same members in the same order (`{"a":1,"b":2}` and `{"b":2,"a":1}` differ).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    /// Hashes the keys and values in order, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}
