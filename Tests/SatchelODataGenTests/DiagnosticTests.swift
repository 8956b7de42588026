import Foundation
import SatchelOData
import SatchelODataGen
import Testing

/// Metadata the generator had not met before: what it generates and what it says.
@Suite("Proxy generator on unusual metadata")
struct DiagnosticTests {
    static let v4 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Test.Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Note" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Loose">
                <Key><PropertyRef Name="Code"/></Key>
                <Property Name="Code" Type="Edm.String"/>
              </EntityType>
              <Action Name="Submit"><Parameter Name="order" Type="Test.Shop.Order" Nullable="false"/></Action>
              <Action Name="Approve" IsBound="true"><Parameter Name="order" Type="Test.Shop.Order"/></Action>
              <EntityContainer Name="Shop">
                <EntitySet Name="Orders" EntityType="Test.Shop.Order"/>
                <EntitySet Name="Looses" EntityType="Test.Shop.Loose"/>
                <ActionImport Name="Submit" Action="Test.Shop.Submit"/>
                <ActionImport Name="ApproveIt" Action="Test.Shop.Approve"/>
                <ActionImport Name="Missing" Action="Test.Shop.NotThere"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static let v2 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
            xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
          <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="Test.Old" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Item">
                <Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.String" Nullable="false"/>
                <Property Name="Tags" Type="Edm.String" CollectionKind="List"/>
              </EntityType>
              <EntityContainer Name="Old" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Items" EntityType="Test.Old.Item"/>
                <FunctionImport Name="Touch" ReturnType="Edm.Boolean" m:HttpMethod="POST">
                  <Parameter Name="ID" Type="Edm.String"/>
                </FunctionImport>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static func generate(_ text: String) throws -> ProxyGenerator.Output {
        ProxyGenerator(metadata: try ODataMetadata.parse(data: Data(text.utf8)), options: .init(fileName: "T"))
            .generate()
    }

    @Test func entityParametersNullableKeysAndImportsOfNothing() throws {
        let output = try Self.generate(Self.v4)
        let code = try #require(output.files.first?.contents)
        let messages = output.diagnostics.map(\.message)
        // An action taking an entity of the service: typed, no "unknown type" warning.
        #expect(code.contains("func submit(order: Order)"), "\(code)")
        #expect(!messages.contains { $0.contains("unknown type") }, "\(messages)")
        #expect(code.contains("kind: .action"))
        // A nullable key part: said, and no entityKey.
        #expect(messages.contains { $0.contains("key property Code is nullable") }, "\(messages)")
        // Imports of a missing and of a bound action: each said for what it is.
        #expect(messages.contains { $0.contains("NotThere, which no schema declares") }, "\(messages)")
        #expect(messages.contains { $0.contains("Approve, which is bound") }, "\(messages)")
        #expect(!messages.contains { $0.contains("0 overloads") })
        // Every line fits the project's 120 columns.
        #expect(code.split(separator: "\n").allSatisfy { $0.count <= 120 })
    }

    @Test func v2CollectionKindAndTheMethodOfAnImport() throws {
        let metadata = try ODataMetadata.parse(data: Data(Self.v2.utf8))
        let tags = try #require(metadata.entityType(named: "Test.Old.Item")?.properties.first { $0.name == "Tags" })
        #expect(tags.type.isCollection)
        let code = try #require(try Self.generate(Self.v2).files.first?.contents)
        #expect(code.contains("var tags: [String]?"), "\(code)")
        #expect(code.contains("httpMethod: \"POST\")"), "\(code)")
    }
}
