import SatchelOData

/// What a property holds, resolved from its EDM type: how it is declared, read, written and compared.
indirect enum ValueKind: Hashable {
    case primitive(EDMPrimitiveType)
    case complex(String)
    case enumeration(swiftName: String, qualifiedName: String, isFlags: Bool)
    case collection(ValueKind)

    /// The Swift type (without the optional).
    var swiftType: String {
        switch self {
        case .primitive(let type): Self.swiftType(of: type)
        case .complex(let name): name
        case .enumeration(let name, _, _): name
        case .collection(let element): "[" + element.swiftType + "]"
        }
    }

    static func swiftType(of type: EDMPrimitiveType) -> String {
        switch type {
        case .binary: "Data"
        case .boolean: "Bool"
        case .byte: "UInt8"
        case .sbyte: "Int8"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .single: "Float"
        case .double: "Double"
        case .decimal: "Decimal"
        case .string, .date, .timeOfDay, .time, .duration: "String"
        case .guid: "UUID"
        case .dateTime, .dateTimeOffset: "Date"
        case .stream, .untyped, .geography, .geometry: "JSONValue"
        }
    }

    /// An expression reading one value from `reader` (a `JSONReader` variable, `$0` in closures).
    func read(_ reader: String) -> String {
        switch self {
        case .primitive(let type):
            switch type {
            case .binary: "\(reader).readODataBinary()"
            case .boolean: "\(reader).readBool()"
            case .byte, .sbyte, .int16, .int32: "\(reader).readInteger(\(Self.swiftType(of: type)).self)"
            case .int64: "\(reader).readODataInt64()"
            case .single: "Float(\(reader).readODataDouble())"
            case .double: "\(reader).readODataDouble()"
            case .decimal: "\(reader).readODataDecimal()"
            case .string, .date, .timeOfDay, .time, .duration: "\(reader).readString()"
            case .guid: "\(reader).readODataGUID()"
            case .dateTime, .dateTimeOffset: "\(reader).readODataDate()"
            case .stream, .untyped, .geography, .geometry: "\(reader).readValue()"
            }
        case .complex(let name), .enumeration(let name, _, _): "\(name)(from: &\(reader))"
        case .collection(let element): "\(reader).readODataCollection { try \(element.read("$0")) }"
        }
    }

    /// An `ODataValue` expression for `value` (V2 sends Int64 as a string).
    func odataValue(_ value: String, version: ODataVersion) -> String {
        switch self {
        case .primitive(let type):
            switch type {
            case .binary: ".binary(\(value))"
            case .boolean: ".bool(\(value))"
            case .byte, .sbyte, .int16, .int32: ".int(Int64(\(value)))"
            case .int64: version == .v2 ? ".json(.string(String(\(value))))" : ".int(\(value))"
            case .single: ".double(Double(\(value)))"
            case .double: ".double(\(value))"
            case .decimal: ".decimal(\(value))"
            case .string: ".string(\(value))"
            case .date: ".date(\(value))"
            case .timeOfDay: ".timeOfDay(\(value))"
            case .time, .duration: ".duration(\(value))"
            case .guid: ".guid(\(value))"
            case .dateTime: ".dateTime(\(value))"
            case .dateTimeOffset: ".dateTimeOffset(\(value), offsetMinutes: nil)"
            case .geography, .geometry: ".geo(\(value))"
            case .stream, .untyped: ".json(\(value))"
            }
        case .complex: ".complex(\(value).odataProperties)"
        case .enumeration(_, _, let isFlags): ".enumMember(\(value).\(isFlags ? "memberNames" : "rawValue"))"
        case .collection(let element): ".collection(\(value).map { \(element.odataValue("$0", version: version)) })"
        }
    }

    /// An `ODataLiteral` expression for `value`, or `nil` when values of this kind cannot be compared in a filter.
    func literal(_ value: String) -> String? {
        switch self {
        case .primitive(let type):
            switch type {
            case .binary: ".binary(\(value))"
            case .boolean: ".bool(\(value))"
            case .byte, .sbyte, .int16, .int32: ".int(Int(\(value)))"
            case .int64: ".int64(\(value))"
            case .single: ".single(\(value))"
            case .double: ".double(\(value))"
            case .decimal: ".decimal(\(value))"
            case .string: ".string(\(value))"
            case .date, .timeOfDay: ".raw(\(value))"
            case .time, .duration: ".duration(\(value))"
            case .guid: ".guid(\(value))"
            case .dateTime: ".dateTime(\(value))"
            case .dateTimeOffset: ".dateTimeOffset(\(value))"
            case .stream, .untyped, .geography, .geometry: nil
            }
        case .complex, .collection: nil
        case .enumeration(_, let qualifiedName, let isFlags):
            ".enumMember(type: \"\(qualifiedName)\", member: \(value).\(isFlags ? "memberNames" : "rawValue"))"
        }
    }
}
