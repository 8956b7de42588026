extension ODataQuery {
    /// The options as name/value pairs, not yet percent-encoded.
    ///
    /// - Throws: ``ODataError`` `.invalidArgument` when an option cannot be written for the version (a lambda
    ///   in V2, nested expand options other than `$select`/`$expand` in V2).
    public func options(for version: ODataVersion) throws -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        if let filter { result.append(("$filter", try filter.text(for: version))) }
        var selects = select
        var expands: [String] = []
        if version == .v2 {
            try flattenV2(prefix: "", into: &expands, selects: &selects)
        } else {
            expands = try expand.map { try $0.v4Text() }
        }
        if !selects.isEmpty { result.append(("$select", selects.joined(separator: ","))) }
        if !expands.isEmpty { result.append(("$expand", expands.joined(separator: ","))) }
        if !orderBy.isEmpty {
            result.append(
                ("$orderby", orderBy.map { $0.expression + ($0.descending ? " desc" : "") }.joined(separator: ",")))
        }
        if let top { result.append(("$top", String(top))) }
        if let skip { result.append(("$skip", String(skip))) }
        if includeCount { result.append(version == .v2 ? ("$inlinecount", "allpages") : ("$count", "true")) }
        if let search { result.append(("$search", search)) }
        if let skipToken { result.append(("$skiptoken", skipToken)) }
        result += customOptions.map { ($0.name, $0.value) }
        return result
    }

    /// `name=value&…`, percent-encoded (spaces as `%20`); `raw` appended as given.
    public func queryString(for version: ODataVersion) throws -> String {
        var parts = try options(for: version).map {
            ODataURLEncoding.query($0.name) + "=" + ODataURLEncoding.query($0.value)
        }
        if let raw, !raw.isEmpty { parts.append(raw) }
        return parts.joined(separator: "&")
    }

    /// V2 has no nested options: `$expand=A/B` paths, and nested `$select`s become `A/Prop`.
    private func flattenV2(prefix: String, into expands: inout [String], selects: inout [String]) throws {
        for item in expand {
            let path = prefix + item.path
            expands.append(path)
            guard let options = item.options else { continue }
            if options.filter != nil || !options.orderBy.isEmpty || options.top != nil || options.skip != nil
                || options.includeCount || options.search != nil
            {
                throw ODataError(.invalidArgument, "OData V2 cannot apply options inside $expand=\(path)")
            }
            selects += options.select.map { path + "/" + $0 }
            try options.flattenV2(prefix: path + "/", into: &expands, selects: &selects)
        }
        // An expanded path already listed as a prefix of a deeper one is redundant but harmless.
    }
}

extension ODataQuery.Expand {
    /// `Path` or `Path($select=…;$expand=…)`.
    func v4Text() throws -> String {
        guard let options, !options.isEmpty else { return path }
        let inner = try options.options(for: .v4).map { "\($0.name)=\($0.value)" }.joined(separator: ";")
        return "\(path)(\(inner))"
    }
}
