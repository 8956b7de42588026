import Foundation

/// An object's properties in the order the repository sent them, with lookup by property id.
///
/// ```swift
/// for property in object.properties { print(property.id, property.values) }
/// object.properties["cmis:objectId"]?.stringValue
/// ```
public struct Properties: Sendable, Hashable, RandomAccessCollection {
    /// The properties in order.
    public private(set) var all: [CMISProperty]
    private var positions: [String: Int]

    /// Properties in this order; a later property with the same id replaces an earlier one.
    public init(_ properties: [CMISProperty] = []) {
        // One hash per property: objects are built by the thousand when a page of children is read.
        var all: [CMISProperty] = []
        all.reserveCapacity(properties.count)
        var positions = [String: Int](minimumCapacity: properties.count)
        for property in properties {
            if let earlier = positions.updateValue(all.count, forKey: property.id) {
                positions[property.id] = earlier
                all[earlier] = property
            } else {
                all.append(property)
            }
        }
        self.all = all
        self.positions = positions
    }

    /// Properties in this order that share `template`'s lookup table when their ids are `template`'s ids in the
    /// same order, as they are for objects of one type read one after another.
    ///
    /// Reading a page of 1,000 objects then builds one lookup table instead of 1,000. Ids read through a
    /// `JSONStringTable` share storage, which makes the comparison a pointer check per property.
    ///
    /// ```swift
    /// var previous: Properties?
    /// for bag in bags {
    ///     let properties = Properties(decode(bag), lookupLike: previous)
    ///     previous = properties
    /// }
    /// ```
    public init(_ properties: [CMISProperty], lookupLike template: Properties?) {
        if let template, template.all.count == properties.count,
            properties.indices.allSatisfy({ properties[$0].id == template.all[$0].id })
        {
            // The template's ids are distinct (a Properties never holds two of one id), so these are too.
            self.init(all: properties, positions: template.positions)
        } else {
            self.init(properties)
        }
    }

    private init(all: [CMISProperty], positions: [String: Int]) {
        self.all = all
        self.positions = positions
    }

    /// The position of the first property (`0`).
    public var startIndex: Int { all.startIndex }
    /// The position after the last property.
    public var endIndex: Int { all.endIndex }
    /// The property at `position` in the order the repository sent them.
    public subscript(position: Int) -> CMISProperty { all[position] }

    /// The property with this id; setting `nil` removes it.
    public subscript(id: String) -> CMISProperty? {
        get { positions[id].map { all[$0] } }
        set {
            if let newValue {
                if let position = positions[id] {
                    all[position] = newValue
                } else {
                    positions[id] = all.count
                    all.append(newValue)
                }
            } else if let position = positions[id] {
                all.remove(at: position)
                positions = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.id, $0) })
            }
        }
    }

    /// The property with this query name (query results may name properties by alias or query name).
    public func property(queryName: String) -> CMISProperty? {
        all.first { $0.queryName == queryName } ?? self[queryName]
    }

    /// The property ids in order.
    public var ids: [String] { all.map(\.id) }

    /// Whether both hold equal properties in the same order.
    public static func == (lhs: Properties, rhs: Properties) -> Bool { lhs.all == rhs.all }
    /// Hashes the properties in order, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(all) }
}
