import Foundation

/// A configuration file in the `.ini` shape of SAP's offline application configuration, read line by line, every
/// key and section remembering its line so that each later check can name it.
///
/// - `[name]` starts a section; `key = value` belongs to the section above it.
/// - `;` or `#` at the start of a line makes it a comment; after white space, the rest of the line is a comment
///   (except in the values of ``verbatimKeys``, such as `query`, whose text may hold `;` and `#`).
/// - Keys are case-insensitive (kept lowercased); values keep their case, trimmed.
public struct OfflineIniDocument: Sendable, Equatable {
    /// One `key = value` line.
    public struct Entry: Sendable, Equatable {
        /// The key, lowercased.
        public var key: String
        /// The value as written, trimmed, its comment removed (except for `verbatimKeys`).
        public var value: String
        /// The line, counted from 1.
        public var line: Int
    }

    /// A `[name]` line and the entries under it.
    public struct Section: Sendable, Equatable {
        /// The name between the brackets, trimmed, its case kept.
        public var name: String
        /// The line of `[name]`, counted from 1.
        public var line: Int
        /// The section's `key = value` lines, in order (a key may repeat).
        public var entries: [Entry]

        /// The last value given for `key` (lowercased).
        public func value(_ key: String) -> String? { entries.last { $0.key == key }?.value }

        /// The entry for `key`, for its line.
        public func entry(_ key: String) -> Entry? { entries.last { $0.key == key } }

        /// Every value given for `key`, in order (keys that may repeat, such as `indexed_type`).
        public func values(_ key: String) -> [Entry] { entries.filter { $0.key == key } }
    }

    /// Where the text came from, for messages.
    public var name: String
    /// The sections, in the file's order.
    public var sections: [Section]

    /// Keys whose values are taken whole, comment characters included.
    public static let verbatimKeys: Set<String> = ["query", "request"]

    /// The keys of the middle tier's application configuration (`satchel serve --offline`), in one place for the
    /// middle tier, which reads them, and the client, which names them as not its own.
    public enum MiddleTierKeys {
        /// The `[endpoint]` keys the middle tier reads.
        public static let endpoint: Set<String> = [
            "name", "backend_url", "sap_client", "csrf", "service_user", "service_password_env",
            "service_password_file", "prepopulate_offline_db", "prepopulate_offline_db_interval", "indexed_type",
            "max_delta_resends", "local_change_expiry", "allow_defining_query_removal", "case_sensitive_offline_db",
            "json_datetimeoffset_in_utc", "check_repeatable_requests",
        ]
        /// The defining-query keys the middle tier reads.
        public static let query: Set<String> = [
            "name", "query", "is_shared_data", "refresh_interval", "track_deltas", "delta_token_lifetime", "streams",
        ]
        /// SAP keys Satchel's middle tier does not implement, and why.
        public static let sapOnly: [String: String] = [
            "request_format": "the middle tier answers in the back-end's own JSON format",
            "defining_query_format": "the middle tier answers in the back-end's own JSON format",
            "delta_request_format": "the middle tier answers in the back-end's own JSON format",
            "delta_query_format": "the middle tier answers in the back-end's own JSON format",
            "offline_db_collation": "stores built compare text by case_sensitive_offline_db only",
            "allow_omitting_max_length_facet": "stores built keep any length",
            "content_id_header_location": "Content-IDs are sent in the MIME part headers",
            "early_populate_backend_generated_values": "values the back-end generates arrive with the next download",
            "batch_all_defining_queries": "defining queries are read one by one",
        ]
        /// Every key of a middle tier's file.
        public static var all: Set<String> { endpoint.union(query).union(sapOnly.keys) }
    }

    /// Reads the UTF-8 file at `path`; messages name it by its path. Throws when it cannot be read or a line is
    /// malformed.
    public init(contentsOf path: String) throws(OfflineConfigurationError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw OfflineConfigurationError(file: path, line: nil, "cannot be read: \(error.localizedDescription)")
        }
        try self.init(text: text, name: path)
    }

    /// Reads `text`; messages name it `name`. Throws at the first malformed line: a section line without its `]` or
    /// name, a line that is neither `key = value` nor a comment, a key that is not letters, digits, `_` or `-`, or
    /// a key before any section.
    public init(text: String, name: String) throws(OfflineConfigurationError) {
        self.name = name
        sections = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                line = Self.withoutComment(line)
                guard line.hasSuffix("]") else {
                    throw OfflineConfigurationError(file: name, line: number, "a section line is [name], not \(line)")
                }
                let sectionName = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                guard !sectionName.isEmpty else {
                    throw OfflineConfigurationError(file: name, line: number, "a section needs a name")
                }
                sections.append(Section(name: sectionName, line: number, entries: []))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw OfflineConfigurationError(
                    file: name, line: number, "expected key = value, a [section] or a comment, not \(line)")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw OfflineConfigurationError(file: name, line: number, "not a key: '\(line[..<equals])'")
            }
            guard !sections.isEmpty else {
                throw OfflineConfigurationError(file: name, line: number, "\(key) comes before any [section]")
            }
            var value = String(line[line.index(after: equals)...])
            if !Self.verbatimKeys.contains(key) { value = Self.withoutComment(value) }
            value = value.trimmingCharacters(in: .whitespaces)
            sections[sections.count - 1].entries.append(Entry(key: key, value: value, line: number))
        }
    }

    /// `text` up to a `;` or `#` that follows white space.
    private static func withoutComment(_ text: String) -> String {
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if (character == ";" || character == "#") && previous.isWhitespace {
                return text[..<index].trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return text
    }
}

/// A configuration file that cannot be used, with the file and line that say why.
public struct OfflineConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's name or path, as given to the reader.
    public var file: String
    /// The line, counted from 1; nil for the file as a whole.
    public var line: Int?
    /// What is wrong, for a person.
    public var message: String

    /// An error about `file` at `line` (nil: the file as a whole).
    public init(file: String, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `<file> line <line>: <message>`, or `<file>: <message>` for the file as a whole.
    public var description: String { "\(file)\(line.map { " line \($0)" } ?? ""): \(message)" }
}

/// A key the reader found but Satchel does not implement (an SAP key it has no use for, or a misspelling): said at
/// start with its line, never silently ignored.
public struct OfflineConfigurationWarning: Sendable, Equatable, CustomStringConvertible {
    /// The file's name or path, as given to the reader.
    public var file: String
    /// The key's line, counted from 1.
    public var line: Int
    /// What the key is and why it is not used, for a person.
    public var message: String

    /// A warning about the key on `line` of `file`.
    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `<file> line <line>: <message>`.
    public var description: String { "\(file) line \(line): \(message)" }
}

extension OfflineIniDocument {
    /// Warnings for the entries of `section` whose keys are not in `known`; `sapOnly` keys get a note saying that
    /// SAP defines them but Satchel has no use for them here.
    public func unknownKeys(
        in section: Section, known: Set<String>, sapOnly: [String: String] = [:]
    ) -> [OfflineConfigurationWarning] {
        section.entries.filter { !known.contains($0.key) }.map { entry in
            if let why = sapOnly[entry.key] {
                return OfflineConfigurationWarning(file: name, line: entry.line, "\(entry.key) is not used: \(why)")
            }
            return OfflineConfigurationWarning(
                file: name, line: entry.line,
                "unknown key \(entry.key) in [\(section.name)] (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// A yes/no value (`Y`, `N`, `yes`, `no`, `true`, `false`, `1`, `0`), nil when absent.
    public func flag(_ key: String, in section: Section) throws(OfflineConfigurationError) -> Bool? {
        guard let entry = section.entry(key) else { return nil }
        switch entry.value.lowercased() {
        case "y", "yes", "true", "1": return true
        case "n", "no", "false", "0": return false
        default:
            throw OfflineConfigurationError(file: name, line: entry.line, "\(key) is Y or N, not \(entry.value)")
        }
    }

    /// A whole number in `range`, nil when absent.
    public func number(
        _ key: String, in section: Section, range: ClosedRange<Int>
    ) throws(OfflineConfigurationError) -> Int? {
        guard let entry = section.entry(key) else { return nil }
        guard let value = Int(entry.value), range.contains(value) else {
            throw OfflineConfigurationError(
                file: name, line: entry.line,
                "\(key) is a whole number from \(range.lowerBound) to \(range.upperBound), not \(entry.value)")
        }
        return value
    }

    /// `track_deltas = AUTO|ALWAYS|NEVER` of a defining query's section, ``OfflineDeltaTracking/auto`` when absent.
    public func deltaTracking(in section: Section) throws(OfflineConfigurationError) -> OfflineDeltaTracking {
        guard let entry = section.entry("track_deltas") else { return .auto }
        guard let value = OfflineDeltaTracking(rawValue: entry.value.lowercased()) else {
            throw OfflineConfigurationError(
                file: name, line: entry.line, "track_deltas is AUTO, ALWAYS or NEVER, not \(entry.value)")
        }
        return value
    }

    /// `indexed_type = Ns.Type: Prop [ASC|DESC], …` lines of `section`, merged per type.
    public func indexes(in section: Section) throws(OfflineConfigurationError) -> [String: [String]] {
        var indexes: [String: [String]] = [:]
        for entry in section.values("indexed_type") {
            let value = entry.value
            let usage = "indexed_type = Namespace.Type: Property [ASC|DESC], …"
            guard let colon = value.firstIndex(of: ":") else {
                throw OfflineConfigurationError(file: name, line: entry.line, usage)
            }
            let type = value[..<colon].trimmingCharacters(in: .whitespaces)
            var properties: [String] = []
            for part in value[value.index(after: colon)...].split(separator: ",") {
                let words = part.split(separator: " ")
                guard let property = words.first, words.count <= 2,
                    words.count == 1 || ["asc", "desc"].contains(words[1].lowercased())
                else { throw OfflineConfigurationError(file: name, line: entry.line, usage) }
                properties.append(String(property))
            }
            guard !type.isEmpty, !properties.isEmpty else {
                throw OfflineConfigurationError(file: name, line: entry.line, usage)
            }
            // An SQLite index serves either order.
            indexes[type, default: []] += properties
        }
        return indexes
    }
}
