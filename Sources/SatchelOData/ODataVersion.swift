import Foundation
/// The OData protocol version a service speaks.
///
/// Satchel reads and writes two wire formats: V2 (verbose JSON: `d`, `d.results`, `__metadata`, `__next`,
/// `/Date(…)/`, `datetime'…'` literals; SAP Gateway's native version) and V4 (`value`, `@odata.*` control
/// information, plain literals). V3 services are read as V2 where the formats agree; V4.01 is read as V4.
///
/// ```swift
/// let version = ODataVersion(headerValue: response.headers["OData-Version"] ?? "4.0")
/// ```
public enum ODataVersion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// OData V2 (also used for V1 and V3 services): verbose JSON and V2 literals.
    case v2 = "2.0"
    /// OData V4 (also used for V4.01 services).
    case v4 = "4.0"

    /// Reads `DataServiceVersion`, `OData-Version`, `MaxDataServiceVersion` or an EDMX `Version` value
    /// (`"1.0"`, `"2.0"`, `"3.0"`, `"4.0"`, `"4.01"`, optionally followed by `;…`).
    public init?(headerValue: String) {
        let number = headerValue.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let major = number.split(separator: ".").first.flatMap({ Int($0) }) else { return nil }
        switch major {
        case 1, 2, 3: self = .v2
        case 4: self = .v4
        default: return nil
        }
    }

    /// The name of the request/response header carrying the version.
    public var versionHeader: String { self == .v2 ? "DataServiceVersion" : "OData-Version" }
    /// The name of the header asking for a maximum version.
    public var maxVersionHeader: String { self == .v2 ? "MaxDataServiceVersion" : "OData-MaxVersion" }

    /// `OData V2` or `OData V4`.
    public var description: String { self == .v2 ? "OData V2" : "OData V4" }
}
