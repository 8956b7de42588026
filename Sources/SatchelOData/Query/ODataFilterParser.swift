import Foundation

extension ODataExpression {
    /// Parses `$filter` (or `$orderby` item) text into the tree the builder makes, in the syntax of `version`: V2
    /// literal suffixes and prefixes (`12L`, `1.5M`, `datetime'…'`, `guid'…'`, `X'…'`, `substringof(part,text)`)
    /// and V4 forms (bare dates, times, GUIDs, `duration'…'`, `binary'…'`, `Ns.Enum'Member'`, `in`, `any`/`all`).
    /// Errors are ``ODataError/Code/invalidArgument`` with the character offset in `location`.
    ///
    /// ```swift
    /// let filter = try ODataExpression.parse("Price gt 10 and startswith(Name,'Ch')", version: .v4)
    /// try filter.text(for: .v4)   // Price gt 10 and startswith(Name,'Ch')
    /// ```
    public static func parse(_ text: String, version: ODataVersion) throws(ODataError) -> ODataExpression {
        guard text.utf8.count <= 65_536 else {
            throw ODataError(.invalidArgument, "cannot read the filter: longer than 64 KiB")
        }
        var parser = FilterParser(text: text, version: version)
        let expression = try parser.expression(depth: 0)
        parser.skipSpaces()
        guard parser.atEnd else { throw parser.failure("unexpected text") }
        return expression
    }
}

/// A recursive-descent parser over the filter's UTF-8 bytes, precedence as in ``ODataOperator``.
private struct FilterParser {
    let bytes: [UInt8]
    let text: String
    let version: ODataVersion
    var index = 0
    /// Nesting bound: hostile input cannot exhaust the stack.
    static let maximumDepth = 64

    init(text: String, version: ODataVersion) {
        self.text = text
        bytes = Array(text.utf8)
        self.version = version
    }

    var atEnd: Bool { index >= bytes.count }

    func failure(_ message: String) -> ODataError {
        let near = String(decoding: bytes[min(index, bytes.count)..<min(index + 20, bytes.count)], as: UTF8.self)
        return ODataError(
            .invalidArgument, "cannot read the filter: \(message)" + (near.isEmpty ? " at its end" : " near '\(near)'"),
            location: "offset \(index)")
    }

    mutating func skipSpaces() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A
                || bytes[index] == 0x0D
        {
            index += 1
        }
    }

    // MARK: Operators by precedence

    mutating func expression(depth: Int) throws(ODataError) -> ODataExpression {
        guard depth < Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
        return try binary(level: 1, depth: depth)
    }

    static let levels: [Int: [ODataOperator]] = [
        1: [.or], 2: [.and], 3: [.eq, .ne], 4: [.gt, .ge, .lt, .le, .has], 5: [.add, .sub], 6: [.mul, .div, .mod],
    ]

    mutating func binary(level: Int, depth: Int) throws(ODataError) -> ODataExpression {
        guard level <= 6 else { return try unary(depth: depth) }
        var left = try binary(level: level + 1, depth: depth)
        while true {
            let start = index
            skipSpaces()
            if level == 4, let list = try inList(depth: depth) {
                // V2 writes `in` as an or-chain that repeats its operand: over another `in`, that doubles per level.
                if version == .v2, left.containsIn {
                    index = start
                    skipSpaces()
                    throw failure("in over another in cannot be written for OData V2")
                }
                left = .isIn(left, list)
                continue
            }
            let operatorStart = index
            guard let op = operatorWord(in: Self.levels[level] ?? []) else {
                index = start
                return left
            }
            if op == .has, version == .v2 {
                index = operatorStart
                throw failure("has is an OData V4 operator")
            }
            let right = try binary(level: level + 1, depth: depth + 1)
            left = .binary(op, left, right)
        }
    }

    /// ` in (literal, …)` after an operand (V4).
    mutating func inList(depth: Int) throws(ODataError) -> [ODataLiteral]? {
        guard word("in") else { return nil }
        skipSpaces()
        guard consume(0x28) else { throw failure("expected '(' after in") }
        var values: [ODataLiteral] = []
        repeat {
            skipSpaces()
            guard case .literal(let value) = try primary(depth: depth + 1) else {
                throw failure("in takes literals")
            }
            values.append(value)
            skipSpaces()
        } while consume(0x2C)
        guard consume(0x29) else { throw failure("expected ')'") }
        return values
    }

    /// An operator word from `candidates` followed by a space, consumed.
    mutating func operatorWord(in candidates: [ODataOperator]) -> ODataOperator? {
        for candidate in candidates where word(candidate.rawValue) {
            return candidate
        }
        return nil
    }

    /// Consumes `name` when it stands as a word (followed by a space, a parenthesis or the end).
    mutating func word(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return false }
        let after = index + utf8.count
        guard
            after == bytes.count || bytes[after] == 0x20 || bytes[after] == 0x28 || bytes[after] == 0x09
                || bytes[after] == 0x0A || bytes[after] == 0x0D
        else {
            return false
        }
        index = after
        return true
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func unary(depth: Int) throws(ODataError) -> ODataExpression {
        skipSpaces()
        guard depth < Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
        let start = index
        if word("not") {
            skipSpaces()
            if index < bytes.count { return .not(try unary(depth: depth + 1)) }
            index = start  // `not` with nothing after it is a name, as it is before `)`
        }
        if index < bytes.count, bytes[index] == 0x2D, index + 1 < bytes.count, !isDigit(bytes[index + 1]),
            !negativeInfinityAhead  // -INF is a literal
        {
            index += 1
            return .negate(try unary(depth: depth + 1))
        }
        return try primary(depth: depth)
    }

    /// `-INF` as a whole word (not the start of `-Income`).
    var negativeInfinityAhead: Bool {
        guard index + 4 <= bytes.count, Array(bytes[index..<index + 4]) == Array("-INF".utf8) else { return false }
        return index + 4 == bytes.count || !(isNameStart(bytes[index + 4]) || isDigit(bytes[index + 4]))
    }

    // MARK: Operands

    mutating func primary(depth: Int) throws(ODataError) -> ODataExpression {
        skipSpaces()
        guard index < bytes.count else { throw failure("expected a value") }
        let byte = bytes[index]
        if byte == 0x28 {
            index += 1
            let inner = try expression(depth: depth + 1)
            skipSpaces()
            guard consume(0x29) else { throw failure("expected ')'") }
            return inner
        }
        if byte == 0x27 { return .literal(.string(try quoted())) }
        if isDigit(byte) || byte == 0x2D { return .literal(try number()) }
        guard isNameStart(byte) else { throw failure("unexpected character") }
        let name = identifier()
        // Typed literals: prefix'…'
        if index < bytes.count, bytes[index] == 0x27 {
            return .literal(try typedLiteral(prefix: name))
        }
        switch name {
        case "null": return .literal(.null)
        case "true": return .literal(.bool(true))
        case "false": return .literal(.bool(false))
        case "INF": return .literal(.double(.infinity))
        case "NaN": return .literal(.double(.nan))
        default: break
        }
        if version == .v4, let literal = bareV4Literal(startingWith: name) { return .literal(literal) }
        if index < bytes.count, bytes[index] == 0x28 {
            index += 1
            var arguments: [ODataExpression] = []
            skipSpaces()
            if !consume(0x29) {
                while true {
                    arguments.append(try expression(depth: depth + 1))
                    skipSpaces()
                    if !consume(0x2C) { break }
                }
                guard consume(0x29) else { throw failure("expected ')' after the arguments of \(name)") }
            }
            return try call(name, arguments)
        }
        // A path, maybe ending in a lambda: Items/any(i:i/Qty gt 2)
        var path = name
        while index < bytes.count, bytes[index] == 0x2F {
            index += 1
            let segment = identifier()
            guard !segment.isEmpty else { throw failure("expected a name after '/'") }
            if (segment == "any" || segment == "all"), consume(0x28) {
                guard version == .v4 else { throw failure("\(segment) lambdas are OData V4") }
                skipSpaces()
                if consume(0x29) {
                    guard segment == "any" else { throw failure("all needs a predicate") }
                    return .lambda(.any, collection: path, variable: "x", predicate: nil)
                }
                let variable = identifier()
                skipSpaces()
                guard !variable.isEmpty, consume(0x3A) else { throw failure("expected 'variable:' in \(segment)") }
                let predicate = try expression(depth: depth + 1)
                skipSpaces()
                guard consume(0x29) else { throw failure("expected ')' after the \(segment) predicate") }
                return .lambda(
                    segment == "any" ? .any : .all, collection: path, variable: variable, predicate: predicate)
            }
            path += "/" + segment
        }
        return .property(path)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x24 || byte >= 0x80
    }

    /// A name: letters, digits, `_`, `.`, `$`, and non-ASCII letters.
    mutating func identifier() -> String {
        let start = index
        while index < bytes.count, isNameStart(bytes[index]) || isDigit(bytes[index]) || bytes[index] == 0x2E {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A single-quoted string, `''` standing for one quote.
    mutating func quoted() throws(ODataError) -> String {
        guard consume(0x27) else { throw failure("expected a quote") }
        var content: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            if byte == 0x27 {
                if index < bytes.count, bytes[index] == 0x27 {
                    content.append(0x27)
                    index += 1
                    continue
                }
                return String(decoding: content, as: UTF8.self)
            }
            content.append(byte)
        }
    }

    /// The longest match of `pattern` (a regular expression) at the current position, consumed, within the next
    /// 256 bytes: room for any decimal written out in full (38 digits and an exponent up to 127 either way).
    mutating func match(_ pattern: String) -> String? {
        let rest = String(decoding: bytes[index..<min(bytes.count, index + 256)], as: UTF8.self)
        guard let range = rest.range(of: pattern, options: [.regularExpression, .anchored]) else { return nil }
        let found = String(rest[range])
        index += found.utf8.count
        return found
    }

    /// A number with an optional V2 suffix (`L`, `M`, `D`, `F`); V4 GUIDs, dates, date-times and times of day.
    mutating func number() throws(ODataError) -> ODataLiteral {
        if negativeInfinityAhead, match("-INF") != nil { return .double(-.infinity) }
        if version == .v4 {
            let hex = "[0-9a-fA-F]"
            if let text = match("\(hex){8}-\(hex){4}-\(hex){4}-\(hex){4}-\(hex){12}"), let uuid = UUID(uuidString: text)
            {
                return .guid(uuid)
            }
            if let text = match(
                "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})")
            {
                guard let date = ODataDateFormat.parseISO8601(text) else { throw failure("bad date-time \(text)") }
                return .dateTimeOffset(date)
            }
            if let text = match("[0-9]{4}-[0-9]{2}-[0-9]{2}") {
                let parts = text.split(separator: "-").compactMap { Int($0) }
                guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
                    throw failure("bad date \(text)")
                }
                return .date(year: parts[0], month: parts[1], day: parts[2])
            }
            if let text = match("[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?") {
                let parts = text.split(separator: ":").map { Int(Double($0) ?? -1) }
                guard (0...23).contains(parts[0]), (0...59).contains(parts[1]),
                    parts.count < 3 || (0...59).contains(parts[2])
                else { throw failure("bad time \(text)") }
                return .timeOfDay(hour: parts[0], minute: parts[1], second: parts.count > 2 ? parts[2] : 0)
            }
        }
        guard let body = match("-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?") else { throw failure("bad number") }
        let isIntegral = !body.contains(".") && !body.contains("e") && !body.contains("E")
        if index < bytes.count,
            index + 1 >= bytes.count || !(isNameStart(bytes[index + 1]) || isDigit(bytes[index + 1]))
        {
            switch bytes[index] {
            case 0x4C, 0x6C:
                index += 1
                guard isIntegral, let value = Int64(body) else { throw failure("bad Int64 literal \(body)") }
                return .int64(value)
            case 0x4D, 0x6D:
                index += 1
                guard let value = Decimal(string: body, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw failure("bad decimal literal \(body)")
                }
                return .decimal(value)
            case 0x44, 0x64:
                index += 1
                return .double(Double(body) ?? .nan)
            case 0x46, 0x66:
                index += 1
                return .single(Float(body) ?? .nan)
            default: break
            }
        }
        if isIntegral {
            guard let value = Int64(body) else { throw failure("integer out of range \(body)") }
            return Int32(exactly: value) != nil ? .int(Int(value)) : .int64(value)
        }
        if body.contains("e") || body.contains("E") { return .double(Double(body) ?? .nan) }
        guard let value = Decimal(string: body, locale: Locale(identifier: "en_US_POSIX")) else {
            throw failure("bad number \(body)")
        }
        return .decimal(value)
    }

    func isHexLetter(_ byte: UInt8) -> Bool { (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46) }

    mutating func identifierAhead(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return false }
        index += utf8.count
        return true
    }

    /// V4 bare GUIDs that begin with a letter (`a0eebc99-…`; the name read so far is their first group).
    mutating func bareV4Literal(startingWith name: String) -> ODataLiteral? {
        guard name.count == 8, name.allSatisfy(\.isHexDigit), index < bytes.count, bytes[index] == 0x2D else {
            return nil
        }
        let start = index
        index -= 8
        let hex = "[0-9a-fA-F]"
        if let text = match("\(hex){8}-\(hex){4}-\(hex){4}-\(hex){4}-\(hex){12}"), let uuid = UUID(uuidString: text) {
            return .guid(uuid)
        }
        index = start
        return nil
    }

    /// `prefix'…'`: V2 `datetime`, `datetimeoffset`, `guid`, `X`/`binary`, `time`; V4 `duration`, `binary`, enums.
    mutating func typedLiteral(prefix: String) throws(ODataError) -> ODataLiteral {
        let body = try quoted()
        switch prefix.lowercased() {
        case "datetime":
            let text = body.count == 16 ? body + ":00" : body
            guard let date = ODataDateFormat.parseISO8601(text.hasSuffix("Z") ? text : text + "Z") else {
                throw failure("bad datetime literal")
            }
            return .dateTime(date)
        case "datetimeoffset":
            guard let date = ODataDateFormat.parseISO8601(body) else { throw failure("bad datetimeoffset literal") }
            return .dateTimeOffset(date)
        case "guid":
            guard let uuid = UUID(uuidString: body) else { throw failure("bad GUID literal") }
            return .guid(uuid)
        case "x", "binary":
            // V4 `binary'…'` is base64url; V2 `X'…'` and `binary'…'` are hex.
            if prefix == "binary", version == .v4 {
                var base64 = body.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                while base64.count % 4 != 0 { base64 += "=" }
                guard let data = Data(base64Encoded: base64) else { throw failure("bad binary literal") }
                return .binary(data)
            }
            guard body.count % 2 == 0 else { throw failure("bad binary literal") }
            var data = Data()
            var characters = body.makeIterator()
            while let high = characters.next(), let low = characters.next() {
                guard let byte = UInt8(String([high, low]), radix: 16) else { throw failure("bad binary literal") }
                data.append(byte)
            }
            return .binary(data)
        case "time", "duration":
            return .duration(body)
        default:
            guard prefix.contains(".") else { throw failure("unknown literal prefix \(prefix)") }
            // Members by name or value, several for flags: `Ns.Color'Red,Blue'`, `Ns.Color'1'`.
            let members = body.split(separator: ",", omittingEmptySubsequences: false)
            for member in members {
                let isName =
                    member.first.map { $0.isLetter || $0 == "_" } == true
                    && member.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                guard isName || Int64(member) != nil else {
                    throw failure("bad member \"\(member)\" of enum \(prefix)")
                }
            }
            return .enumMember(type: prefix, member: body)
        }
    }

    /// A canonical function; V2's `substringof(part,text)` becomes `contains(text,part)`.
    func call(_ name: String, _ arguments: [ODataExpression]) throws(ODataError) -> ODataExpression {
        if version == .v2, ODataExpression.v4Only.contains(name) { throw failure("\(name)() is an OData V4 function") }
        let arity: [String: ClosedRange<Int>] = [
            "contains": 2...2, "startswith": 2...2, "endswith": 2...2, "length": 1...1, "indexof": 2...2,
            "substring": 2...3, "tolower": 1...1, "toupper": 1...1, "trim": 1...1, "concat": 2...2, "year": 1...1,
            "month": 1...1, "day": 1...1, "hour": 1...1, "minute": 1...1, "second": 1...1, "date": 1...1,
            "time": 1...1, "now": 0...0, "round": 1...1, "floor": 1...1, "ceiling": 1...1, "substringof": 2...2,
            "fractionalseconds": 1...1, "totaloffsetminutes": 1...1, "isof": 1...2, "cast": 1...2,
        ]
        guard let range = arity[name] else { throw failure("unknown function \(name)") }
        guard range.contains(arguments.count) else {
            throw failure("\(name) takes \(range.lowerBound)…\(range.upperBound) arguments, not \(arguments.count)")
        }
        if name == "substringof" { return .call("contains", [arguments[1], arguments[0]]) }
        return .call(name, arguments)
    }
}
