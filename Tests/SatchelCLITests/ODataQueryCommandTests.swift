import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel odata query|get|count` against odatapy.
    @Suite struct ODataQueryCommandTests {
        @Test func queryGetCount() async throws {
            let server = try await ODataPyServer.start(maxPageSize: 20, timeout: .seconds(60))
            defer { server.stop() }
            let url = server.serviceURL.absoluteString
            let query = try await SatchelProcess.run([
                "odata", "query", url, "Products", "--filter", "Price gt 50 and CategoryID eq 2", "--orderby",
                "Price desc", "--top", "3", "--select", "ID,Price",
            ])
            #expect(query.status == 0, "\(query.stderr)")
            let lines = query.stdoutText.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.contains("\"ID\"") && !$0.contains("\"Name\"") })

            // Next links are followed: 250 products in pages of 20.
            let all = try await SatchelProcess.run(["odata", "query", url, "Products", "--select", "ID"])
            #expect(all.stdoutText.split(separator: "\n").count == 250)

            let get = try await SatchelProcess.run(["odata", "get", url, "Products", "7"])
            #expect(get.status == 0 && get.stdoutText.contains("\"ID\":7"), "\(get.stdoutText) \(get.stderr)")
            let count = try await SatchelProcess.run(["odata", "count", url, "Products", "--filter", "CategoryID eq 1"])
            #expect(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "50")

            let missing = try await SatchelProcess.run(["odata", "get", url, "Products", "99999"])
            #expect(missing.status == 5, "\(missing.stderr)")
            let badFilter = try await SatchelProcess.run(["odata", "count", url, "Products", "--filter", "Price gt"])
            #expect(badFilter.status == 2, "\(badFilter.stderr)")

            // Writes.
            let create = try await SatchelProcess.run(
                [
                    "odata", "create", url, "Products", "--json",
                    #"{"ID": 8100, "Name": "from the shell", "CategoryID": 1}"#,
                ])
            #expect(create.status == 0 && create.stdoutText.contains("from the shell"), "\(create.stderr)")
            let current = try await SatchelProcess.run(["odata", "get", url, "Products", "8100"])
            #expect(current.stdoutText.contains("\"Name\":\"from the shell\""))
            let update = try await SatchelProcess.run(
                ["odata", "update", url, "Products", "8100", "--json", #"{"Stock": 12}"#, "--if-match", "*"])
            #expect(update.status == 0, "\(update.stderr)")
            let stale = try await SatchelProcess.run(
                ["odata", "update", url, "Products", "8100", "--json", #"{"Stock": 13}"#, "--if-match", #"W/"0""#])
            #expect(stale.status == 6, "\(stale.stderr)")
            let delete = try await SatchelProcess.run(["odata", "delete", url, "Products", "8100", "--if-match", "*"])
            #expect(delete.status == 0, "\(delete.stderr)")
            let gone = try await SatchelProcess.run(["odata", "get", url, "Products", "8100"])
            #expect(gone.status == 5)

            // An operation: TotalStock, a function of the peer.
            let total = try await SatchelProcess.run(["odata", "call", url, "TotalStock"])
            #expect(total.status == 0, "\(total.stderr)")
            #expect(Int(total.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "\(total.stdoutText)")
            let byCategory = try await SatchelProcess.run(
                ["odata", "call", url, "ProductsByCategory", "--param", "CategoryID=2"])
            #expect(byCategory.status == 0, "\(byCategory.stderr)")
            #expect(byCategory.stdoutText.contains("\"CategoryID\":2"), "\(byCategory.stdoutText.prefix(300))")
        }
    }
}
