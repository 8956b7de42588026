import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// Passwords reach the server from standard input or the environment, and never reach the output, even with -vv.
    @Suite struct CredentialTests {
        enum Source: String, Sendable { case stdin, environment, namedEnvironment }

        struct Case: Sendable, CustomTestStringConvertible {
            var auth: String
            var source: Source
            var correct: Bool
            var testDescription: String { "\(auth) from \(source.rawValue), \(correct ? "right" : "wrong") password" }
        }

        static let cases: [Case] = [
            Case(auth: "basic", source: .stdin, correct: true),
            Case(auth: "basic", source: .environment, correct: true),
            Case(auth: "basic", source: .namedEnvironment, correct: false),
            Case(auth: "basic", source: .stdin, correct: false),
            Case(auth: "form-login", source: .stdin, correct: true),
            Case(auth: "form-login", source: .environment, correct: false),
        ]

        @Test(arguments: cases)
        func passwordIsUsedAndNeverShown(_ testCase: Case) async throws {
            let server = try await TestHTTPServer.startStandard()
            let password = testCase.correct ? TestHTTPServer.password : "wr0ng-Secret-77"
            var arguments = ["http", "get", "-vv", "--user", TestHTTPServer.user, "--auth", testCase.auth]
            if testCase.auth == "form-login" {
                arguments += [
                    "--login-url", server.url("/sso/login").absoluteString, server.url("/sso/data").absoluteString,
                ]
            } else {
                arguments.append(server.url("/basic/protected").absoluteString)
            }
            var environment: [String: String] = [:]
            var input: String?
            switch testCase.source {
            case .stdin:
                arguments.append("--password-stdin")
                input = password + "\n"
            case .environment:
                environment["SATCHEL_PASSWORD"] = password
            case .namedEnvironment:
                arguments += ["--password-env", "MY_SECRET"]
                environment["MY_SECRET"] = password
            }
            let result = try await SatchelProcess.run(arguments, environment: environment, input: input)
            await server.stop()

            #expect(result.status == (testCase.correct ? 0 : 4), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("→ "), "-vv logs the requests")
            let basic = Data("\(TestHTTPServer.user):\(password)".utf8).base64EncodedString()
            for secret in [password, basic, FormEncoded.escape(password)] {
                #expect(!result.stdoutText.contains(secret))
                #expect(!result.stderr.contains(secret))
            }
        }
    }

    private enum FormEncoded {
        static func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }
    }
}
