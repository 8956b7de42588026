import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// The shared root once granted `cmis:anyone: cmis:all`, so any user could rewrite its ACL and lock everyone
    /// else out. Every user may read and write there; only an administrator (from the users file) changes it.
    @Suite("Locking everyone out of the shared repository")
    struct SharedRootLockout {
        @Test(arguments: SessionParameters.Binding.allCases)
        func aUserCannotRewriteTheRootACL(binding: SessionParameters.Binding) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let bob = try await harness.session("bob", binding: binding)
                let alice = try await harness.session("alice", binding: binding)
                let root = bob.repositoryInfo.rootFolderId
                let before = try await bob.acl(of: root)
                #expect(before.aces == [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"], isDirect: true)])

                let lockout = await failure {
                    _ = try await bob.applyACL(
                        to: root, adding: [ACE(principalId: "bob", permissions: ["cmis:all"])],
                        removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                }
                #expect(lockout?.code == .permissionDenied && lockout?.status == 403)
                #expect(try await alice.acl(of: root) == before)
                // Alice still works in the shared repository.
                let folder = try await alice.createFolder(named: "still-mine-\(binding)", in: root)
                #expect(folder.id != nil)
                // Nor can a user take a folder of everybody's over.
                let grab = await failure {
                    _ = try await bob.applyACL(
                        to: try #require(folder.id), adding: [ACE(principalId: "bob", permissions: ["cmis:all"])])
                }
                #expect(grab?.code == .permissionDenied && grab?.status == 403)

                // An administrator may.
                let admin = try await harness.session("admin", binding: binding)
                let changed = try await admin.applyACL(
                    to: root, adding: [ACE(principalId: "alice", permissions: ["cmis:all"])],
                    removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                #expect(changed.aces == [ACE(principalId: "alice", permissions: ["cmis:all"], isDirect: true)])
                #expect(await failure { _ = try await bob.object(id: root) }?.code == .permissionDenied)
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
