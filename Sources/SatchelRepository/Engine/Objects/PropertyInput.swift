import Foundation
import SatchelText
import SatchelCMISCore

/// What a write is doing, for the updatability rules.
enum PropertyWrite: Sendable {
    case create
    case update(isPrivateWorkingCopy: Bool)
    case checkIn
}

extension CMISRepository {
    /// The type named by `cmis:objectTypeId` (or `fallback`), which must derive from `base`.
    func inputType(
        _ properties: Properties, fallback: BaseTypeId?, expected: Set<BaseTypeId>
    ) throws
        -> TypeDefinition
    {
        let typeId = properties["cmis:objectTypeId"]?.stringValue ?? fallback?.rawValue
        guard let typeId else {
            throw CMISError(.constraint, "cmis:objectTypeId is required to create this object.")
        }
        guard let type = types.type(typeId) else {
            throw CMISError(.constraint, "There is no object type '\(typeId)'.")
        }
        guard expected.contains(type.baseTypeId) else {
            let names = expected.map(\.rawValue).sorted().joined(separator: " or ")
            throw CMISError(
                .constraint, "Type '\(typeId)' is a \(type.baseTypeId.rawValue) type; this call creates \(names).")
        }
        guard type.creatable == true else {
            throw CMISError(.constraint, "Objects of type '\(typeId)' cannot be created.")
        }
        return type
    }

    /// Checks input properties against the type and returns the values to store, by property id, coerced to the
    /// defined types. Read-only system properties are ignored (clients often echo them back).
    func validate(
        _ input: Properties, type: TypeDefinition, _ write: PropertyWrite
    ) throws
        -> [String: [PropertyValue]]
    {
        var result: [String: [PropertyValue]] = [:]
        for property in input {
            guard let definition = types.definition(typeId: type.id, propertyId: property.id) else {
                throw CMISError(
                    .constraint, "Type '\(type.id)' has no property '\(property.id)'.")
            }
            switch definition.updatability {
            case .readonly:
                continue
            case .oncreate:
                if case .create = write { break }
                if property.id == "cmis:objectTypeId", property.values.map(\.stringValue) == [type.id] { continue }
                if property.values.isEmpty { continue }
                throw CMISError(.constraint, "\(property.id) can only be set when the object is created.")
            case .whencheckedout:
                switch write {
                case .update(let isPrivateWorkingCopy) where !isPrivateWorkingCopy:
                    throw CMISError(.constraint, "\(property.id) can only be changed on a private working copy.")
                default: break
                }
            case .readwrite:
                break
            }
            if property.id == "cmis:secondaryObjectTypeIds" {
                for id in property.values.compactMap(\.stringValue) {
                    guard let secondary = types.type(id), secondary.baseTypeId == .secondary else {
                        throw CMISError(.constraint, "There is no secondary type '\(id)'.")
                    }
                }
            }
            result[property.id] = try coerce(property.values, to: definition)
        }
        return result
    }

    /// Values converted to the definition's type: Browser-binding strings become integers, dates, booleans…
    func coerce(_ values: [PropertyValue], to definition: PropertyDefinition) throws -> [PropertyValue] {
        if definition.cardinality == .single && values.count > 1 {
            throw CMISError(
                .invalidArgument, "\(definition.id) holds one value; \(values.count) were given.")
        }
        guard values.count <= configuration.maximumValuesPerProperty else {
            throw CMISError(
                .constraint,
                "\(definition.id) may hold at most \(configuration.maximumValuesPerProperty) values; "
                    + "\(values.count) were given.")
        }
        return try values.map { value in
            guard let converted = Self.convert(value, to: definition.propertyType) else {
                throw CMISError(
                    .invalidArgument,
                    "\(definition.id) is of type \(definition.propertyType.rawValue); "
                        + "\(Self.describe(value)) is not.")
            }
            if let text = converted.stringValue {
                // Lengths count UTF-8 bytes: a single character may be made of any number of combining marks.
                let isName = definition.id == "cmis:name"
                let limit = isName ? configuration.maximumNameLength : configuration.maximumStringLength
                if text.utf8.count > limit {
                    let code: CMISError.Code = isName ? .nameConstraintViolation : .constraint
                    throw CMISError(code, "\(definition.id) may be at most \(limit) bytes long (UTF-8).")
                }
                if isName { return .string(Self.normalizedName(text)) }
            }
            return converted
        }
    }

    /// A short description of a value for error messages (never the whole value: it may be huge).
    static func describe(_ value: PropertyValue) -> String {
        let text: String
        switch value {
        case .string(let string), .id(let string), .uri(let string), .html(let string): text = string
        case .boolean(let bool): text = String(bool)
        case .integer(let integer): text = String(integer)
        case .decimal(let decimal): text = "\(decimal)"
        case .datetime(let date): text = "\(date)"
        }
        let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "the \(value.type.rawValue) '\(short)'"
    }

    static func convert(_ value: PropertyValue, to type: PropertyType) -> PropertyValue? {
        if value.type == type { return value }
        switch type {
        case .string:
            return value.stringValue.map(PropertyValue.string)
        case .id:
            return value.stringValue.map(PropertyValue.id)
        case .uri:
            return value.stringValue.map(PropertyValue.uri)
        case .html:
            return value.stringValue.map(PropertyValue.html)
        case .boolean:
            switch value.stringValue?.lowercased() {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: return nil
            }
        case .integer:
            if let text = value.stringValue {
                return Int64(text.trimmingCharacters(in: .whitespaces)).map(PropertyValue.integer)
            }
            if case .decimal(let decimal) = value { return Int64(decimal.description).map(PropertyValue.integer) }
            return nil
        case .decimal:
            if case .integer(let integer) = value { return .decimal(Decimal(integer)) }
            if let text = value.stringValue?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
                text.allSatisfy({ "0123456789.-+eE".contains($0) }),
                let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            {
                return .decimal(decimal)
            }
            return nil
        case .datetime:
            if case .integer(let millis) = value {
                return .datetime(Date(timeIntervalSince1970: Double(millis) / 1000))
            }
            guard let text = value.stringValue?.trimmingCharacters(in: .whitespaces) else { return nil }
            if let millis = Int64(text) { return .datetime(Date(timeIntervalSince1970: Double(millis) / 1000)) }
            return parseDate(text).map(PropertyValue.datetime)
        }
    }

    /// ISO 8601 with or without fractional seconds.
    static func parseDate(_ text: String) -> Date? { ISO8601Timestamp.date(from: text) }

    /// Checks a `cmis:name`.
    func checkName(_ name: String) throws {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CMISError(.invalidArgument, "cmis:name must not be empty.")
        }
        if name.contains("/") {
            throw CMISError(.nameConstraintViolation, "cmis:name must not contain '/': '\(Self.shorten(name))'.")
        }
        if name == "." || name == ".." {
            throw CMISError(.nameConstraintViolation, "'\(name)' is not a valid name.")
        }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            throw CMISError(.nameConstraintViolation, "cmis:name must not contain control characters.")
        }
        if name.utf8.count > configuration.maximumNameLength {
            throw CMISError(
                .nameConstraintViolation,
                "cmis:name may be at most \(configuration.maximumNameLength) bytes long (UTF-8).")
        }
    }

    /// A name in Unicode normalization form C: how names are stored and compared, so `é` typed as one code point
    /// and as `e` plus a combining accent are the same name in a folder (macOS file names arrive decomposed).
    static func normalizedName(_ name: String) -> String {
        name.utf8.allSatisfy { $0 < 0x80 } ? name : name.precomposedStringWithCanonicalMapping  // ASCII is NFC
    }

    static func shorten(_ text: String) -> String { text.count > 60 ? String(text.prefix(60)) + "…" : text }

    /// Throws `constraint` when a required property has no value.
    func checkRequired(_ values: [String: [PropertyValue]], type: TypeDefinition, computed: Set<String>) throws {
        for definition in type.propertyDefinitions
        where definition.required == true && definition.updatability != .readonly
            && !computed.contains(definition.id)
        {
            if values[definition.id]?.isEmpty ?? true {
                throw CMISError(.constraint, "\(definition.id) is required for type '\(type.id)'.")
            }
        }
    }
}
