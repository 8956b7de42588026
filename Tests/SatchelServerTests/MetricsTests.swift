import Foundation
import SatchelCMIS
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

/// `/metrics`: the Prometheus text format counts what the test sent.
@Suite("/metrics")
struct MetricsTests {
    /// The samples of `text` named `name`, each with its labels.
    static func samples(_ text: String, _ name: String) -> [(labels: [String: String], value: Double)] {
        text.split(separator: "\n").compactMap { line -> (labels: [String: String], value: Double)? in
            guard line.hasPrefix(name + "{") || line.hasPrefix(name + " ") else { return nil }
            var labels: [String: String] = [:]
            var rest = Substring(line.dropFirst(name.count))
            if rest.hasPrefix("{"), let close = rest.firstIndex(of: "}") {
                for pair in rest[rest.index(after: rest.startIndex)..<close].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
                rest = rest[rest.index(after: close)...]
            }
            guard let value = Double(rest.trimmingCharacters(in: .whitespaces)) else { return nil }
            return (labels, value)
        }
    }

    static func value(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples(text, name).first { sample in labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    @Test("requests per route and status, refused logins, uploaded bytes, store and blob timings; administrators only")
    func countsWhatWasSent() async throws {
        let harness = try await ServerHarness.start(sqlite: true)
        try await withCleanup { () async throws in
            let content = Data(repeating: 0x61, count: 12_345)
            var form = MultipartFormData(boundary: "m")
            form.addField("cmisaction", "createDocument")
            form.addField("propertyId[0]", "cmis:name")
            form.addField("propertyValue[0]", "counted.bin")
            try form.addData("content", data: content, filename: "c.bin", contentType: "application/octet-stream")
            form.addField("succinct", "true")
            let created = try await harness.send(.post, "/cmis/browser/shared/root", body: .multipart(form))
            #expect(created.status == 201)
            let id = try #require(try BrowserParser.object(created.body).id)
            for _ in 0..<3 {
                #expect(try await harness.send(.get, "/cmis/browser/shared/root?objectId=\(id)").status == 200)
            }
            #expect(try await harness.send(.get, "/cmis/browser/shared/root?objectId=nothing-here").status == 404)
            let wrong = [("Authorization", ServerHarness.basic("bob", password: "guess"))]
            for _ in 0..<2 {
                #expect(try await harness.send(.get, "/cmis/browser", user: nil, headers: wrong).status == 401)
            }
            #expect(try await harness.send(.get, "/metrics", user: nil).status == 401)
            #expect(try await harness.send(.get, "/metrics", user: "alice").status == 403)

            let metrics = try await harness.send(.get, "/metrics", user: "admin")
            #expect(metrics.status == 200)
            #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(decoding: metrics.body, as: UTF8.self)
            let browser = ["route": "/cmis/browser"]
            #expect(
                Self.value(
                    text, "satchel_http_requests_total", browser.merging(["method": "GET", "status": "200"]) { $1 })
                    == 3)
            #expect(
                Self.value(
                    text, "satchel_http_requests_total", browser.merging(["method": "GET", "status": "404"]) { $1 })
                    == 1)
            #expect(
                Self.value(
                    text, "satchel_http_requests_total", browser.merging(["method": "POST", "status": "201"]) { $1 })
                    == 1)
            #expect(
                Self.value(
                    text, "satchel_http_request_duration_seconds_count",
                    browser.merging(["method": "GET", "status": "200"]) { $1 }) == 3)
            #expect(Self.value(text, "satchel_login_refusals_total", ["reason": "wrong"]) == 2)
            #expect(Self.value(text, "satchel_upload_bytes_total") == Double(content.count))
            #expect(
                (Self.value(text, "satchel_store_duration_seconds_count", ["operation": "write", "outcome": "ok"]) ?? 0)
                    >= 1)
            #expect(
                Self.value(text, "satchel_blob_duration_seconds_count", ["operation": "store", "outcome": "ok"]) == 1)
            // Paths are not labels: a probe of many paths makes no new series.
            for index in 0..<5 { _ = try await harness.send(.get, "/probe-\(index)", user: nil) }
            let after = String(decoding: try await harness.send(.get, "/metrics", user: "admin").body, as: UTF8.self)
            #expect(!after.contains("probe-"))
            #expect(Self.value(after, "satchel_http_requests_total", ["route": "other", "status": "404"]) == 5)
        } cleanup: {
            await harness.stop()
        }
    }
}
