import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The JSON the CMIS test server answers with: succinct objects, repository info, type definitions, errors.
enum CMISTestJSON {
    static func error(_ exception: String, _ message: String, status: HTTPResponse.Status) -> Response {
        TestHTTPServer.json(["exception": exception, "message": message], status: status)
    }

    static func repositoryInfo(baseURL: URL, options: CMISTestServer.Options) -> [String: Any] {
        let repositoryURL = baseURL.appendingPathComponent("browser/\(CMISTestServer.repositoryId)")
        var info: [String: Any] = [
            "repositoryId": CMISTestServer.repositoryId, "repositoryName": "Satchel test repository",
            "repositoryDescription": "in-memory", "vendorName": "Satchel", "productName": "CMISTestServer",
            "productVersion": "0.1", "rootFolderId": "root", "cmisVersionSupported": "1.1",
            "repositoryUrl": repositoryURL.absoluteString,
            "rootFolderUrl": repositoryURL.appendingPathComponent("root").absoluteString,
            "capabilities": ["capabilityQuery": "metadataonly", "capabilityGetDescendants": false],
        ]
        if let myDocuments = options.myDocuments { info["myDocuments"] = myDocuments }
        return info
    }

    static func object(_ node: CMISTestRepository.Node, in store: CMISTestRepository.Store) -> [String: Any] {
        ["succinctProperties": properties(node, in: store)]
    }

    static func properties(_ node: CMISTestRepository.Node, in store: CMISTestRepository.Store) -> [String: Any] {
        var properties: [String: Any] = [
            "cmis:objectId": node.id, "cmis:name": node.name,
            "cmis:objectTypeId": node.isFolder ? "cmis:folder" : "cmis:document",
            "cmis:baseTypeId": node.isFolder ? "cmis:folder" : "cmis:document",
            "cmis:createdBy": "alice", "cmis:lastModifiedBy": "alice",
            "cmis:creationDate": milliseconds(node.created), "cmis:lastModificationDate": milliseconds(node.modified),
            "cmis:changeToken": String(node.changeToken),
        ]
        if node.isFolder {
            properties["cmis:path"] = CMISTestRepository.path(of: node.id, in: store)
            properties["cmis:parentId"] = node.parentId ?? NSNull()
        } else {
            properties["cmis:contentStreamLength"] = node.content.map { $0.count as Any } ?? NSNull()
            properties["cmis:contentStreamMimeType"] = node.mimeType ?? NSNull()
            properties["cmis:contentStreamFileName"] = node.fileName ?? NSNull()
            properties["cmis:versionSeriesId"] = node.id
            properties["cmis:isLatestVersion"] = true
        }
        return properties
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// `cmis:document` and `cmis:folder`, with the properties the server sends.
    static func typeDefinition(_ typeId: String) -> [String: Any]? {
        guard typeId == "cmis:document" || typeId == "cmis:folder" else { return nil }
        var definitions: [(String, String, Bool)] = [
            ("cmis:objectId", "id", false), ("cmis:name", "string", true), ("cmis:objectTypeId", "id", false),
            ("cmis:baseTypeId", "id", false), ("cmis:createdBy", "string", false),
            ("cmis:lastModifiedBy", "string", false), ("cmis:creationDate", "datetime", false),
            ("cmis:lastModificationDate", "datetime", false), ("cmis:changeToken", "string", false),
        ]
        if typeId == "cmis:folder" {
            definitions += [("cmis:path", "string", false), ("cmis:parentId", "id", false)]
        } else {
            definitions += [
                ("cmis:contentStreamLength", "integer", false), ("cmis:contentStreamMimeType", "string", false),
                ("cmis:contentStreamFileName", "string", false), ("cmis:versionSeriesId", "id", false),
                ("cmis:isLatestVersion", "boolean", false),
            ]
        }
        var properties: [String: Any] = [:]
        for (id, type, updatable) in definitions {
            properties[id] = [
                "id": id, "localName": id, "queryName": id, "displayName": id, "propertyType": type,
                "cardinality": "single", "updatability": updatable ? "readwrite" : "readonly", "inherited": false,
                "required": id == "cmis:name", "queryable": true, "orderable": true,
            ]
        }
        return [
            "id": typeId, "localName": typeId, "queryName": typeId, "displayName": typeId, "baseId": typeId,
            "creatable": true, "fileable": true, "queryable": true, "fulltextIndexed": false,
            "includedInSupertypeQuery": true, "controllablePolicy": false, "controllableACL": false,
            "propertyDefinitions": properties,
        ]
    }
}
