import Foundation
import HTTPTypes
import Hummingbird
import SatchelTestSupport
import Synchronization

/// The benchmark's back-end: an OData V4 service of `rows` products on a loopback port, 1,000 per page, **without
/// delta support** (a `Prefer: odata.track-changes` is ignored), so that a client that wants what changed must
/// read everything again unless a middle tier tracks changes for it. Counts the reads of the set's first page and
/// the bytes it sends.
final class Backend: Sendable {
    let rows: Int
    static let pageSize = 1000
    /// The generation of each changed row (a row changed twice gets a new name each time).
    private let changed = Mutex<[Int: Int]>([:])
    private let firstPageReads = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let server = Mutex<TestHTTPServer?>(nil)

    var serviceURL: URL { server.withLock { $0! }.url("/odata/") }
    /// Reads of the product set from its start (not counting the later pages of one read).
    var reads: Int { firstPageReads.load(ordering: .relaxed) }
    var bytesSent: Int { bytes.load(ordering: .relaxed) }

    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Bench">
              <EntityType Name="Product">
                <Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Name" Type="Edm.String" Nullable="false"/>
                <Property Name="Description" Type="Edm.String"/>
                <Property Name="Price" Type="Edm.Double" Nullable="false"/>
                <Property Name="Stock" Type="Edm.Int32" Nullable="false"/>
              </EntityType>
              <EntityContainer Name="BenchContainer">
                <EntitySet Name="Products" EntityType="Bench.Product"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    init(rows: Int) { self.rows = rows }

    func start() async throws {
        let started = try await TestHTTPServer.start { router in
            router.get("/odata/$metadata") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/xml", HTTPField.Name("OData-Version")!: "4.0"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.metadata)))
            }
            router.get("/odata/Products") { [self] request, _ in
                let skip = request.uri.queryParameters.get("$skiptoken").flatMap { Int($0) } ?? 0
                if skip == 0 { firstPageReads.add(1, ordering: .relaxed) }
                let body = page(from: skip)
                bytes.add(body.count, ordering: .relaxed)
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json", HTTPField.Name("OData-Version")!: "4.0"],
                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        server.withLock { $0 = started }
    }

    func stop() async { await server.withLock { $0! }.stop() }

    /// Changes the names of `count` rows spread over the set.
    func change(_ count: Int) {
        changed.withLock { changed in
            for index in 0..<count {
                let id = 1 + (index * (rows / count)) % rows
                changed[id, default: 0] += 1
            }
        }
    }

    private func page(from skip: Int) -> [UInt8] {
        let end = min(rows, skip + Self.pageSize)
        let generations = changed.withLock { $0 }
        var text = #"{"@odata.context":"\#(serviceURL.absoluteString)$metadata#Products","value":["#
        for id in (skip + 1)...max(skip + 1, end) where id <= end {
            if id > skip + 1 { text += "," }
            let generation = generations[id].map { " (changed \($0))" } ?? ""
            text += #"{"ID":\#(id),"Name":"Product \#(id)\#(generation)","#
            text += #""Description":"A product of the benchmark's catalogue, number \#(id)","#
            text += #""Price":\#(Double(id % 997) + 0.5),"Stock":\#(id % 100)}"#
        }
        text += "]"
        if end < rows { text += #","@odata.nextLink":"\#(serviceURL.absoluteString)Products?$skiptoken=\#(end)""# }
        text += "}"
        return Array(text.utf8)
    }
}
