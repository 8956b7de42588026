/// The system query options of a request, built fluently and written per version.
///
/// ```swift
/// let query = ODataQuery()
///     .filter(.property("StateCode") == "MS" && .startsWith(.property("LastName"), "Sm"))
///     .select("StudentId", "FirstName", "LastName")
///     .expand("School")
///     .orderBy("LastName").orderBy("FirstName", descending: true)
///     .top(50).count()
/// try query.queryString(for: .v2)
/// // $filter=StateCode%20eq%20'MS'%20and%20startswith(LastName,'Sm')&$select=…&$inlinecount=allpages
/// ```
///
/// Raw text is accepted everywhere: `filter(raw:)`, `custom(_:_:)`, and `raw` for a whole pre-built query string.
public struct ODataQuery: Sendable {
    /// One `$orderby` item.
    public struct Order: Sendable, Hashable {
        /// What to order by, as written (`LastName`, `Address/City`).
        public var expression: String
        /// Whether the order is descending (`desc`).
        public var descending: Bool
        /// An item ordering by `expression`, ascending unless `descending`.
        public init(_ expression: String, descending: Bool = false) {
            self.expression = expression
            self.descending = descending
        }
    }

    /// One `$expand` item: a navigation path and, in V4, options applied to it.
    public struct Expand: Sendable {
        /// The navigation property path (`Trips`, `School/Address`).
        public var path: String
        /// Options applied inside the expansion; V2 accepts only `$select` and `$expand` there.
        public var options: ODataQuery?
        /// An expansion of `path`, with `options` inside it.
        public init(_ path: String, options: ODataQuery? = nil) {
            self.path = path
            self.options = options
        }
    }

    /// `$filter`; `nil` sends none.
    public var filter: ODataExpression?
    /// `$select`: the properties to return, in order; empty returns all.
    public var select: [String] = []
    /// `$expand`: the navigation properties returned inline.
    public var expand: [Expand] = []
    /// `$orderby`, in order of precedence.
    public var orderBy: [Order] = []
    /// `$top`: at most this many entities.
    public var top: Int?
    /// `$skip`: entities left out before the first one returned.
    public var skip: Int?
    /// V4 `$count=true`, V2 `$inlinecount=allpages`.
    public var includeCount: Bool = false
    /// `$search` (V4; SAP Gateway V2 accepts `search=` as a custom option, see ``custom(_:_:)``).
    public var search: String?
    /// V2 `$skiptoken` / V4 `$skiptoken` for server paging continued by hand.
    public var skipToken: String?
    /// Options written after the system ones, in order: `sap-client`, `search`, your own.
    public var customOptions: [(name: String, value: String)] = []
    /// A query string written as is (already encoded), after everything else.
    public var raw: String?

    /// A query without options.
    public init() {}

    /// A query from a raw, already-encoded query string (`$filter=…&$top=10`).
    public init(raw: String) { self.raw = raw.hasPrefix("?") ? String(raw.dropFirst()) : raw }

    /// A copy filtered by `expression`; a filter set already is combined with it by `and`.
    public func filter(_ expression: ODataExpression) -> ODataQuery {
        var copy = self
        if let existing = copy.filter {
            copy.filter = .binary(.and, existing, expression)
        } else {
            copy.filter = expression
        }
        return copy
    }

    /// A filter written in OData syntax already.
    public func filter(raw text: String) -> ODataQuery { filter(.raw(text)) }

    /// A copy that also selects `properties`.
    public func select(_ properties: String...) -> ODataQuery { select(properties) }

    /// A copy that also selects `properties`.
    public func select(_ properties: [String]) -> ODataQuery {
        var copy = self
        copy.select += properties
        return copy
    }

    /// Expands a navigation property; in V4 `options` apply inside it (`$expand=Trips($select=Name;$top=2)`).
    public func expand(_ path: String, _ options: ODataQuery? = nil) -> ODataQuery {
        var copy = self
        copy.expand.append(Expand(path, options: options))
        return copy
    }

    /// A copy that also orders by `expression`, after the orderings set already.
    public func orderBy(_ expression: String, descending: Bool = false) -> ODataQuery {
        var copy = self
        copy.orderBy.append(Order(expression, descending: descending))
        return copy
    }

    /// Orders by a `$orderby` list as written: `Price desc, ID` (blank items skipped).
    public func orderBy(list text: String) -> ODataQuery {
        var copy = self
        for item in text.split(separator: ",") {
            let words = item.split(separator: " ")
            guard let first = words.first else { continue }
            copy = copy.orderBy(String(first), descending: words.count > 1 && words[1].lowercased() == "desc")
        }
        return copy
    }

    /// A copy with `$top` set to `count`.
    public func top(_ count: Int) -> ODataQuery {
        var copy = self
        copy.top = count
        return copy
    }

    /// A copy with `$skip` set to `count`.
    public func skip(_ count: Int) -> ODataQuery {
        var copy = self
        copy.skip = count
        return copy
    }

    /// Asks for the total count with the page (`$count=true` / `$inlinecount=allpages`).
    public func count(_ include: Bool = true) -> ODataQuery {
        var copy = self
        copy.includeCount = include
        return copy
    }

    /// A copy with `$search` set to `text` (V4).
    public func search(_ text: String) -> ODataQuery {
        var copy = self
        copy.search = text
        return copy
    }

    /// A copy with a custom query option appended (`name=value`, both percent-encoded when written).
    public func custom(_ name: String, _ value: String) -> ODataQuery {
        var copy = self
        copy.customOptions.append((name, value))
        return copy
    }

    /// Whether no option is set.
    public var isEmpty: Bool {
        filter == nil && select.isEmpty && expand.isEmpty && orderBy.isEmpty && top == nil && skip == nil
            && !includeCount && search == nil && skipToken == nil && customOptions.isEmpty && (raw ?? "").isEmpty
    }
}
