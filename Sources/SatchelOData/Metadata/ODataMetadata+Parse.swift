public import Foundation
import SatchelXML

extension ODataMetadata {
    /// Reads an EDMX document (`$metadata`), V2 (SAP Gateway style, with `sap:` annotations and associations)
    /// or V4 (vocabulary annotations, enums, containment, actions and functions).
    ///
    /// Constructs Satchel does not model are reported in ``diagnostics`` and skipped; only a document that
    /// is not EDMX at all, or not well-formed XML, throws.
    ///
    /// ```swift
    /// let metadata = try ODataMetadata.parse(data: try Data(contentsOf: url))
    /// metadata.diagnostics.forEach { print($0) }
    /// ```
    ///
    /// - Throws: ``ODataError`` with code `.invalidMetadata`.
    public static func parse(data: Data) throws -> ODataMetadata {
        let document: XDocument
        do {
            document = try XDocument.parse(data: data)
        } catch let error as XMLReadError {
            throw ODataError(
                .invalidMetadata, "the metadata document is not well-formed XML: \(error.message)",
                location: "line \(error.line), column \(error.column)", underlying: error)
        } catch {
            throw ODataError(.invalidMetadata, "the metadata document could not be read", underlying: error)
        }
        var parser = EDMXParser()
        return try parser.parse(document.root)
    }

    /// Reads `$metadata` from a file.
    public static func parse(contentsOf url: URL) throws -> ODataMetadata {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ODataError(.invalidMetadata, "cannot read \(url.path)", underlying: error)
        }
        return try parse(data: data)
    }
}

/// XML namespaces of EDMX and CSDL.
enum EDMXNamespace {
    static let edmxV4 = "http://docs.oasis-open.org/odata/ns/edmx"
    static let edmV4 = "http://docs.oasis-open.org/odata/ns/edm"
    static let edmxV2 = "http://schemas.microsoft.com/ado/2007/06/edmx"
    static let dataServicesMetadata = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    static let sap = "http://www.sap.com/Protocols/SAPData"
    static let edmV2 = [
        "http://schemas.microsoft.com/ado/2006/04/edm", "http://schemas.microsoft.com/ado/2007/05/edm",
        "http://schemas.microsoft.com/ado/2008/09/edm", "http://schemas.microsoft.com/ado/2009/11/edm",
    ]

    static func isEDM(_ namespace: String?) -> Bool {
        guard let namespace else { return true }
        return namespace == edmV4 || edmV2.contains(namespace)
    }
}
