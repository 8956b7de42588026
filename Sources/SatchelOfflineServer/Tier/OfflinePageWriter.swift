import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelRepository

/// Writes a page of a defining query in the back-end's JSON format: the rows' bodies as they are stored (they are
/// already the entities in that format), removed rows as V4 `$deletedEntity` entries or V2 `__deleted` entries
/// with their ids, and the middle tier's next and delta links.
struct OfflinePageWriter: Sendable {
    var version: ODataVersion
    var root: String
    var entitySet: String

    struct Links {
        var next: String?
        var delta: String?
    }

    func response(
        rows: ArraySlice<OfflineRow>, removedKeys: [String], links: Links, isDelta: Bool
    ) -> OfflineTierResponse {
        var out = Data()
        out.reserveCapacity(rows.reduce(256) { $0 + $1.body.count + 1 })
        func string(_ text: String) { out.append(contentsOf: JSONValue.string(text).serialized()) }
        func bodies() {
            var first = true
            for row in rows {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(row.body)
            }
        }
        var headers = HTTPClient.Headers()
        if version == .v2 {
            out.append(contentsOf: Array(#"{"d":{"results":["#.utf8))
            bodies()
            out.append(UInt8(ascii: "]"))
            if !removedKeys.isEmpty {
                out.append(contentsOf: Array(#","__deleted":["#.utf8))
                for (index, key) in removedKeys.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: Array(#"{"__metadata":{"uri":"#.utf8))
                    string(root + entitySet + key)
                    out.append(contentsOf: Array("}}".utf8))
                }
                out.append(UInt8(ascii: "]"))
            }
            if let next = links.next {
                out.append(contentsOf: Array(#","__next":"#.utf8))
                string(next)
            }
            if let delta = links.delta {
                out.append(contentsOf: Array(#","__delta":"#.utf8))
                string(delta)
            }
            out.append(contentsOf: Array("}}".utf8))
            headers.add("Content-Type", "application/json")
            headers.add("DataServiceVersion", "2.0")
        } else {
            out.append(contentsOf: Array(#"{"@odata.context":"#.utf8))
            string(root + "$metadata#" + entitySet + (isDelta ? "/$delta" : ""))
            out.append(contentsOf: Array(#","value":["#.utf8))
            bodies()
            for (index, key) in removedKeys.enumerated() {
                if index > 0 || !rows.isEmpty { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: Array(#"{"@odata.context":"#.utf8))
                string(root + "$metadata#" + entitySet + "/$deletedEntity")
                out.append(contentsOf: Array(#","id":"#.utf8))
                string(root + entitySet + key)
                out.append(contentsOf: Array(#","reason":"deleted"}"#.utf8))
            }
            out.append(UInt8(ascii: "]"))
            if let next = links.next {
                out.append(contentsOf: Array(#","@odata.nextLink":"#.utf8))
                string(next)
            }
            if let delta = links.delta {
                out.append(contentsOf: Array(#","@odata.deltaLink":"#.utf8))
                string(delta)
            }
            out.append(UInt8(ascii: "}"))
            headers.add("Content-Type", "application/json;odata.metadata=minimal")
            headers.add("OData-Version", "4.0")
        }
        return OfflineTierResponse(status: 200, headers: headers, body: out)
    }
}
