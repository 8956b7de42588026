import Foundation
public import SatchelHTTP

/// What a token lets its holder do.
public enum NuxeoTokenPermission: String, Sendable, Hashable {
    /// Read only (`r`).
    case read = "r"
    /// Read and write (`rw`).
    case readWrite = "rw"
}

extension NuxeoSession {
    /// Acquires a token (`authentication/token`) for this application on this device, with the session's password
    /// credentials. Keep it where the app keeps secrets (an encrypted store, the keychain), never in plain
    /// preferences, and connect with ``tokenAuth(_:)`` from then on.
    ///
    /// ```swift
    /// let token = try await session.acquireToken(application: "Field app", device: deviceID)
    /// let tokenSession = NuxeoSession(configuration: .init(serverURL: url, auth: [NuxeoSession.tokenAuth(token)]))
    /// ```
    public func acquireToken(
        application: String, device: String, deviceDescription: String? = nil,
        permission: NuxeoTokenPermission = .readWrite
    ) async throws -> String {
        var request = NuxeoRequest.site("authentication", "token").query("applicationName", application)
            .query("deviceId", device).query("permission", permission.rawValue)
        if let deviceDescription { request = request.query("deviceDescription", deviceDescription) }
        let response = try await send(request.header("Accept", "text/plain"))
        let token = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // A login page or a proxy's answer is not a token.
        guard !token.isEmpty, token.utf8.count <= 256,
            token.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "<" && $0 != "{" })
        else {
            throw NuxeoError(
                .invalidResponse, "authentication/token answered something that is not a token",
                status: response.status, operation: "GET authentication/token")
        }
        return token
    }

    /// Revokes the token of this application on this device.
    public func revokeToken(application: String, device: String) async throws {
        _ = try await send(
            NuxeoRequest.site("authentication", "token").query("applicationName", application)
                .query("deviceId", device).query("revoke", "true").header("Accept", "text/plain"))
    }

    /// The auth provider that sends a token (`X-Authentication-Token`).
    public static func tokenAuth(_ token: String) -> HeaderTokenAuth {
        HeaderTokenAuth(headerName: "X-Authentication-Token", token: token)
    }
}
