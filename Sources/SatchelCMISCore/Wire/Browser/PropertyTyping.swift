package import Foundation

/// How the succinct properties of one response get their types: the type definitions, looked up once per type,
/// and where each property sits in them, remembered from the object read before.
///
/// A page of children repeats one type and the same property ids in the same order a thousand times. Reading it
/// through one `PropertyTyping`, an object of the same types as the one before finds each property's definition by
/// comparing its id with the id at the same position before (equal keys of one document share storage, so that is
/// a pointer check), instead of looking the id up in every definition; its properties also share one id lookup.
///
/// It lives for one parse only (``BrowserParser/parse(_:_:_:)``), which is what lets it hold the caller's
/// non-escaping lookup.
package final class PropertyTyping {
    private let lookup: BrowserParser.TypeLookup
    /// The type ids (object type, then secondary types) the current definitions were looked up for.
    private var typeIds: [String] = []
    /// The current object's type definitions, in `typeIds` order (types the lookup does not know are left out).
    private var definitions: [TypeDefinition] = []
    /// The property ids met so far at each position, and for each a property of its definition (id, type,
    /// cardinality and names, no values), or nil when no definition has it.
    private var keys: [String] = []
    private var found: [CMISProperty?] = []
    /// The properties of the object read before, whose id lookup the next object may share.
    private var previous: Properties?

    init(_ lookup: @escaping BrowserParser.TypeLookup) {
        self.lookup = lookup
    }

    /// Starts an object of these types.
    func begin(typeIds: [String]) {
        guard typeIds != self.typeIds else { return }
        self.typeIds = typeIds
        definitions = typeIds.compactMap(lookup)
        keys.removeAll(keepingCapacity: true)
        found.removeAll(keepingCapacity: true)
        previous = nil
    }

    /// The property `key`, at `index` among the object's properties, as its definition describes it (with no
    /// values), or nil when none of the object's types defines it.
    ///
    /// A copy of this small value costs a few retains; a copy of the definition itself would cost one per field.
    func definedProperty(at index: Int, key: String) -> CMISProperty? {
        if index < keys.count, keys[index] == key { return found[index] }
        let result = definitions.propertyPosition(id: key).map {
            CMISProperty(definition: definitions[$0.type].propertyDefinitions[$0.position], values: [])
        }
        if index < keys.count {
            keys[index] = key
            found[index] = result
        } else if index == keys.count {
            keys.append(key)
            found.append(result)
        }
        return result
    }

    /// The object's properties, sharing the id lookup of the object before when their ids are the same.
    func finish(_ properties: [CMISProperty]) -> Properties {
        let result = Properties(properties, lookupLike: previous)
        previous = result
        return result
    }
}

extension BrowserParser {
    /// Parses a response body and runs `body` on it with the typing of this one response, over the caller's type
    /// lookup.
    package static func parse<T>(
        _ data: Data, _ lookup: TypeLookup, _ body: (BrowserJSON, PropertyTyping) throws -> T
    ) throws -> T {
        let json = try BrowserJSON.parse(data)
        return try withoutActuallyEscaping(lookup) { lookup in try body(json, PropertyTyping(lookup)) }
    }
}
