import Foundation
import SatchelOfflineServer
import SatchelRepository
import SatchelServer

enum SatchelOfflineServerExamples {
    /// GettingStarted.md: read and check an application configuration file.
    static func read(path: String) -> OfflineApplicationConfiguration? {
        do {
            let application = try OfflineApplicationConfiguration(contentsOf: path)
            for warning in application.warnings { print("warning: \(warning)") }  // keys read but not implemented
            for endpoint in application.endpoints {
                let queries = endpoint.definingQueries.map { $0.isShared ? "\($0.name) (shared)" : $0.name }
                print(endpoint.name, endpoint.backendURL, queries)
            }
            return application
        } catch {
            print("error: \(error)")  // the file and line, and what is wrong there
            return nil
        }
    }

    /// GettingStarted.md: the same from text the app holds.
    static func parse(folder: URL, password: String) throws -> OfflineApplicationConfiguration {
        let ini = """
            [endpoint]
            name = products
            backend_url = https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC
            service_user = satchel-shared
            service_password_env = SATCHEL_SHARED_PASSWORD
            prepopulate_offline_db = SHARED-ONLY

            [defining_query]
            name = products
            query = /ProductSet
            is_shared_data = Y
            refresh_interval = 15
            """
        let environment = ["SATCHEL_SHARED_PASSWORD": password]
        return try OfflineApplicationConfiguration(text: ini, name: "app.ini", folder: folder, environment: environment)
    }

    /// GettingStarted.md: serve the applications from `satchel serve`'s server.
    static func serve(application: OfflineApplicationConfiguration, data: URL) async throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 8080, dataDirectory: data)
        configuration.offline.append(application)  // each endpoint under /offline/<name>/
        configuration.offlineLimits.pageSize = 500
        let running = try await SatchelServerApp(configuration: configuration).start()
        print(running.baseURL.absoluteString + "/offline/products/")
        await running.shutdown()
    }

    /// GettingStarted.md: the tier in process, without HTTP.
    static func answer(application: OfflineApplicationConfiguration, password: String) async throws -> Int {
        let tier = try OfflineTier(applications: [application], store: MemoryMetadataStore())
        let request = OfflineTierRequest(
            method: "GET", path: "ProductSet", user: "ada", password: password, root: "https://host/offline/products/")
        let response = await tier.handle(endpoint: "products", request)  // never throws: failures are OData errors
        print(response.status, response.body.count)
        return response.status
    }
}
