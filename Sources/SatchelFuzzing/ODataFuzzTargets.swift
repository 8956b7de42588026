import Foundation
import SatchelOData
import SatchelXML

/// `$metadata` documents (`ODataMetadata.parse`), V2 and V4 EDMX.
///
/// - What cannot be read throws an ``ODataError``; one that comes from malformed XML says where (line and column).
/// - A document that reads, reads the same a second time (the reader keeps no state between documents).
enum CSDLFuzzTarget {
    static let target = FuzzTarget(
        name: "csdl", summary: "OData $metadata (EDMX/CSDL): ODataMetadata.parse",
        seedFolders: ["Tests/SatchelODataTests/Fixtures", "Tests/SatchelODataGenTests/Fixtures"],
        seedExtensions: ["xml", "edmx"], check: check)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("csdl", "\(message): \(bytes.excerpt())") }
        let data = Data(bytes)
        let metadata: ODataMetadata
        do {
            metadata = try ODataMetadata.parse(data: data)
        } catch let error as ODataError {
            if error.underlying is XMLReadError, error.location == nil {
                throw violation("malformed XML without a position: \(error)")
            }
            return
        } catch {
            throw violation("the reader threw something other than an ODataError: \(error)")
        }
        guard (try? ODataMetadata.parse(data: data)) == metadata else {
            throw violation("read twice, the document gave two different models")
        }
    }
}

/// `$batch` answers (`ODataBatchReader`): `multipart/mixed` with changesets, and 4.01 JSON.
///
/// The input is JSON when it starts with `{`; otherwise multipart/mixed whose boundary is its first line after `--`.
///
/// - What cannot be read as a whole throws an ``ODataError``; a part that cannot be read is that part's error.
/// - The limits hold: top-level parts, parts per changeset; every status read is 100–599.
enum BatchFuzzTarget {
    static let target = FuzzTarget(
        name: "batch", summary: "OData $batch answers: ODataBatchReader (multipart/mixed and JSON)",
        seedFolders: ["Fuzz/Corpus/multipart"], check: check)

    static let reader = ODataBatchReader(limits: MultipartFuzzTarget.limits)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("batch", "\(message): \(bytes.excerpt())") }
        let contentType =
            bytes.first == UInt8(ascii: "{")
            ? "application/json" : "multipart/mixed; boundary=\"\(MultipartFuzzTarget.boundary(of: bytes))\""
        let items: [ODataBatchReader.Item]
        do {
            items = try reader.read(Data(bytes), contentType: contentType)
        } catch is ODataError {
            return
        } catch {
            throw violation("the reader threw something other than an ODataError: \(error)")
        }
        guard bytes.first == UInt8(ascii: "{") || items.count <= reader.limits.maxParts else {
            throw violation("\(items.count) parts, more than the limit")
        }
        for item in items {
            switch item {
            case .single(let result): try checkPart(result, violation: violation)
            case .changeset(let results):
                guard results.count <= reader.limits.maxParts else {
                    throw violation("a changeset of \(results.count) parts, more than the limit")
                }
                for result in results { try checkPart(result, violation: violation) }
            }
        }
    }

    static func checkPart(
        _ result: Result<ODataBatchPartResponse, ODataError>, violation: (String) -> FuzzViolation
    ) throws(FuzzViolation) {
        guard case .success(let response) = result else { return }
        guard (100...599).contains(response.status) else { throw violation("a part with status \(response.status)") }
    }
}
