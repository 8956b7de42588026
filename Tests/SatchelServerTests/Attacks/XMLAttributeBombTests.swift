import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// An authenticated client posts an Atom entry whose parse costs the square of its size (100,000 attributes
    /// took 3.2 s of a core, 400,000 took 47 s), or one much larger than any entry's metadata needs.
    @Suite("XML entries that cost the server")
    struct XMLEntryCost {
        static func entry(attributes: Int = 0, padding: Int = 0) -> Data {
            var text = #"<?xml version="1.0" encoding="UTF-8"?><atom:entry xmlns:atom="http://www.w3.org/2005/Atom" "#
            text += #"xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/" "#
            text += #"xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/""#
            for index in 0..<attributes { text += " a\(index)=\"\"" }
            text += "><atom:title>x</atom:title>"
            text += String(repeating: " ", count: padding)
            text += #"<cmisra:object><cmis:properties><cmis:propertyId propertyDefinitionId="cmis:objectTypeId">"#
            text += #"<cmis:value>cmis:folder</cmis:value></cmis:propertyId>"#
            text += #"<cmis:propertyString propertyDefinitionId="cmis:name"><cmis:value>bomb</cmis:value>"#
            text += "</cmis:propertyString></cmis:properties></cmisra:object></atom:entry>"
            return Data(text.utf8)
        }

        @Test func attributeBombsAndOversizedMetadataAreRefused() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let session = try await harness.session("alice", binding: .atomPub)
                let root = session.repositoryInfo.rootFolderId
                func post(_ body: Data) async throws -> HTTPClient.Response {
                    try await harness.send(
                        .post, "/cmis/atom/shared/children?id=\(root)",
                        body: .data(body, contentType: "application/atom+xml;type=entry"))
                }
                let bomb = try await post(Self.entry(attributes: 100_000))
                let text = String(decoding: bomb.body, as: UTF8.self)
                #expect(bomb.status == 400, "\(text.prefix(300))")
                #expect(text.contains("attributes"), "\(text.prefix(300))")
                // Metadata past the limit (4 MiB by default) is refused whole, though the entry limit leaves room for
                // inline content.
                let large = try await post(Self.entry(padding: 5 << 20))
                #expect(large.status == 413)
                // Neither made a folder; an ordinary entry still does.
                #expect(try await post(Self.entry()).status == 201)
                let children = try await session.childrenPage(of: root, maxItems: 100)
                #expect(children.objects.filter { $0.object.name == "bomb" }.count == 1)
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
