import Foundation
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Testing

/// The real OData peers the live suites run against, one process per configuration for the whole test run (each
/// started on first use; a lifeline stops them when the test process ends). A missing peer fails the tests with
/// the command that installs it.
enum LivePeers {
    /// Generous: the peers start in a second or two, but the test run loads both cores.
    static let startTimeout: Duration = .seconds(60)
    /// mock-sap with its defaults (CSRF required, sap-client 100, the demo data of seed 42).
    static let mockSAP = Task { try await MockSAPServer.start(.init(seed: 42), timeout: startTimeout) }
    /// mock-sap without CSRF and with basic authentication.
    static let mockSAPWithAuth = Task {
        try await MockSAPServer.start(
            .init(csrf: false, basicAuth: (user: "satchel", password: "s3cret")), timeout: startTimeout)
    }
    /// mock-sap answering every request with a 500.
    static let mockSAPFailing = Task {
        try await MockSAPServer.start(.init(csrf: false, errorRate: 1.0), timeout: startTimeout)
    }
    /// The odatapy V4 service with a page size of 20.
    static let odataPy = Task { try await ODataPyServer.start(maxPageSize: 20, timeout: startTimeout) }
    /// Untouched peers for the cross-check with other clients (no other suite writes to them).
    static let mockSAPReadOnly = Task { try await MockSAPServer.start(.init(csrf: false), timeout: startTimeout) }
    static let odataPyReadOnly = Task { try await ODataPyServer.start(maxPageSize: 20, timeout: startTimeout) }

    /// A V2 service on mock-sap: `sap/<name>` or `IWBEP/GWSAMPLE_BASIC`.
    static func sapV2(
        _ server: MockSAPServer, _ name: String, namespace: String = "sap", pageSize: Int? = nil,
        auth: [any HTTPAuthProvider] = [CSRFTokenAuth()]
    ) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: server.serviceURL(name, namespace: namespace), sapClient: "100", pageSize: pageSize,
                http: http, auth: auth))
    }

    /// A V4 service on mock-sap (`api_salesorder` …).
    static func sapV4(_ server: MockSAPServer, _ name: String, pageSize: Int? = nil) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: server.v4ServiceURL(name), sapClient: "100", pageSize: pageSize, http: http,
                auth: [CSRFTokenAuth()]))
    }

    /// The odatapy service.
    static func shop(_ server: ODataPyServer, pageSize: Int? = nil) -> ODataService {
        ODataService(configuration: .init(serviceURL: server.serviceURL, pageSize: pageSize, http: http))
    }

    /// No retries (a failure must show at once), a timeout long enough for a loaded two-core machine.
    static var http: HTTPClient.Configuration {
        HTTPClient.Configuration(timeout: .seconds(60), retry: .never)
    }

    /// Runs `operation`, which must throw an ``ODataError``, and returns it.
    static func odataError(
        _ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> ODataError? {
        do {
            try await operation()
            Issue.record("expected an ODataError, the call succeeded", sourceLocation: sourceLocation)
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            Issue.record("expected an ODataError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// A unique name for test data (mock-sap and odatapy keep state for the whole run).
    static func unique(_ prefix: String) -> String {
        prefix + String(UUID().uuidString.prefix(8))
    }

    /// A plain GET through Satchel's HTTP client (status not checked), for what the OData API does not expose.
    static func get(_ url: URL, headers: HTTPClient.Headers = [:]) async throws -> HTTPClient.Response {
        let client = HTTPClient(configuration: http)
        var request = HTTPClient.Request(.get, url: url, headers: headers, operation: "test read")
        request.validatesStatus = false
        return try await client.send(request)
    }
}
