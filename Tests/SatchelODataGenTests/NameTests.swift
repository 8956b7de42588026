import Foundation
import SatchelOData
import SatchelODataGen
import Testing

@Suite("Swift names for OData names")
struct NameTests {
    @Test(arguments: [
        ("BusinessPartnerID", "businessPartnerID"), ("SO_ID", "soID"), ("ID", "id"), ("URLPath", "urlPath"),
        ("CTAddress", "ctAddress"), ("lat", "lat"), ("ID2", "id2"), ("2ndLine", "_2ndLine"), ("to-do item", "toDoItem"),
        ("default", "`default`"), ("class", "`class`"), ("self", "self_"), ("init", "init_"), ("Type", "type"),
        ("__metadata", "metadata"), ("", "unnamed"),
    ])
    func memberNames(_ name: String, _ expected: String) {
        #expect(SwiftNames.memberName(name) == expected)
    }

    @Test(arguments: [
        ("CT_Address", "CTAddress"), ("GWSAMPLE_BASIC_Entities", "GWSAMPLEBASICEntities"),
        ("api_salesorder", "ApiSalesorder"), ("Person", "Person"), ("3D", "_3D"), ("", "Unnamed"),
    ])
    func typeNames(_ name: String, _ expected: String) {
        #expect(SwiftNames.upperCamel(name) == expected)
    }

    /// Colliding, reserved and keyword names in one entity type and schema.
    @Test func collisionsAndReservedNamesAreResolved() throws {
        var schema = CSDLSchema(namespace: "Test.Names")
        schema.entityTypes = [
            CSDLEntityType(
                name: "Date", namespace: "Test.Names", key: ["default"],
                properties: [
                    CSDLProperty(name: "default", type: .init(name: "Edm.String", nullable: false)),
                    CSDLProperty(name: "Name", type: .init(name: "Edm.String")),
                    CSDLProperty(name: "name", type: .init(name: "Edm.Int32")),
                    CSDLProperty(name: "EntityKey", type: .init(name: "Edm.Boolean")),
                    CSDLProperty(name: "self", type: .init(name: "Edm.Guid")),
                ]),
            CSDLEntityType(
                name: "date", namespace: "Test.Names", key: ["ID"],
                properties: [CSDLProperty(name: "ID", type: .init(name: "Edm.Int64", nullable: false))]),
        ]
        schema.entityContainers = [
            CSDLEntityContainer(
                name: "Names", namespace: "Test.Names",
                entitySets: [
                    CSDLEntitySet(name: "Dates", entityType: "Test.Names.Date"),
                    CSDLEntitySet(name: "dates", entityType: "Test.Names.date"),
                ])
        ]
        let metadata = ODataMetadata(version: .v4, schemas: [schema])
        let text = try #require(ProxyGenerator(metadata: metadata).generate().files.first).contents
        for expected in [
            "public struct NamesDate: Codable", "public struct NamesDate2: Codable", "public var `default`: String",
            "public var name: String?", "public var name2: Int32?", "public var entityKey2: Bool?",
            "public var self_: UUID?", "case `default` = \"default\"", "case name2 = \"name\"",
            "public var dates: ODataTypedCollection<NamesDate>", "public var dates2: ODataTypedCollection<NamesDate2>",
            "public struct NamesService: Sendable",
        ] {
            #expect(text.contains(expected), "missing: \(expected)")
        }
    }

    @Test(arguments: [
        (["--metadata", "a.xml"], "--metadata and --output are required"),
        (["--metadata", "a.xml", "--output", "x", "--access", "open"], "--access is public or internal"),
        (["--bogus"], "unknown argument --bogus"), (["--metadata"], "--metadata needs a value"),
    ])
    func commandLineErrors(_ arguments: [String], _ message: String) {
        #expect(throws: GeneratorError.self) { try GeneratorCommandLine(arguments: arguments) }
        do {
            _ = try GeneratorCommandLine(arguments: arguments)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func commandLineWritesTheFileOnlyWhenItChanges() throws {
        let fixture = try #require(
            Bundle.module.url(forResource: "v2-gateway", withExtension: "odata.xml", subdirectory: "Fixtures"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("odata-gen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("Admissions.swift")
        let commandLine = try GeneratorCommandLine(arguments: [
            "--metadata", fixture.path, "--output", output.path, "--prefix", "Adm",
        ])
        _ = try commandLine.run()
        let first = try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("public struct AdmStudent: Codable"))
        Thread.sleep(forTimeInterval: 0.05)
        _ = try commandLine.run()
        let second = try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date
        #expect(first != nil && first == second)
    }
}
