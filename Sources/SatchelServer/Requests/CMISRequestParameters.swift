import SatchelCMISCore
import Foundation

/// The arguments every CMIS binding reads alike (CMIS 1.1 part II): paging, booleans, depth, relationships and the
/// operation context, with one set of defaults and one wording for what is wrong. A binding supplies how it finds
/// an argument (AtomPub: the URL's query; Browser: the query or the form, names case-insensitive).
protocol CMISRequestParameters {
    /// The argument's value, or nil when it is absent or empty.
    func string(_ name: String) -> String?
    /// Properties a binding reads beside the filter's (AtomPub's content links), not written.
    var filterAdditions: [String] { get }
}

extension CMISRequestParameters {
    var filterAdditions: [String] { [] }

    func required(_ name: String) throws(CMISError) -> String {
        guard let value = string(name) else { throw CMISError(.invalidArgument, "the parameter \(name) is missing") }
        return value
    }

    func bool(_ name: String, default defaultValue: Bool) throws(CMISError) -> Bool {
        guard let text = string(name) else { return defaultValue }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw CMISError(.invalidArgument, "\(name) must be true or false, not \"\(text.prefix(40))\"")
        }
    }

    /// A non-negative integer.
    func int(_ name: String) throws(CMISError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw CMISError(.invalidArgument, "\(name) must be a non-negative integer, not \"\(text.prefix(40))\"")
        }
        return value
    }

    var maxItems: Int? { get throws(CMISError) { try int("maxItems") } }
    var skipCount: Int { get throws(CMISError) { try int("skipCount") ?? 0 } }

    /// `depth`: -1 (every level) or a positive number of levels; nil when absent (the operation's default).
    func depth() throws(CMISError) -> Int? {
        guard let text = string("depth") else { return nil }
        guard let value = Int(text), value == -1 || value > 0 else {
            throw CMISError(.invalidArgument, "depth must be -1 or a positive integer, not \"\(text.prefix(40))\"")
        }
        return value
    }

    func includeRelationships() throws(CMISError) -> OperationContext.IncludeRelationships? {
        guard let text = string("includeRelationships") else { return nil }
        guard let value = OperationContext.IncludeRelationships(rawValue: text) else {
            throw CMISError(.invalidArgument, "includeRelationships must be none, source, target or both")
        }
        return value
    }

    /// The operation context of a read: `filter` (with the binding's additions), the `include…` flags,
    /// `renditionFilter` and `orderBy`.
    func operationContext() throws(CMISError) -> OperationContext {
        var context = OperationContext()
        if let filter = string("filter"), filter != "*" {
            context.filter =
                filter.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                + filterAdditions
        }
        context.includeAllowableActions = try bool("includeAllowableActions", default: false)
        context.includeACL = try bool("includeACL", default: false)
        context.includePolicyIds = try bool("includePolicyIds", default: false)
        context.includePathSegment = try bool("includePathSegment", default: false)
        if let relationships = try includeRelationships() { context.includeRelationships = relationships }
        context.renditionFilter = string("renditionFilter")
        context.orderBy = string("orderBy")
        return context
    }
}
