import Foundation
public import SatchelJSON

extension ODataPayloadReader {
    /// One property value, typed by `type` when given (primitive, enum, complex, type definition, collection).
    public func value(from json: JSONValue, type: CSDLTypeReference?, at location: String = "$") throws -> ODataValue {
        if json.isNull { return .null }
        guard let type else { return untyped(json) }
        if type.isCollection {
            // V2 wraps collections in {"results": […]}.
            guard let array = json.arrayValue ?? json["results"]?.arrayValue else {
                throw Self.shape("expected a collection of \(type.name), found \(json.kind)", at: location)
            }
            var element = type
            element.isCollection = false
            return .collection(
                try array.enumerated().map { try value(from: $1, type: element, at: location + "[\($0)]") })
        }
        if let primitive = type.primitive { return try self.primitive(json, primitive, at: location) }
        if let metadata {
            if let complex = metadata.complexType(named: type.name) {
                return .complex(try complexValue(json, complex, at: location))
            }
            if metadata.enumType(named: type.name) != nil {
                guard let text = json.stringValue ?? json.numberValue?.text else {
                    throw Self.shape("expected an enum value of \(type.name), found \(json.kind)", at: location)
                }
                return .enumMember(text)
            }
            if let definition = metadata.typeDefinition(named: type.name) {
                return try value(from: json, type: definition.underlyingType, at: location)
            }
            if let entityType = metadata.entityType(named: type.name) {
                return .entity(try entity(from: json, type: entityType, at: location))
            }
        }
        return untyped(json)
    }

    private func complexValue(_ json: JSONValue, _ type: CSDLComplexType, at location: String) throws -> ODataProperties
    {
        guard let object = json.objectValue else {
            throw Self.shape("expected a \(type.qualifiedName) object, found \(json.kind)", at: location)
        }
        var actual = type
        if let name = object["@odata.type"]?.stringValue ?? object["__metadata"]?["type"]?.stringValue,
            let derived = metadata?.complexType(named: name.hasPrefix("#") ? String(name.dropFirst()) : name)
        {
            actual = derived
        }
        let properties = metadata?.allProperties(of: actual) ?? actual.properties
        var result = ODataProperties()
        for (key, value) in object where key != "__metadata" && !key.utf8.contains(UInt8(ascii: "@")) {
            let declared = properties.first { $0.name == key }
            result[key] = try self.value(from: value, type: declared?.type, at: location + "." + key)
        }
        return result
    }

    /// A value read without a type: V2 `/Date(…)/` strings become dates, nested V2 entities become entities,
    /// everything else stays JSON.
    func untyped(_ json: JSONValue) -> ODataValue {
        switch json {
        case .string(let text):
            if version == .v2, let parsed = ODataDateFormat.parseV2JSONDate(text) {
                return parsed.offsetMinutes == nil
                    ? .dateTime(parsed.date) : .dateTimeOffset(parsed.date, offsetMinutes: parsed.offsetMinutes)
            }
            return .string(text)
        case .bool(let value): return .bool(value)
        case .number(let number):
            if let int = number.int64Value { return .int(int) }
            if let double = number.doubleValue { return .double(double) }
            return .json(json)
        case .object(let object):
            if version == .v2, object["__metadata"] != nil, let entity = try? entity(from: json) {
                return .entity(entity)
            }
            if version == .v2, let results = object["results"]?.arrayValue {
                if results.allSatisfy({ $0["__metadata"] != nil }) {
                    return .entities(results.compactMap { try? entity(from: $0) })
                }
                return .collection(results.map(untyped))
            }
            return .json(json)
        case .array(let values): return .collection(values.map(untyped))
        case .null: return .null
        }
    }

    private func primitive(_ json: JSONValue, _ type: EDMPrimitiveType, at location: String) throws -> ODataValue {
        func fail() -> ODataError {
            Self.shape("\(json) is not a valid \(type.qualifiedName)", at: location)
        }
        let text = json.stringValue
        switch type {
        case .boolean:
            if let value = json.boolValue { return .bool(value) }
            if text == "true" || text == "false" { return .bool(text == "true") }
            throw fail()
        case .byte, .sbyte, .int16, .int32, .int64:
            if let value = json.int64Value ?? text.flatMap({ Int64($0) }) { return .int(value) }
            throw fail()
        case .decimal:
            // Exact from the lexeme: V2 (and V4 with IEEE754Compatible) sends strings, V4 numbers.
            if let number = json.numberValue, let value = try? number.decimal() { return .decimal(value) }
            if let text, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                return .decimal(value)
            }
            throw fail()
        case .double, .single:
            if let value = json.doubleValue { return .double(value) }
            switch text {
            case "INF": return .double(.infinity)
            case "-INF": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default: if let text, let value = Double(text) { return .double(value) }
            }
            throw fail()
        case .string: if let text { return .string(text) }
        case .guid: if let text, let uuid = ODataGUID.parse(text) { return .guid(uuid) }
        case .date: if let text { return .date(text) }
        case .dateTime, .dateTimeOffset:
            guard let text else { throw fail() }
            if let parsed = ODataDateFormat.parseV2JSONDate(text) {
                return type == .dateTime
                    ? .dateTime(parsed.date) : .dateTimeOffset(parsed.date, offsetMinutes: parsed.offsetMinutes)
            }
            if let date = ODataDateFormat.parseISO8601(text) {
                return type == .dateTime ? .dateTime(date) : .dateTimeOffset(date, offsetMinutes: Self.offset(of: text))
            }
        case .time, .timeOfDay: if let text { return .timeOfDay(text) }
        case .duration: if let text { return .duration(text) }
        case .binary:
            if let text, let data = ODataBinary.decode(text) { return .binary(data) }
        case .geography, .geometry: return .geo(json)
        case .stream, .untyped: return .json(json)
        }
        throw fail()
    }

    /// The offset of an ISO 8601 date-time in minutes (`Z` is 0), if it has one.
    static func offset(of text: String) -> Int? {
        guard let t = text.firstIndex(of: "T") else { return nil }
        let time = text[t...]
        if time.hasSuffix("Z") || time.hasSuffix("z") { return 0 }
        guard let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let digits = time[time.index(after: sign)...].filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else {
            return nil
        }
        return (hours * 60 + minutes) * (time[sign] == "-" ? -1 : 1)
    }
}
