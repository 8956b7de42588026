import Foundation
import SatchelCMISCore

enum SatchelCMISCoreExamples {
    /// GettingStarted.md: build a query statement with escaped values.
    static func buildQuery(folderId: String, search: String, since: Date) throws -> String {
        var statement = QueryStatement(
            "SELECT cmis:objectId, cmis:name FROM cmis:document"
                + " WHERE IN_FOLDER(?) AND cmis:name LIKE ? AND cmis:lastModificationDate > ?")
        statement.set(1, id: folderId)
        statement.set(2, like: search, wildcardSuffix: true)  // "O'Brien_" → 'O\'Brien\_%'
        statement.set(3, date: since)  // TIMESTAMP '2024-05-17T07:30:00.000Z'
        return try statement.resolved()
    }

    /// GettingStarted.md: identifiers, lists and a statement that cannot be resolved.
    static func queryErrors(typeQueryName: String) -> String? {
        var statement = QueryStatement("SELECT * FROM ? WHERE cmis:contentStreamMimeType IN (?)")
        do {
            try statement.set(1, identifier: typeQueryName)  // throws for "cmis:document; DROP"
            statement.set(2, strings: ["application/pdf", "text/plain"])
            return try statement.resolved()
        } catch let error as CMISQueryError {
            print(error.message)  // "cmis:document; DROP" is not a CMIS query identifier
            return nil
        } catch {
            return nil
        }
    }

    /// GettingStarted.md: Mobile Documents endpoints.
    static func mobileDocumentsEndpoints(server: URL) -> [URL] {
        // https://mobiledocs.example.com → https://mobiledocs.example.com/mcm/b/atom
        let atomPub = MobileDocuments.endpoint(for: server, binding: .atomPub)
        // https://host/mcm → https://host/mcm/b/json
        let browser = MobileDocuments.endpoint(for: server, binding: .browser)
        return [atomPub, browser]
    }

    /// GettingStarted.md: Mobile Documents repository-info extensions.
    static func mobileDocumentsInfo(serviceDocument: Data) throws -> (folderId: String, token: String?)? {
        guard let info = try BrowserParser.repositoryInfos(serviceDocument).first else { return nil }
        let folderId = info.extensionValue(named: MobileDocuments.myDocumentsExtension) ?? info.rootFolderId
        let token = info.extensionValue(named: MobileDocuments.tokenExtension)  // sent back on every request
        return (folderId, token)
    }

    /// GettingStarted.md: build and read model values.
    static func readModel() -> String {
        let object = CMISObject(
            properties: Properties([
                CMISProperty(id: "cmis:objectId", type: .id, values: [.id("d-1")]),
                CMISProperty(id: "cmis:name", type: .string, values: [.string("Shopping.note")]),
                CMISProperty(id: "cmis:baseTypeId", type: .id, values: [.id("cmis:document")]),
                CMISProperty(id: "cmis:contentStreamLength", type: .integer, values: [.integer(1_204)]),
                CMISProperty(
                    id: "cmis:contentStreamMimeType", type: .string, values: [.string(MobileDocuments.noteMimeType)]),
            ]),
            allowableActions: AllowableActions([.getContentStream, .setContentStream]))
        let isNote = object.baseType == .document && object.contentStreamMimeType == MobileDocuments.noteMimeType
        let size = object.contentStreamLength ?? 0  // 1204
        let canEdit = object.allowableActions?.canSetContentStream == true
        for property in object.properties {
            print(property.id, property.type.rawValue, property.values)
        }
        return "\(object.name ?? "") \(isNote) \(size) \(canEdit)"
    }

    /// GettingStarted.md: parse an object and ask for what a read should include.
    static func parseObject(body: Data) throws -> OperationContext {
        let object = try BrowserParser.object(body)
        print(object.id ?? "", object.name ?? "", object.lastModificationDate ?? Date.distantPast)

        var context = OperationContext(includeAllowableActions: true)
        context.filter = ["cmis:objectId", "cmis:name", "cmis:contentStreamLength"]
        context.orderBy = "cmis:name ASC"
        print(context.filterString)  // cmis:objectId,cmis:name,cmis:contentStreamLength
        return context
    }

    /// GettingStarted.md: handle a CMIS error.
    static func handleError(status: Int, body: Data) -> CMISObject? {
        do {
            guard status < 400 else { throw CMISError.browser(status: status, body: body) }
            return try BrowserParser.object(body)
        } catch let error as CMISError where error.code == .objectNotFound {
            return nil
        } catch let error as CMISError where error.code == .invalidResponse {
            print("unreadable at \(error.path ?? "?"), byte \(error.offset ?? 0)")
            return nil
        } catch {
            print(error)  // CMIS permissionDenied: Access denied (HTTP 403)
            return nil
        }
    }
}
