import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

/// Attacks on `satchel serve`, one suite per kind of attack (the extensions in this folder). Each test performs the
/// attack against a live server, asserts the exact answer, and checks that nothing changed or leaked.
@Suite("Attacks on satchel serve")
struct Attacks {}

extension ServerHarness {
    /// A client session of `user` on the shared repository (or another), over either binding; MyDocuments
    /// sessions send the XSRF token.
    func session(
        _ user: String, binding: SessionParameters.Binding, repository: String = "shared"
    ) async throws -> CMISSession {
        let path = binding == .browser ? "/cmis/browser" : "/cmis/atom"
        return try await CMISSession.connect(
            SessionParameters(
                binding: binding, url: url(path), repositoryId: repository,
                auth: [BasicAuth(user: user, password: "pw-\(user)")],
                tokenHeader: repository == "shared" ? nil : "X-CSRF-Token"))
    }
}

/// The CMIS error code (and HTTP status) `body` fails with, or nil when it succeeds.
func failure(_ body: () async throws -> Void) async -> (code: CMISError.Code, status: Int?)? {
    do {
        try await body()
        return nil
    } catch let error as CMISError {
        return (error.code, error.status)
    } catch {
        return (.runtime, nil)
    }
}
