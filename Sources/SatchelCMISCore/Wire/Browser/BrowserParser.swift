import Foundation
public import SatchelJSON

/// Pure parsers from Browser binding (JSON) response bodies to the binding-neutral model.
///
/// Every function throws ``CMISError`` with code ``CMISError/Code/invalidResponse`` when the body is not
/// JSON (with the byte offset) or not the expected shape (with the JSON path); none of them traps.
///
/// Objects fetched with `succinct=true` carry `succinctProperties` without type information: pass the
/// type definitions you know (`typeDefinition:`) so their values get the right types. Unknown properties
/// fall back to the standard CMIS property types, then to the JSON value's own kind.
///
/// ```swift
/// let info = try BrowserParser.repositoryInfos(data).first
/// let children = try BrowserParser.children(body) { types[$0] }
/// for child in children.objects { print(child.object.name ?? "") }
/// ```
public enum BrowserParser {
    /// The limits every body is parsed with: 512 levels of nesting (a folder tree about 250 levels deep),
    /// bounded against hostile input.
    public static let limits = JSONLimits(maxDepth: 512)

    /// Looks up a type definition by type id.
    public typealias TypeLookup = (String) -> TypeDefinition?
}
