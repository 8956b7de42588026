import Foundation
import SatchelJSON
import SatchelOData
import SatchelTestSupport
import Testing

/// What SatchelOData reads equals what independent clients read from the same server: pyodata (V2) against
/// mock-sap's GWSAMPLE_BASIC, python-odata (V4) against the odatapy service, through `Tests/Peers/odata_crosscheck.py`.
@Suite("Live: cross-check with pyodata and python-odata")
struct CrossCheckTests {
    /// Runs the cross-check script and parses what it prints.
    static func crossCheck(_ version: String, _ url: URL) async throws -> JSONValue {
        let python = try Peers.python()
        let script = Peers.scriptsFolder.appendingPathComponent("odata_crosscheck.py")
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, version, url.absoluteString]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_PROXY"] = "127.0.0.1,localhost"
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"] { environment.removeValue(forKey: name) }
        process.environment = environment
        let folder = FileManager.default.temporaryDirectory
        let outFile = folder.appendingPathComponent("satchel-crosscheck-\(UUID()).out")
        let errFile = folder.appendingPathComponent("satchel-crosscheck-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning {
            process.terminate()
            Issue.record("odata_crosscheck.py \(version) did not finish within 120 s")
        }
        let errors = String(decoding: (try? Data(contentsOf: errFile)) ?? Data(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "odata_crosscheck.py \(version) failed: \(errors.suffix(3000))")
        return try JSONValue(parsing: try Data(contentsOf: outFile))
    }

    /// Whether a value printed by the script equals SatchelOData's typed value.
    static func same(_ json: JSONValue, _ value: ODataValue?) -> Bool {
        guard let value else { return json.isNull }
        if let text = json["decimal"]?.stringValue { return Decimal(string: text) == value.decimalValue }
        if let millis = json["epochMillis"]?.int64Value {
            guard let date = value.dateValue else { return false }
            return Int64((date.timeIntervalSince1970 * 1000).rounded()) == millis
        }
        if let text = json["date"]?.stringValue { return value == .date(text) }
        switch value {
        case .decimal(let decimal): return json.stringValue.flatMap { Decimal(string: $0) } == decimal
        case .int(let number): return json.int64Value == number
        case .guid(let uuid): return json.stringValue?.lowercased() == uuid.uuidString.lowercased()
        case .date(let text): return json.stringValue == text
        default: return json.stringValue != nil && json.stringValue == value.stringValue
        }
    }

    static func expectSame(
        _ json: JSONValue, _ entity: ODataEntity, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for key in json.objectValue?.keys ?? [] {
            let expected = json[key] ?? .null
            #expect(
                same(expected, entity[key]),
                "\(what).\(key): peer read \(expected), Satchel \(String(describing: entity[key]))",
                sourceLocation: sourceLocation)
        }
    }

    @Test func pyodataV2ReadsTheSame() async throws {
        let server = try await LivePeers.mockSAPReadOnly.value
        let url = server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP")
        let peer = try await Self.crossCheck("v2", url)
        #expect(peer["client"]?.stringValue == "pyodata")
        let service = LivePeers.sapV2(server, "GWSAMPLE_BASIC", namespace: "IWBEP", auth: [])
        let products = try await service.entities("ProductSet", query: ODataQuery().orderBy("ProductID")).collect()
        let peerProducts = try #require(peer["products"]?.arrayValue)
        #expect(peerProducts.count == products.count)
        #expect(peerProducts.count > 3)
        for (json, product) in zip(peerProducts, products) {
            Self.expectSame(json, product, "ProductSet('\(product["ProductID"]?.stringValue ?? "?")')")
        }
        let line = try #require(peer["line"])
        let key: ODataKey = [
            "SalesOrderID": .string(line["SalesOrderID"]?.stringValue ?? ""),
            "ItemPosition": .string(line["ItemPosition"]?.stringValue ?? ""),
        ]
        let entity = try await service.entity("SalesOrderLineItemSet", key: key)
        Self.expectSame(line, entity, "SalesOrderLineItemSet")
        #expect(peer["lineCount"]?.int64Value == (try await service.count("SalesOrderLineItemSet")))
    }

    @Test func pythonODataV4ReadsTheSame() async throws {
        let server = try await LivePeers.odataPyReadOnly.value
        let peer = try await Self.crossCheck("v4", server.serviceURL)
        #expect(peer["client"]?.stringValue == "python-odata")
        let service = LivePeers.shop(server, pageSize: 8)
        let products = try await service.entities(
            "Products", query: ODataQuery().filter(.property("ID") <= 30).orderBy("ID")
        ).collect()
        let peerProducts = try #require(peer["products"]?.arrayValue)
        #expect(peerProducts.count == 30)
        #expect(products.count == 30)
        for (json, product) in zip(peerProducts, products) {
            Self.expectSame(json, product, "Products(\(product["ID"]?.intValue ?? -1))")
        }
        let order = try await service.entity("Orders", key: 3)
        Self.expectSame(try #require(peer["order"]), order, "Orders(3)")
    }
}
