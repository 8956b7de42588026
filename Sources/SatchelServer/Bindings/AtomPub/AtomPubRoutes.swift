import Foundation
import HTTPTypes
public import Hummingbird
import NIOCore
import SatchelCMISCore
import SatchelRepository

/// The CMIS 1.1 AtomPub binding of `satchel serve`: service document, entries and feeds, Atom entry posts,
/// content PUT/DELETE with Range downloads, and CMIS errors with the status the specification gives.
///
/// Resources live under `<mount>/<repositoryId>/<resource>?id=…` (`entry`, `children`, `content`, `types`, …);
/// the service document at `<mount>` lists a workspace per repository the caller may see, with the collections,
/// links and URI templates clients start from. Every change checks the XSRF token (``BindingEnvironment``).
///
/// ```swift
/// let routes = AtomPubRoutes(environment: environment)
/// routes.register(on: router, mountPath: "/cmis/atom")
/// routes.register(on: router, mountPath: "/mcm/b/atom")
/// ```
public struct AtomPubRoutes: Sendable {
    /// The services, blob store, limits and XSRF policy the routes use.
    public let environment: BindingEnvironment

    /// The binding over `environment`; `register(on:mountPath:)` adds its routes.
    public init(environment: BindingEnvironment) {
        self.environment = environment
    }

    /// Adds the binding's routes under `mountPath` (which the authentication middleware must already cover).
    public func register(on router: some RouterMethods<ServerRequestContext>, mountPath: String) {
        let group = router.group(RouterPath(mountPath))
        group.get { request, context in
            await handle(request, context, mountPath: mountPath, repositoryId: nil) { try await serviceDocument($0) }
        }
        group.get("{repository}") { request, context in
            let id = context.parameters.get("repository")
            return await handle(request, context, mountPath: mountPath, repositoryId: id) {
                try await serviceDocument($0)
            }
        }
        for method in [HTTPRequest.Method.get, .post, .put, .delete] {
            group.on("{repository}/{resource}", method: method) { request, context in
                let id = context.parameters.get("repository")
                let resource = context.parameters.get("resource") ?? ""
                return await handle(request, context, mountPath: mountPath, repositoryId: id) { call in
                    switch method {
                    case .get: try await get(resource, call)
                    case .post: try await post(resource, call)
                    case .put: try await put(resource, call)
                    default: try await delete(resource, call)
                    }
                }
            }
        }
    }

    /// Runs one request: checks there is a caller, maps every failure to an AtomPub error response.
    func handle(
        _ request: Request, _ context: ServerRequestContext, mountPath: String, repositoryId: String?,
        _ body: (AtomPubCall) async throws -> Response
    ) async -> Response {
        guard let caller = context.caller else {
            return AtomPubErrors.response(CMISError(.unauthorized, "authentication required"))
        }
        let call = AtomPubCall(
            request: request, context: context, caller: caller, repositoryId: repositoryId ?? "",
            urls: AtomPubURLs(request: request, context: context, mountPath: mountPath), environment: environment,
            parameters: AtomPubCall.parameters(of: request))
        do {
            return try await body(call)
        } catch let error as CMISError {
            return AtomPubErrors.response(error)
        } catch is NIOTooManyBytesError {
            return AtomPubErrors.response(
                CMISError(.invalidArgument, "the request body is larger than the server accepts"),
                status: .contentTooLarge)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return AtomPubErrors.response(
                CMISError(.invalidArgument, "the request body is larger than the server accepts"),
                status: .contentTooLarge)
        } catch let error as BlobStoreError where error.limitExceeded {
            return AtomPubErrors.response(CMISError(.invalidArgument, error.reason), status: .contentTooLarge)
        } catch is CancellationError {
            return AtomPubErrors.response(CMISError(.runtime, "the request was cancelled"))
        } catch {
            return AtomPubErrors.response(CMISError(.runtime, "\(error)"))
        }
    }

    func serviceDocument(_ call: AtomPubCall) async throws -> Response {
        // One repository's workspace is its repository info, asked of its own service (a mount's back-end now);
        // the whole list is what the resolver lists.
        let infos: [RepositoryInfo]
        if let id = call.repositoryId.isEmpty ? call.parameter("repositoryId") : call.repositoryId {
            infos = [
                try await environment.repositories.service(for: id).repositoryInfo(
                    repositoryId: id, caller: call.caller)
            ]
        } else {
            infos = try await environment.repositories.repositoryInfos(caller: call.caller)
        }
        let bytes = AtomPubDocuments.serviceDocument(
            infos, urls: call.urls, omitNewTypeCapabilities: environment.omitNewTypeCapabilities)
        return AtomPubCall.xml(bytes, type: "application/atomsvc+xml;charset=UTF-8")
    }
}

/// One request as the AtomPub routes see it: parameters, caller, repository, URLs and response helpers.
struct AtomPubCall: CMISRequestParameters, Sendable {
    var request: Request
    var context: ServerRequestContext
    var caller: CallerContext
    var repositoryId: String
    var urls: AtomPubURLs
    var environment: BindingEnvironment
    /// The query parameters, decoded as forms are (`+` is a space), in order; read once per request.
    var parameters: [(String, String)]

    /// The service of the request's repository.
    var service: any CMISService { environment.repositories.service(for: repositoryId) }
    var documents: AtomPubDocuments {
        AtomPubDocuments(
            urls: urls, repositoryId: repositoryId,
            hiddenProperties: filterAdditions.filter { !Self.identityProperties.contains($0) })
    }

    /// What an entry's links are made of, whatever the filter asks for: the object's id, base type and type (its
    /// `self`, `down`, `foldertree` and `describedby` links), a folder's parent (`up`), a working copy's series
    /// (`via`) and a document's content (`atom:content src`). They are read beside the filter's properties, and
    /// written only when they say which object it is (``identityProperties``): a repository that honours the filter
    /// to the letter (a gateway mount's back-end) would otherwise leave the entry without the links clients keep.
    static let linkProperties = [
        "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId", "cmis:parentId", "cmis:versionSeriesId",
        "cmis:isPrivateWorkingCopy", "cmis:contentStreamLength", "cmis:contentStreamMimeType",
    ]

    /// What says which object an entry is: written whatever the filter (clients need an entry's id, and its
    /// types decide how they read it), as the local repository always does.
    static let identityProperties: Set<String> = ["cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"]

    /// The link properties the request's filter leaves out.
    var filterAdditions: [String] {
        guard let filter = parameter("filter"), filter != "*" else { return [] }
        let names = Set(filter.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if names.isEmpty || names.contains("*") { return [] }
        return Self.linkProperties.filter { !names.contains($0) }
    }

    /// The query parameters of `request`, decoded as forms are (`+` is a space); a bad escape is kept as sent.
    static func parameters(of request: Request) -> [(String, String)] {
        guard let query = request.uri.query, !query.isEmpty else { return [] }
        return query.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String { (try? FormDecoding.unescape(text)) ?? String(text) }
            guard let name = parts.first else { return nil }
            return (decode(name), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The first value of `name`, or nil when it is absent or empty.
    func string(_ name: String) -> String? {
        parameters.first { $0.0 == name }.flatMap { $0.1.isEmpty ? nil : $0.1 }
    }

    func parameter(_ name: String) -> String? { string(name) }

    /// This request's URL with `skipCount` replaced (for `next`/`previous`/`first` links).
    func pageURL(resource: String, skipCount: Int) -> String {
        var items: [(String, String?)] = []
        for (name, value) in parameters where name != "skipCount" { items.append((name, value)) }
        items.append(("skipCount", String(skipCount)))
        return urls.url(repositoryId, resource, items)
    }

    func page(
        resource: String, count: Int, hasMoreItems: Bool, numItems: Int64?
    ) throws(CMISError)
        -> AtomPubDocuments.Page
    {
        let skip = try skipCount
        return AtomPubDocuments.Page(
            selfURL: pageURL(resource: resource, skipCount: skip),
            pageURL: { pageURL(resource: resource, skipCount: $0) }, skipCount: skip, count: count,
            hasMoreItems: hasMoreItems, numItems: numItems)
    }

    /// Throws unless this change may go ahead (XSRF token in the configured header, as the policy asks).
    func checkXSRF() async throws {
        let header = HTTPField.Name(environment.xsrfHeader).flatMap { request.headers[$0] }
        try environment.checkXSRF(context: context, repositoryId: repositoryId, presented: header)
    }

    static func xml(
        _ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok, location: String? = nil
    )
        -> Response
    {
        var headers = HTTPFields()
        headers[.contentType] = type
        if let location {
            headers[.location] = location
            headers[.contentLocation] = location
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func entry(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, location: String? = nil) -> Response {
        xml(bytes, type: "application/atom+xml;type=entry;charset=UTF-8", status: status, location: location)
    }

    static func feed(_ bytes: [UInt8]) -> Response {
        xml(bytes, type: "application/atom+xml;type=feed;charset=UTF-8")
    }

    static func noContent() -> Response { Response(status: .noContent) }
}
