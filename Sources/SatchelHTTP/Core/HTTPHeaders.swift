extension HTTPClient {
    /// An ordered list of HTTP header fields with case-insensitive lookup.
    ///
    /// Its `description` redacts secrets (authorization, cookies, tokens), so headers can be logged safely.
    ///
    /// ```swift
    /// var headers: HTTPClient.Headers = ["Accept": "application/json"]
    /// headers["X-CSRF-Token"] = "Fetch"
    /// ```
    public struct Headers: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// One header field.
        public struct Field: Sendable, Hashable {
            /// The field name, as given (lookups ignore case).
            public var name: String
            /// The field value.
            public var value: String
            /// A field of `name` and `value`.
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// Every field, in order.
        public private(set) var fields: [Field] = []

        /// No fields.
        public init() {}
        /// Fields of `pairs` (name, value), in order; repeated names are kept.
        public init(_ pairs: [(String, String)]) {
            fields = pairs.map { Field(name: $0.0, value: $0.1) }
        }
        /// Fields of a literal, in order.
        public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

        /// The first value of the field, or nil. Setting replaces every field of that name; nil removes them.
        public subscript(name: String) -> String? {
            get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
            set {
                guard let newValue else {
                    remove(name)
                    return
                }
                guard let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else {
                    fields.append(Field(name: name, value: newValue))
                    return
                }
                fields[first].value = newValue
                var index = fields.index(after: first)
                while index < fields.endIndex {
                    if fields[index].name.caseInsensitiveEquals(name) { fields.remove(at: index) } else { index += 1 }
                }
            }
        }

        /// Every value of the field, in order (e.g. several `Set-Cookie` fields).
        public func values(for name: String) -> [String] {
            fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
        }

        /// Whether a field is named `name` (ignoring case).
        public func contains(_ name: String) -> Bool { fields.contains { $0.name.caseInsensitiveEquals(name) } }

        /// Adds a field without replacing existing fields of the same name.
        public mutating func add(_ name: String, _ value: String) { fields.append(Field(name: name, value: value)) }

        /// Removes every field named `name` (ignoring case).
        public mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

        /// Sets the field only if it is not already present.
        public mutating func setIfAbsent(_ name: String, _ value: String) {
            if !contains(name) { add(name, value) }
        }

        /// Iterates the fields in order.
        public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

        /// One `name: value` line per field, secret values redacted.
        public var description: String {
            fields.map { "\($0.name): \(Redaction.headerValue(name: $0.name, value: $0.value))" }
                .joined(separator: "\n")
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
