import Foundation
import SatchelOffline
import SatchelOfflineServer
import Testing

/// SAP's application configuration file, read by the middle tier and (in its client shape) by `satchel offline`:
/// every value checked, every refusal and every unused key named with its line.
@Suite("Offline configuration files")
struct OfflineConfigurationTests {
    static let application = """
        ; The products app.
        [endpoint]
        name = products
        backend_url = https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC
        sap_client = 100
        service_user = shared-reader
        service_password_env = SHARED_PASSWORD   ; never in the file
        prepopulate_offline_db = SHARED-ONLY
        prepopulate_offline_db_interval = 720
        indexed_type = GWSAMPLE_BASIC.Product: Category ASC, Price DESC
        indexed_type = GWSAMPLE_BASIC.Product: Name
        max_delta_resends = 3
        offline_db_collation = UTF8BIN
        colour = blue

        [defining_query]
        name = products
        query = /ProductSet?$filter=Category eq 'A;B' and Name ne '#1'
        is_shared_data = Y
        refresh_interval = 15
        track_deltas = ALWAYS

        [defining_request]
        name = my-orders
        delta_token_lifetime = 7

        [endpoint]
        name = people
        backend_url = http://127.0.0.1:8080/odata/
        prepopulate_offline_db = N
        json_datetimeoffset_in_utc = Y

        [defining_query]
        name = people
        query = /People
        """

    @Test("an application file: endpoints, defining queries in both spellings, defaults, unused keys with lines")
    func application() throws {
        let configuration = try OfflineApplicationConfiguration(
            text: Self.application, name: "app.ini", folder: URL(fileURLWithPath: "/"),
            environment: ["SHARED_PASSWORD": "s3cret"])
        #expect(configuration.endpoints.map(\.name) == ["products", "people"])
        let products = configuration.endpoints[0]
        #expect(products.backendURL.absoluteString == "https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC")
        #expect(products.sapClient == "100")
        #expect(products.serviceAccount?.user == "shared-reader" && products.serviceAccount?.password == "s3cret")
        #expect(products.prepopulate == .sharedOnly && products.prepopulateInterval == .seconds(720 * 60))
        #expect(products.indexes == ["GWSAMPLE_BASIC.Product": ["Category", "Price", "Name"]])
        #expect(products.maxDeltaResends == 3)
        #expect(products.localChangeExpiry == .seconds(168 * 3600), "the default: a week")
        #expect(products.caseSensitive && products.checkRepeatableRequests && !products.dateTimeOffsetInUTC)
        #expect(products.definingQueries.map(\.name) == ["products", "my-orders"])
        let shared = products.definingQueries[0]
        #expect(shared.query == "/ProductSet?$filter=Category eq 'A;B' and Name ne '#1'", "a query keeps ; and #")
        #expect(shared.isShared && shared.refreshInterval == .seconds(15 * 60) && shared.deltaTracking == .always)
        let own = products.definingQueries[1]
        #expect(own.query == nil && !own.isShared && own.refreshInterval == .zero)
        #expect(own.deltaTokenLifetime == .seconds(7 * 24 * 3600) && own.deltaTracking == .auto)
        #expect(configuration.endpoints[1].prepopulate == .none && configuration.endpoints[1].serviceAccount == nil)

        let warnings = configuration.warnings.map { "\($0.line) \($0.message)" }
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("13 offline_db_collation is not used") })
        // Prebuilt stores' keys take effect: no warning for them.
        for line in [8, 9, 10, 11, 30] { #expect(!warnings.contains { $0.hasPrefix("\(line) ") }, "\(line)") }
        // Read and checked, but with no effect yet: said at start, with its line.
        #expect(warnings.contains { $0.hasPrefix("31 ") && $0.contains("has no effect yet") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("14 unknown key colour in [endpoint]") })
        #expect(configuration.warnings.allSatisfy { $0.description.hasPrefix("app.ini line ") })
    }

    /// Each entry: the file's text and the line and words its refusal must carry.
    static let refusals: [(String, Int?, String)] = [
        ("[endpoint]\nname = x\nbackend_url = http://h/\nbroken line", 4, "expected key = value"),
        ("[endpoint\nname = x", 1, "a section line is [name]"),
        ("name = x\n[endpoint]", 1, "before any [section]"),
        ("[endpoint]\nbackend_url = http://h/", 1, "needs name"),
        ("[endpoint]\nname = a/b\nbackend_url = http://h/", 2, "letters, digits"),
        ("[endpoint]\nname = x\nbackend_url = ftp://h/", 3, "http(s)://"),
        ("[endpoint]\nname = x\nbackend_url = https://u:p@h/", 3, "holds credentials"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\nprepopulate_offline_db = maybe", 4, "Y, N or SHARED-ONLY"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\nmax_delta_resends = -1", 4, "whole number"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\ncsrf = perhaps", 4, "Y or N"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\nservice_password = pw", 4, "may not be written"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\nservice_user = u", 4, "needs service_password_env"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\nservice_user = u\nservice_password_env = NOPE", 5, "not set"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\nindexed_type = NoColon", 4, "indexed_type ="),
        ("[defining_query]\nname = q", 1, "before any [endpoint]"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\n[products]\nquery = /P", 4, "unknown section"),
        ("[endpoint]\nname = x\nbackend_url = http://h/\n[defining_query]\nquery = /P", 4, "needs name"),
        (
            "[endpoint]\nname = x\nbackend_url = http://h/\n[defining_query]\nname = q\nis_shared_data = Y", 4,
            "needs query"
        ),
        (
            "[endpoint]\nname = x\nbackend_url = http://h/\n[defining_query]\nname = q\nquery = /P\nis_shared_data = Y",
            7,
            "needs service_user"
        ),
        (
            "[endpoint]\nname = x\nbackend_url = http://h/\n[defining_query]\nname = q\ntrack_deltas = SOMETIMES", 6,
            "AUTO"
        ),
        (
            "[endpoint]\nname = x\nbackend_url = http://h/\n[defining_query]\nname = q\n[defining_query]\nname = q", 6,
            "a second defining query named q (the first: line 4)"
        ),
        (
            "[endpoint]\nname = x\nbackend_url = http://h/\n[endpoint]\nname = x\nbackend_url = http://h/", 4,
            "second endpoint"
        ),
        ("; nothing", nil, "no [endpoint]"),
    ]

    @Test("a malformed application file is refused with its line", arguments: 0..<refusals.count)
    func refusal(_ index: Int) {
        let (text, line, words) = Self.refusals[index]
        do {
            _ = try OfflineApplicationConfiguration(
                text: text, name: "bad.ini", folder: URL(fileURLWithPath: "/"), environment: [:])
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(words), "\(error)")
            #expect(error.description.hasPrefix("bad.ini"))
        }
    }

    @Test("files: a configuration others may change and a password file others may read are refused")
    func filePermissions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-ini-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("shared.pw")
        try "pw-from-file\n".write(to: secret, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        let ini = folder.appendingPathComponent("app.ini")
        try """
        [endpoint]
        name = x
        backend_url = http://h/
        service_user = reader
        service_password_file = shared.pw
        """.write(to: ini, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: ini.path)
        let read = try OfflineApplicationConfiguration(contentsOf: ini.path, environment: [:])
        #expect(read.endpoints[0].serviceAccount?.password == "pw-from-file")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret.path)
        #expect {
            _ = try OfflineApplicationConfiguration(contentsOf: ini.path, environment: [:])
        } throws: { error in
            let error = error as? OfflineConfigurationError
            return error?.line == 5 && error?.message.contains("may be read by others") == true
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: ini.path)
        #expect {
            _ = try OfflineApplicationConfiguration(contentsOf: ini.path, environment: [:])
        } throws: { error in
            (error as? OfflineConfigurationError)?.message.contains("may be changed by others") == true
        }
    }

    @Test("a client's file: SAP's section form, middle-tier keys and misspellings said with their lines")
    func client() throws {
        let file = try OfflineConfigurationFile(
            text: """
                [endpoint]
                url = https://gw.example.com/odata/
                user = alice
                prepopulate_offline_db = Y
                stroe = typo.store

                [products]
                query = ProductSet?$filter=Name eq 'a;b'
                streams = yes
                is_shared_data = Y

                [defining_query]
                name = categories
                query = CategorySet
                track_deltas = never
                """, folder: "/data", name: "shop.ini")
        #expect(file.definingQueries.map(\.name) == ["products", "categories"])
        #expect(file.definingQueries[0].query == "ProductSet?$filter=Name eq 'a;b'")
        #expect(file.definingQueries[0].retrievesStreams && file.definingQueries[1].deltaTracking == .never)
        #expect(file.storePath == "/data/offline.store")
        #expect(file.timeout == nil)
        let timed = try OfflineConfigurationFile(
            text:
                "[endpoint]\nurl = https://h/\ntimeout = 2.5\nrepeatable_requests = no\npayload_format = Atom\n[a]\nquery = A",
            folder: "/", name: "t.ini")
        #expect(timed.timeout == .milliseconds(2500) && timed.warnings.isEmpty)
        #expect(timed.payloadFormat == .atom && file.payloadFormat == nil)
        #expect(timed.repeatableRequests == false && file.repeatableRequests == nil)
        let warnings = file.warnings.map { "\($0.line) \($0.message)" }
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("4 prepopulate_offline_db is not used: a key of the middle tier") })
        #expect(warnings.contains { $0.hasPrefix("5 unknown key stroe in [endpoint]") })
        #expect(warnings.contains { $0.hasPrefix("10 is_shared_data is not used") })

        for (text, line) in [
            ("[endpoint]\nurl = https://h/\n[a]\nquery = A\n[a]\nquery = B", 5),
            ("[endpoint]\nurl = https://h/\n[a]\nquery = A\ntrack_deltas = often", 5),
            ("[endpoint]\nurl = https://h/\n[a]\nquery = A\nstreams = lots", 5),
            ("[endpoint]\nurl = nope\n[a]\nquery = A", 2),
            ("[endpoint]\nurl = https://h/\n[endpoint]\nurl = https://i/\n[a]\nquery = A", 3),
            ("[endpoint]\nurl = https://h/\ntimeout = soon\n[a]\nquery = A", 3),
            ("[endpoint]\nurl = https://h/\ntimeout = 0\n[a]\nquery = A", 3),
            ("[endpoint]\nurl = https://h/\npayload_format = yaml\n[a]\nquery = A", 3),
        ] {
            #expect {
                _ = try OfflineConfigurationFile(text: text, folder: "/", name: "c.ini")
            } throws: { error in
                (error as? OfflineConfigurationError)?.line == line
            }
        }
    }
}
