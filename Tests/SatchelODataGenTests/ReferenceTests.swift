import Foundation
import SatchelOData
import SatchelODataGen
import Testing

/// Generated code for committed `$metadata` fixtures, diffed against committed files in `Expected/`.
/// Regenerate them with `SATCHEL_UPDATE_EXPECTED=1 swift test --filter SatchelODataGenTests`.
@Suite("Proxy generator reference files")
struct ReferenceTests {
    static let fixtures = ["gwsample-basic", "mock-sap-v4-salesorder", "v2-gateway", "v4-people"]

    static func metadata(_ name: String) throws -> ODataMetadata {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "odata.xml", subdirectory: "Fixtures"))
        return try ODataMetadata.parse(data: Data(contentsOf: url))
    }

    static let expectedDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Expected")

    @Test(arguments: fixtures)
    func generatedCodeMatchesExpected(_ name: String) throws {
        let output = ProxyGenerator(metadata: try Self.metadata(name), options: .init(fileName: name)).generate()
        let file = try #require(output.files.first)
        #expect(output.files.count == 1 && file.name == name + ".swift")
        let expectedURL = Self.expectedDirectory.appendingPathComponent(file.name)
        if ProcessInfo.processInfo.environment["SATCHEL_UPDATE_EXPECTED"] == "1" {
            try Data(file.contents.utf8).write(to: expectedURL)
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(file.contents == expected, "\(name): regenerate with SATCHEL_UPDATE_EXPECTED=1 and review the diff")
    }

    /// Document order does not matter: the output is sorted.
    @Test(arguments: fixtures)
    func outputDoesNotDependOnDocumentOrder(_ name: String) throws {
        let metadata = try Self.metadata(name)
        var shuffled = metadata
        for index in shuffled.schemas.indices {
            shuffled.schemas[index].entityTypes.reverse()
            shuffled.schemas[index].complexTypes.reverse()
            shuffled.schemas[index].enumTypes.reverse()
            for container in shuffled.schemas[index].entityContainers.indices {
                shuffled.schemas[index].entityContainers[container].entitySets.reverse()
                shuffled.schemas[index].entityContainers[container].operationImports.reverse()
            }
        }
        #expect(ProxyGenerator(metadata: shuffled).generate() == ProxyGenerator(metadata: metadata).generate())
    }

    @Test func optionsChangeAccessPrefixAndFileName() throws {
        let options = ProxyGenerator.Options(access: .internal, typePrefix: "GW", fileName: "Sample")
        let output = ProxyGenerator(metadata: try Self.metadata("gwsample-basic"), options: options).generate()
        let file = try #require(output.files.first)
        #expect(file.name == "Sample.swift")
        #expect(file.contents.contains("\nstruct GWProduct: Codable, Sendable, Equatable, ODataEntityProxy {"))
        #expect(file.contents.contains("\nstruct GWGWSAMPLEBASICEntitiesService: Sendable {"))
        #expect(!file.contents.contains("public "))
    }

    @Test func unsupportedPartsBecomeDiagnostics() throws {
        let output = ProxyGenerator(metadata: try Self.metadata("v4-people")).generate()
        let messages = output.diagnostics.map(\.description)
        #expect(messages.contains { $0.contains("bound function GetFavoriteAirline is not generated") })
        #expect(messages.contains { $0.contains("bound action ShareTrip is not generated") })
        #expect(messages.contains { $0.contains("Edm.Stream") && $0.contains("Property(Photo)") })
        let text = try #require(output.files.first).contents
        #expect(text.contains("// Not generated: Satchel.Trippin.ShareTrip"))
        #expect(text.contains("public func getNearestAirport(lat: Double, lon: Double) async throws -> ODataValue"))
    }
}
