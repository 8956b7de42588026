import Foundation
import SatchelCMISCore
import Testing

/// The same repository (A1) over both bindings must give the same model values.
@Suite("AtomPub binding: parity with the Browser binding")
struct AtomPubParityTests {
    /// OpenCMIS InMemory sends cmis:contentStreamId as `cmis:propertyString` over AtomPub but as type "id" over
    /// the Browser binding (the spec says id); its value (none here) agrees. Every other difference is a bug.
    static let knownDifferences = ["cmis:contentStreamId: type string ≠ id"]

    /// Datetimes compared at millisecond precision (AtomPub sends ISO 8601, Browser epoch milliseconds).
    static func normalized(_ values: [PropertyValue]) -> [PropertyValue] {
        values.map { value in
            if case .datetime(let date) = value {
                return .datetime(Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000))
            }
            return value
        }
    }

    /// Differences between the `cmis:` properties two objects both carry, as readable lines.
    static func differences(_ atom: CMISObject, _ browser: CMISObject) -> [String] {
        var found: [String] = []
        for property in atom.properties where property.id.hasPrefix("cmis:") {
            guard let other = browser.properties[property.id] else {
                found.append("\(property.id): only in AtomPub")
                continue
            }
            if property.type != other.type { found.append("\(property.id): type \(property.type) ≠ \(other.type)") }
            if property.cardinality != other.cardinality {
                found.append("\(property.id): cardinality \(property.cardinality) ≠ \(other.cardinality)")
            }
            if normalized(property.values) != normalized(other.values) {
                found.append("\(property.id): \(property.values) ≠ \(other.values)")
            }
            if property.displayName != other.displayName || property.queryName != other.queryName
                || property.localName != other.localName
            {
                found.append("\(property.id): names differ")
            }
        }
        for property in browser.properties where property.id.hasPrefix("cmis:") && atom.properties[property.id] == nil {
            found.append("\(property.id): only in Browser")
        }
        return found
    }

    @Test("document 133: AtomPub entry vs Browser object")
    func document() throws {
        let atom = try AtomPubParser.object(Fixture.data("atompub-document-entry.xml"))
        let browser = try BrowserParser.object(Fixture.data("browser-object-document.json"))
        #expect(Self.differences(atom, browser) == Self.knownDifferences)
        // Custom properties agree too, in the same order.
        #expect(atom.properties.ids == browser.properties.ids)
        #expect(atom.properties["PickListProp"] == browser.properties["PickListProp"])
        #expect(
            atom.extensions.first(named: "exampleExtension")?.children.map(\.value)
                == browser.extensions.first(named: "exampleExtension")?.children.map(\.value))
    }

    @Test("root children: the AtomPub page (2 entries) vs the Browser page (3 objects)")
    func children() throws {
        let atom = try AtomPubParser.children(Fixture.data("atompub-children-feed.xml"))
        let browser = try BrowserParser.children(Fixture.data("browser-children.json"))
        #expect(atom.numItems == browser.numItems)
        #expect(atom.hasMoreItems == browser.hasMoreItems)
        let browserById = Dictionary(uniqueKeysWithValues: browser.objects.map { ($0.object.id ?? "", $0.object) })
        #expect(atom.objects.count == 2)
        for item in atom.objects {
            let other = try #require(browserById[item.object.id ?? ""])
            #expect(Self.differences(item.object, other) == Self.knownDifferences, "object \(item.object.id ?? "?")")
        }
    }

    @Test("repository A1: service document vs Browser repository infos")
    func repositoryInfo() throws {
        let atom = try #require(AtomPubParser.repositoryInfos(Fixture.data("atompub-service-document.xml")).first)
        let browser = try #require(BrowserParser.repositoryInfos(Fixture.data("browser-repositories.json")).first)
        #expect(atom.id == browser.id)
        #expect(atom.name == browser.name)
        #expect(atom.description == browser.description)
        #expect(atom.vendorName == browser.vendorName)
        #expect(atom.productName == browser.productName)
        #expect(atom.productVersion == browser.productVersion)
        #expect(atom.rootFolderId == browser.rootFolderId)
        #expect(atom.cmisVersionSupported == browser.cmisVersionSupported)
        #expect(atom.thinClientURI == browser.thinClientURI)
        #expect(atom.changesIncomplete == browser.changesIncomplete)
        #expect(atom.changesOnType == browser.changesOnType)
        #expect(atom.principalIdAnonymous == browser.principalIdAnonymous)
        #expect(atom.principalIdAnyone == browser.principalIdAnyone)
        #expect(atom.capabilities == browser.capabilities)
        #expect(atom.aclCapabilities == browser.aclCapabilities)
    }
}
