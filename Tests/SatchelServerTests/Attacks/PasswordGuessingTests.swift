import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// Guessing passwords over Basic and the login form: after a few failures each further attempt for that user
    /// name, or from that address, is refused with 429 before any password is checked; a client that already
    /// logged in is not affected; unknown names cost as much as real ones.
    @Suite("Password guessing")
    struct PasswordGuessing {
        static let repositoryInfo = "/cmis/browser/shared?cmisselector=repositoryInfo"

        static func guess(
            _ harness: ServerHarness, user: String, password: String, headers: [(String, String)] = []
        ) async throws -> HTTPClient.Response {
            var request = HTTPClient.Request(
                .get, url: harness.url(repositoryInfo), headers: HTTPClient.Headers(headers))
            request.headers["Authorization"] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            request.validatesStatus = false
            return try await harness.client.send(request)
        }

        @Test func fiveWrongPasswordsThrottleTheNameEvenForTheRightOne() async throws {
            // A first wait long enough that a slow machine (hashing under load) cannot outlast it between attempts.
            let harness = try await ServerHarness.start(configure: {
                $0.loginThrottling.perUser.firstDelay = .seconds(4)
            })
            try await withCleanup { () async throws in
                // Alice's app logged in with the form before the attack started.
                let login = try await harness.send(
                    .post, "/login", user: nil, body: .form([("user", "alice"), ("password", "pw-alice")]))
                let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
                for attempt in 1...5 {
                    let response = try await Self.guess(harness, user: "alice", password: "guess-\(attempt)")
                    #expect(response.status == 401, "attempt \(attempt)")
                    #expect(response.headers["WWW-Authenticate"] == #"Basic realm="Satchel""#)
                }
                let throttled = try await Self.guess(harness, user: "alice", password: "pw-alice")
                #expect(throttled.status == 429)
                #expect(exception(throttled) == "permissionDenied")
                #expect(Int(throttled.headers["Retry-After"] ?? "") ?? 0 >= 1)
                let form = try await harness.send(
                    .post, "/login", user: nil, body: .form([("user", "alice"), ("password", "pw-alice")]))
                #expect(form.status == 429)
                #expect(form.headers["Set-Cookie"] == nil)
                // The session that logged in before keeps working, and so does another user.
                #expect(
                    try await harness.send(.get, Self.repositoryInfo, user: nil, headers: [("Cookie", cookie)]).status
                        == 200)
                #expect(try await harness.send(.get, Self.repositoryInfo, user: "bob").status == 200)
                // The wait passes: the right password is accepted again.
                try await Task.sleep(for: .milliseconds(4_100))
                #expect(try await Self.guess(harness, user: "alice", password: "pw-alice").status == 200)
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func manyNamesFromOneAddressThrottleTheAddress() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                for index in 0..<10 {
                    #expect(try await Self.guess(harness, user: "user\(index)", password: "x").status == 401)
                }
                #expect(try await Self.guess(harness, user: "bob", password: "pw-bob").status == 429)
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func forwardedForCountsOnlyFromATrustedProxy() async throws {
            let open = try await ServerHarness.start()
            try await withCleanup { () async throws in
                // From anyone else, X-Forwarded-For is ignored: changing it does not escape the address's count.
                for index in 0..<10 {
                    let response = try await Self.guess(
                        open, user: "user\(index)", password: "x", headers: [("X-Forwarded-For", "203.0.113.\(index)")])
                    #expect(response.status == 401)
                }
                #expect(
                    try await Self.guess(
                        open, user: "bob", password: "x", headers: [("X-Forwarded-For", "198.51.100.1")]
                    ).status == 429)

                let proxied = try await ServerHarness.start(configure: {
                    $0.trustedProxies = TrustedProxies(["127.0.0.1"])
                })
                try await withCleanup { () async throws in
                    let attacker = [("X-Forwarded-For", "203.0.113.7")]
                    for index in 0..<10 {
                        #expect(
                            try await Self.guess(proxied, user: "user\(index)", password: "x", headers: attacker)
                                .status == 401)
                    }
                    #expect(
                        try await Self.guess(proxied, user: "bob", password: "pw-bob", headers: attacker).status == 429)
                    // Another client behind the same proxy is not throttled.
                    let neighbour = [("X-Forwarded-For", "203.0.113.8, 127.0.0.1")]
                    #expect(
                        try await Self.guess(proxied, user: "bob", password: "pw-bob", headers: neighbour).status
                            == 200)
                } cleanup: {
                    await proxied.stop()
                }
            } cleanup: {
                await open.stop()
            }
        }

        /// A wrong password for a real user and any password for an unknown name take about the same time, so the
        /// answer's timing does not tell which names exist (they once took 150 ms and 5 ms).
        @Test func unknownNamesCostWhatRealOnesCost() async throws {
            let harness = try await ServerHarness.start(rounds: 100_000)
            try await withCleanup { () async throws in
                // Alternating, so load from elsewhere falls on both alike; four of each stay under every throttle.
                var known: [Duration] = []
                var unknown: [Duration] = []
                for attempt in 0..<4 {
                    for (user, times) in [("bob", 0), ("nobody\(attempt)", 1)] {
                        let start = ContinuousClock.now
                        #expect(try await Self.guess(harness, user: user, password: "wrong").status == 401)
                        if times == 0 {
                            known.append(ContinuousClock.now - start)
                        } else {
                            unknown.append(ContinuousClock.now - start)
                        }
                    }
                }
                // The fastest of each: what the work itself costs (load from the suites running beside this one only
                // ever adds time, and a median of four still moved by a factor of six in one CI run).
                let knownFastest = known.min()!
                let unknownFastest = unknown.min()!
                // Once the decoy took 1,000 rounds where users take 100,000: a hundred times faster.
                #expect(unknownFastest > knownFastest / 4, "unknown \(unknown), known \(known)")
                #expect(unknownFastest < knownFastest * 4, "unknown \(unknown), known \(known)")
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
