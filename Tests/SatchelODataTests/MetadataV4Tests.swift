import Foundation
import Testing

@testable import SatchelOData

@Suite("EDMX V4")
struct MetadataV4Tests {
    let metadata: ODataMetadata

    init() throws {
        metadata = try ODataMetadata.parse(data: try fixture("v4-metadata.xml"))
    }

    @Test func versionReferencesDiagnostics() {
        #expect(metadata.version == .v4)
        #expect(metadata.references.count == 2)
        #expect(metadata.references.first?.includes["Org.OData.Core.V1"] == "Core")
        // The Term definition and the unevaluated If expression are reported, nothing else.
        #expect(metadata.diagnostics.count == 2)
        #expect(metadata.diagnostics.allSatisfy { $0.severity == .note })
    }

    @Test(arguments: [
        ("Budget", EDMPrimitiveType.decimal), ("Concurrency", .int64), ("BirthDay", .date), ("WakeUp", .timeOfDay),
        ("LastSeen", .dateTimeOffset), ("Id", .guid), ("Avatar", .binary), ("Travelled", .duration), ("Age", .byte),
        ("Delta", .sbyte), ("Height", .single), ("Rank", .int16), ("Home", .geography("Point")),
        ("Area", .geometry("Polygon")), ("Photo", .stream),
    ])
    func primitiveProperties(name: String, type: EDMPrimitiveType) throws {
        let person = try #require(metadata.entityType(named: "Satchel.Trippin.Person"))
        #expect(person.property(name)?.type.primitive == type)
        #expect(EDMPrimitiveType(qualifiedName: type.qualifiedName) == type)
    }

    @Test func enumsComplexAndDefinitions() throws {
        let gender = try #require(metadata.enumType(named: "Trip.Gender"))
        #expect(gender.members.map(\.value) == [0, 1, 2] && !gender.isFlags)
        let features = try #require(metadata.enumType(named: "Satchel.Trippin.Features"))
        #expect(features.isFlags && features.underlyingType == .int64 && features.member(named: "Lounge")?.value == 4)
        let airport = try #require(metadata.complexType(named: "Trip.AirportLocation"))
        #expect(airport.baseType == "Satchel.Trippin.Location")
        #expect(metadata.allProperties(of: airport).map(\.name) == ["Address", "Coordinates", "Loc"])
        #expect(metadata.complexType(named: "Trip.Location")?.isOpen == true)
        #expect(metadata.typeDefinition(named: "Trip.Email")?.underlyingType.maxLength == "255")
        let person = try #require(metadata.entityType(named: "Trip.Person"))
        #expect(person.property("Emails")?.type == CSDLTypeReference(name: "Satchel.Trippin.Email", isCollection: true))
        #expect(person.property("Gender")?.type.name == "Satchel.Trippin.Gender")
        #expect(person.property("Budget")?.type.scale == "variable")
    }

    @Test func navigationAndInheritance() throws {
        let person = try #require(metadata.entityType(named: "Trip.Person"))
        let trips = try #require(person.navigationProperty("Trips"))
        #expect(trips.containsTarget && trips.partner == "Traveller" && trips.onDelete == "Cascade")
        #expect(trips.type.isCollection && trips.type.name == "Satchel.Trippin.Trip")
        let traveller = try #require(metadata.entityType(named: "Trip.Trip")?.navigationProperty("Traveller"))
        #expect(traveller.referentialConstraints == [.init(property: "OwnerName", referencedProperty: "UserName")])
        #expect(traveller.type.nullable == false)
        let employee = try #require(metadata.entityType(named: "Trip.Employee"))
        #expect(employee.key.isEmpty && metadata.key(of: employee) == ["UserName"])
        #expect(metadata.allProperties(of: employee).last?.name == "Cost")
        #expect(
            metadata.allNavigationProperties(of: employee).map(\.name) == ["Friends", "BestFriend", "Trips", "Peers"])
        let airport = try #require(metadata.entityType(named: "Trip.Airport"))
        #expect(airport.key == ["Code", "Street"] && airport.keyAliases == ["Street": "Location/Address"])
        #expect(airport.hasStream)
    }

    @Test func operationsAndContainer() throws {
        let favorite = try #require(metadata.operations(named: "Trip.GetFavoriteAirline").first)
        #expect(favorite.kind == .function && favorite.isBound && favorite.entitySetPath == "person")
        #expect(favorite.returnType?.name == "Satchel.Trippin.Airport")
        let share = try #require(metadata.operations(named: "Satchel.Trippin.ShareTrip").first)
        #expect(share.kind == .action && share.parameters.map(\.name) == ["personInstance", "userName", "tripId"])
        #expect(metadata.operations(named: "Trip.GetNearestAirport").first?.isComposable == true)
        let container = try #require(metadata.entityContainer)
        #expect(container.entitySets.map(\.name) == ["People", "Airports"])
        #expect(container.singletons.map(\.name) == ["Me"] && metadata.singleton(named: "Me")?.isSingleton == true)
        #expect(metadata.entitySet(named: "People")?.navigationBindings["Friends"] == "People")
        let nearest = try #require(metadata.operationImport(named: "GetNearestAirport"))
        #expect(nearest.operation == "Satchel.Trippin.GetNearestAirport" && nearest.includeInServiceDocument)
        #expect(metadata.operationImport(named: "ResetDataSource")?.kind == .action)
    }

    @Test func annotations() throws {
        let person = try #require(metadata.entityType(named: "Trip.Person"))
        #expect(person.property("UserName")?.annotations.value(of: "Org.OData.Core.V1.Immutable") == .bool(true))
        #expect(
            person.property("FirstName")?.annotations.value(of: "Org.OData.Core.V1.Description")
                == .string("Given name"))
        guard
            case .record(let type, let properties)? = person.annotations.value(
                of: "com.sap.vocabularies.UI.v1.HeaderInfo")
        else {
            Issue.record("HeaderInfo is not a record")
            return
        }
        #expect(type == "com.sap.vocabularies.UI.v1.HeaderInfoType")
        #expect(properties.first?.value == .string("Person"))
        #expect(
            properties.last?.value
                == .record(
                    type: "com.sap.vocabularies.UI.v1.DataField",
                    properties: [CSDLPropertyValue(property: "Value", value: .path(kind: "Path", value: "UserName"))]))
        let people = try #require(metadata.entitySet(named: "People"))
        #expect(
            people.annotations.value(of: "Org.OData.Core.V1.OptimisticConcurrency")
                == .collection([.path(kind: "PropertyPath", value: "Concurrency")]))
        let lastName = metadata.externalAnnotations(for: "Satchel.Trippin.Person/LastName")
        #expect(lastName.value(of: "Org.OData.Core.V1.Description")?.stringValue == "Family name")
        #expect(lastName.value(of: "com.sap.vocabularies.UI.v1.Hidden") == .bool(false))
        #expect(lastName.value(of: "Org.OData.Core.V1.Computed") == .unsupported(element: "If", text: ""))
        let external = metadata.externalAnnotations(for: "Trip.Container/People")
        #expect(
            external.value(of: "Org.OData.Core.V1.Permissions")
                == .enumMember("Org.OData.Core.V1.Permission/Read Org.OData.Core.V1.Permission/Write"))
        guard case .collection(let revisions)? = external.value(of: "Org.OData.Core.V1.Revisions"),
            case .record(_, let fields)? = revisions.first
        else {
            Issue.record("Revisions is not a collection of records")
            return
        }
        #expect(
            fields.map(\.value) == [.int(3), .enumMember("Org.OData.Core.V1.RevisionKind/Deprecated"), .string("old")])
    }
}
