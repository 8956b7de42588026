import Foundation
import SatchelCMISCore
import SatchelGateway
import SatchelRepository
import SatchelServer

enum SatchelGatewayExamples {
    /// GettingStarted.md: read and check a gateway file.
    static func load(file: URL) -> GatewayConfiguration? {
        do {
            let gateway = try GatewayConfiguration.load(from: file)  // passwordEnv: this process's environment
            for mount in gateway.mounts {
                print(mount.id, mount.url, mount.binding, mount.users)  // passwords print as <redacted>
            }
            return gateway
        } catch let error as GatewayError {
            print("the gateway file cannot be used: \(error.message)")
            return nil
        } catch {
            print("the gateway file cannot be used: \(error)")
            return nil
        }
    }

    /// GettingStarted.md: the same checks on JSON the app holds.
    static func parse(folder: URL, password: String) throws -> GatewayConfiguration {
        let json = """
            {"repositories": [
              {"id": "docs", "name": "Documents", "url": "https://cmis.example.com/browser", "repositoryId": "A1",
               "users": {"serviceAccount": {"user": "svc", "passwordEnv": "DOCS_PASSWORD"}}, "timeoutSeconds": 20}
            ]}
            """
        let environment = ["DOCS_PASSWORD": password]
        return try GatewayConfiguration.parse(Data(json.utf8), relativeTo: folder, environment: environment)
    }

    /// GettingStarted.md: a mount made in code.
    static func mountInCode() -> GatewayConfiguration {
        let team = GatewayConfiguration.Mount(
            id: "team", url: URL(string: "https://cmis.example.com/atom")!, binding: .atomPub, repositoryId: "T",
            users: .passThrough, myDocuments: "/Users", timeout: .seconds(20))
        return GatewayConfiguration(mounts: [team])
    }

    /// GettingStarted.md: serve the mounts beside the local repositories.
    static func serve(gateway: GatewayConfiguration, data: URL) async throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 8080, dataDirectory: data)
        configuration.gateway = gateway
        let running = try await SatchelServerApp(configuration: configuration).start()
        print(running.baseURL.absoluteString + MountPoints.cmisBrowser)  // lists docs first, then the local ones
        await running.shutdown()
    }

    /// GettingStarted.md: the gateway's service without HTTP.
    static func repositoryIds(
        local: any CMISService, gateway: GatewayConfiguration, blobs: BlobStore, password: String
    ) async throws -> [String] {
        let repositories = GatewayRepositories(local: local, configuration: gateway, blobs: blobs)
        let caller = CallerContext(user: "alice", password: CallerPassword(password))  // passed through
        let infos = try await repositories.repositoryInfos(caller: caller)  // the mounts first, then the local ones
        let team = try await repositories.service(for: "team").repositoryInfo(repositoryId: "team", caller: caller)
        return infos.map(\.id) + [team.rootFolderId]
    }
}
