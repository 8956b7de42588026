import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// The exit codes scripts rely on, and the one-line error on standard error.
    @Suite struct ExitCodeTests {
        struct Case: Sendable, CustomTestStringConvertible {
            var name: String
            /// `{server}` becomes the test server's base URL.
            var arguments: [String]
            var status: Int32
            var testDescription: String { name }
        }

        static let cases: [Case] = [
            Case(name: "success", arguments: ["http", "get", "{server}/bytes/10"], status: 0),
            Case(name: "404", arguments: ["http", "get", "{server}/status/404"], status: 5),
            Case(name: "401", arguments: ["http", "get", "{server}/basic/protected"], status: 4),
            Case(name: "500", arguments: ["http", "get", "--retries", "0", "{server}/status/500"], status: 6),
            Case(
                name: "connection refused", arguments: ["http", "get", "--retries", "0", "http://127.0.0.1:1/"],
                status: 3),
            Case(name: "missing URL", arguments: ["http", "get"], status: 2),
            Case(name: "unknown subcommand", arguments: ["http", "fetch", "{server}/"], status: 2),
            Case(
                name: "password argument", arguments: ["http", "get", "--password", "hunter2", "{server}/"], status: 2),
            Case(name: "nuxeo without --url", arguments: ["nuxeo", "get", "/"], status: 2),
        ]

        @Test(arguments: cases)
        func exitCode(_ testCase: Case) async throws {
            let server = try await TestHTTPServer.startStandard()
            let arguments = testCase.arguments.map {
                $0.replacingOccurrences(of: "{server}", with: server.baseURL.absoluteString)
            }
            let result = try await SatchelProcess.run(arguments)
            await server.stop()

            #expect(result.status == testCase.status, "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("hunter2"))
            if testCase.status > 2 {
                // One readable line, prefixed like every satchel message.
                #expect(result.stderr.hasPrefix("satchel"))
                #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
            }
        }
    }
}
