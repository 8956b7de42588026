import Foundation
import SatchelHTTP
import SatchelJSON

/// Writes a planned batch as a `multipart/mixed` body (V2 and V4) or a 4.01 JSON batch body.
///
/// Multipart: each request is an `application/http` part with `Content-Transfer-Encoding: binary`, its request
/// line relative to the service root; a changeset is a nested `multipart/mixed` part whose members carry their
/// `Content-ID`. Lines end in CRLF.
struct ODataBatchWriter: Sendable {
    /// Makes the boundaries unique: `batch_<seed>` and `changeset_<seed>_<n>`.
    var boundarySeed: String

    init(boundarySeed: String = UUID().uuidString.lowercased()) {
        self.boundarySeed = boundarySeed
    }

    var batchBoundary: String { "batch_" + boundarySeed }
    func changesetBoundary(_ number: Int) -> String { "changeset_\(boundarySeed)_\(number)" }

    /// The body and its `Content-Type`.
    func write(_ plan: ODataBatchPlan) -> (body: Data, contentType: String) {
        switch plan.format {
        case .multipart: (multipart(plan), "multipart/mixed; boundary=" + batchBoundary)
        case .json: (json(plan), "application/json")
        }
    }

    func multipart(_ plan: ODataBatchPlan) -> Data {
        var out = Data()
        func line(_ text: String = "") { out.append(contentsOf: Array((text + "\r\n").utf8)) }
        for entry in plan.entries {
            line("--" + batchBoundary)
            switch entry {
            case .single(let index):
                writePart(plan.parts[index], contentID: false, into: &out)
            case .changeset(let number, let indexes):
                let boundary = changesetBoundary(number)
                line("Content-Type: multipart/mixed; boundary=" + boundary)
                line()
                for index in indexes {
                    line("--" + boundary)
                    writePart(plan.parts[index], contentID: true, into: &out)
                    line()
                }
                line("--" + boundary + "--")
            }
            line()
        }
        line("--" + batchBoundary + "--")
        return out
    }

    /// One `application/http` part: MIME headers, then the request line, headers and body.
    private func writePart(_ part: ODataBatchPlan.Part, contentID: Bool, into out: inout Data) {
        func line(_ text: String = "") { out.append(contentsOf: Array((text + "\r\n").utf8)) }
        line("Content-Type: application/http")
        line("Content-Transfer-Encoding: binary")
        if contentID { line("Content-ID: " + part.reference.contentID) }
        line()
        line("\(part.method.rawValue) \(part.url) HTTP/1.1")
        let body = part.body?.data
        for field in part.headers { line("\(field.name): \(field.value)") }
        if let body { line("Content-Length: \(body.count)") }
        line()
        if let body { out.append(body) }
    }

    func json(_ plan: ODataBatchPlan) -> Data {
        var requests: [JSONValue] = []
        for entry in plan.entries {
            let (indexes, group): ([Int], String?) =
                switch entry {
                case .single(let index): ([index], nil)
                case .changeset(let number, let indexes): (indexes, "g\(number)")
                }
            for index in indexes {
                let part = plan.parts[index]
                var object = JSONObject()
                object.append(key: "id", value: .string(part.reference.contentID))
                if let group { object.append(key: "atomicityGroup", value: .string(group)) }
                if !part.dependsOn.isEmpty {
                    object.append(key: "dependsOn", value: .array(part.dependsOn.map { .string($0) }))
                }
                object.append(key: "method", value: .string(part.method.rawValue))
                object.append(key: "url", value: .string(part.url))
                var headers = JSONObject()
                for field in part.headers { headers.append(key: field.name.lowercased(), value: .string(field.value)) }
                object.append(key: "headers", value: .object(headers))
                if case .json(let body)? = part.body { object.append(key: "body", value: body) }
                requests.append(.object(object))
            }
        }
        let document: JSONValue = ["requests": .array(requests)]
        return Data(document.serialized())
    }
}
