import Foundation
import SatchelJSON

/// SplitMix64: a seeded generator so fuzz and chunking tests are reproducible.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Parses `text` and returns the error, or `nil` if it parsed.
func parseError(_ text: String, limits: JSONLimits = .default) -> JSONError? {
    parseError(Array(text.utf8), limits: limits)
}

func parseError(_ bytes: [UInt8], limits: JSONLimits = .default) -> JSONError? {
    do {
        _ = try JSONValue(parsing: bytes, limits: limits)
        return nil
    } catch let error as JSONError {
        return error
    } catch {
        fatalError("unexpected error type \(error)")
    }
}

/// Compares a Satchel value with what `JSONSerialization` made of the same text.
func sameValue(_ value: JSONValue, _ object: Any) -> Bool {
    switch value {
    case .null:
        return object is NSNull
    case .bool(let bool):
        guard let number = object as? NSNumber, isBoolean(number) else { return false }
        return number.boolValue == bool
    case .number(let number):
        guard let foundation = object as? NSNumber, !isBoolean(foundation) else {
            if let decimal = object as? Decimal { return number.decimalValue == decimal }
            return false
        }
        if let int = number.int64Value, foundation.int64Value == int, foundation.doubleValue == Double(int) {
            return true
        }
        guard let double = number.doubleValue else { return false }
        return double == foundation.doubleValue
            || abs(double - foundation.doubleValue) <= abs(double) * 1e-15
    case .string(let string):
        return (object as? String) == string
    case .array(let elements):
        guard let array = object as? [Any], array.count == elements.count else { return false }
        return zip(elements, array).allSatisfy { sameValue($0, $1) }
    case .object(let members):
        guard let dictionary = object as? [String: Any] else { return false }
        let unique = members.dictionary
        guard unique.count == dictionary.count else { return false }
        return unique.allSatisfy { key, value in dictionary[key].map { sameValue(value, $0) } ?? false }
    }
}

private func isBoolean(_ number: NSNumber) -> Bool {
    #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
    #else
        return String(describing: type(of: number)).contains("Boolean")
    #endif
}
