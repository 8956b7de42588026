import Foundation
import Testing

@testable import SatchelOData

@Suite("EDMX V2 (SAP Gateway)")
struct MetadataV2Tests {
    let metadata: ODataMetadata

    init() throws {
        metadata = try ODataMetadata.parse(data: try fixture("v2-gateway-metadata.xml"))
    }

    @Test func versionAndDiagnostics() {
        #expect(metadata.version == .v2)
        #expect(metadata.versionText == "2.0")
        // The atom:link in the schema is the only thing skipped.
        #expect(metadata.diagnostics.count == 1)
        #expect(metadata.diagnostics.first?.message.contains("link") == true)
        #expect(metadata.schemas.first?.annotations.value(of: "sap:schema-version")?.stringValue == "1")
    }

    @Test(arguments: [
        ("StudentId", EDMPrimitiveType.string), ("Gpa", .decimal), ("ApplicationCount", .int64), ("Rank", .int32),
        ("Score", .double), ("Active", .boolean), ("BirthDate", .dateTime), ("ChangedAt", .dateTimeOffset),
        ("VisitTime", .time), ("Guid", .guid), ("Photo", .binary),
    ])
    func primitiveProperties(name: String, type: EDMPrimitiveType) throws {
        let student = try #require(metadata.entityType(named: "ZADMISSIONS_SRV.Student"))
        #expect(student.property(name)?.type.primitive == type)
    }

    @Test func entityTypeDetails() throws {
        let student = try #require(metadata.entityType(ofSet: "StudentSet"))
        #expect(student.key == ["StudentId"])
        #expect(student.annotations.value(of: "sap:label")?.stringValue == "Prospective student")
        let id = try #require(student.property("StudentId"))
        #expect(id.type.nullable == false && id.type.maxLength == "10")
        #expect(id.annotations.value(of: "sap:creatable")?.stringValue == "false")
        let gpa = try #require(student.property("Gpa"))
        #expect(gpa.type.precision == 4 && gpa.type.scale == "2")
        #expect(student.property("ChangedAt")?.isConcurrencyToken == true)
        #expect(student.property("Address")?.type.name == "ZADMISSIONS_SRV.Address")
        #expect(metadata.complexType(named: "ZADMISSIONS_SRV.Address")?.properties.count == 3)
        #expect(metadata.entityType(named: "ZADMISSIONS_SRV.Visit")?.key == ["StudentId", "VisitNo"])
        #expect(metadata.entityType(named: "ZADMISSIONS_SRV.Attachment")?.hasStream == true)
    }

    @Test func associationsResolved() throws {
        let student = try #require(metadata.entityType(named: "ZADMISSIONS_SRV.Student"))
        let school = try #require(student.navigationProperty("School"))
        #expect(school.type.name == "ZADMISSIONS_SRV.School")
        #expect(school.type.isCollection == false)
        #expect(school.partner == "Students")
        #expect(school.referentialConstraints == [.init(property: "SchoolId", referencedProperty: "SchoolId")])
        let visits = try #require(student.navigationProperty("Visits"))
        #expect(visits.type == CSDLTypeReference(name: "ZADMISSIONS_SRV.Visit", isCollection: true, nullable: true))
        #expect(visits.onDelete == "Cascade")
        let students = try #require(
            metadata.entityType(named: "ZADMISSIONS_SRV.School")?.navigationProperty("Students"))
        #expect(students.type.isCollection && students.partner == "School")
        #expect(students.referentialConstraints.isEmpty)
    }

    @Test func containerAndImports() throws {
        let container = try #require(metadata.entityContainer)
        #expect(container.isDefault)
        #expect(
            container.entitySets.map(\.name) == ["StudentSet", "SchoolSet", "VisitSet", "StateSet", "AttachmentSet"])
        #expect(container.associationSets.count == 2)
        let students = try #require(metadata.entitySet(named: "StudentSet"))
        #expect(students.navigationBindings == ["School": "SchoolSet", "Visits": "VisitSet"])
        #expect(metadata.entitySet(named: "SchoolSet")?.annotations.value(of: "sap:creatable")?.stringValue == "false")
        let approve = try #require(metadata.operationImport(named: "ApproveStudent"))
        #expect(approve.kind == .action && approve.httpMethod == "POST")
        #expect(approve.parameters.map(\.name) == ["StudentId", "Comment"])
        #expect(approve.returnType?.name == "ZADMISSIONS_SRV.Student" && approve.entitySet == "StudentSet")
        let count = try #require(metadata.operationImport(named: "CountByState"))
        #expect(count.kind == .function && count.returnType?.primitive == .int32)
    }
}
