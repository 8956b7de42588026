import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// Names that are not what they look like: one "character" of 400 KB (a letter with 200,000 combining marks)
    /// once passed the 255-character limit, and the same name spelled composed and decomposed could sit twice in
    /// one folder. Names are limited in UTF-8 bytes and normalized to NFC before they are stored or looked up.
    @Suite("Names")
    struct Names {
        @Test(arguments: SessionParameters.Binding.allCases)
        func hugeAndDoubleSpelledNamesAreRefused(binding: SessionParameters.Binding) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let alice = try await harness.session("alice", binding: binding)
                let root = alice.repositoryInfo.rootFolderId
                let folder = try #require(try await alice.createFolder(named: "names-\(binding)", in: root).id)

                let monster = "e" + String(repeating: "\u{301}", count: 200_000)
                #expect(monster.count == 1)
                let huge = await failure { _ = try await alice.createDocument(named: monster, in: folder) }
                #expect(huge?.code == .nameConstraintViolation && huge?.status == 409)
                let atLimit = String(repeating: "ä", count: 127) + "a"  // 255 bytes
                #expect(try await alice.createDocument(named: atLimit, in: folder).name == atLimit)
                let overLimit = await failure { _ = try await alice.createDocument(named: atLimit + "b", in: folder) }
                #expect(overLimit?.code == .nameConstraintViolation)

                let composed = "caf\u{E9}.txt"
                let decomposed = "cafe\u{301}.txt"
                #expect(composed.unicodeScalars.count != decomposed.unicodeScalars.count)
                let first = try await alice.createDocument(named: decomposed, in: folder)
                #expect(first.name?.unicodeScalars.elementsEqual(composed.unicodeScalars) == true)
                let twice = await failure { _ = try await alice.createDocument(named: composed, in: folder) }
                #expect(twice?.code == .nameConstraintViolation && twice?.status == 409)
                let renamed = await failure {
                    let other = try await alice.createDocument(named: "other.txt", in: folder)
                    _ = try await alice.rename(try #require(other.id), to: decomposed)
                }
                #expect(renamed?.code == .nameConstraintViolation)
                // Either spelling finds it by path.
                let path = try await alice.object(id: folder).path ?? ""
                #expect(try await alice.object(at: path + "/" + decomposed).id == first.id)
                #expect(try await alice.object(at: path + "/" + composed).id == first.id)
                var children: [String] = []
                for try await child in alice.children(of: folder) { children.append(child.object.name ?? "") }
                #expect(children.count == 3)
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
