import Foundation
import Hummingbird
import Logging
import SatchelCMISCore
import SatchelRepository
import SatchelText

/// Routes a Browser binding request: decodes its repository and object from the path, the selector or action from
/// the query or form, and hands a ``BrowserCall`` to the service it names.
struct BrowserHandler: Sendable {
    let environment: BindingEnvironment
    let mountPoint: String

    func handle(_ request: Request, context: ServerRequestContext) async -> Response {
        do {
            guard let caller = context.caller else { return CMISErrorResponse.challenge() }
            let cacheKey =
                request.method == .get
                ? ResponseCache.key(user: caller.user, pathAndQuery: request.uri.description) : nil
            if let cacheKey,
                let hit = environment.responses.entry(
                    cacheKey,
                    current: { environment.repositories.service(for: $0).readGeneration(repositoryId: $0) })
            {
                environment.metrics.responseCacheHit()
                return BrowserCall.jsonResponse(hit.body)
            }
            var call = try makeCall(request, context: context, caller: caller)
            call.cacheKey = cacheKey
            if request.method == .post {
                try await readBody(request, into: &call)
                defer { call.upload?.blob.end() }
                return try await call.performAction()
            }
            guard request.method == .get else {
                throw CMISError(.notSupported, "the Browser binding answers GET and POST")
            }
            return try await call.performSelector()
        } catch let error as BrowserRequestError {
            return CMISErrorResponse.json(error.cmisError, status: error.status)
        } catch let error as CMISError {
            return CMISErrorResponse.json(error)
        } catch is CancellationError {
            return CMISErrorResponse.json(CMISError(.runtime, "the request was cancelled"))
        } catch let error as BlobStoreError {
            return CMISErrorResponse.json(CMISError(.storage, "content storage failed: \(error.reason)"))
        } catch {
            context.logger.error("Browser binding: unexpected error \(String(describing: error))")
            return CMISErrorResponse.json(CMISError(.runtime, "internal error"))
        }
    }

    /// Splits the path into repository and object path, and reads the query string.
    func makeCall(_ request: Request, context: ServerRequestContext, caller: CallerContext) throws -> BrowserCall {
        let path = request.uri.path
        guard path.hasPrefix(mountPoint) else { throw CMISError(.objectNotFound, "no such URL") }
        let segments = try FormDecoding.pathSegments(path.dropFirst(mountPoint.count))
        let repository = segments.first
        var objectPath: [String]?
        if segments.count >= 2 {
            guard segments[1] == "root" else {
                throw CMISError(.objectNotFound, "no such URL: expected {repositoryId}/root[/path]")
            }
            objectPath = Array(segments.dropFirst(2))
        }
        var parameters = BrowserParameters()
        if let query = request.uri.query {
            parameters.add(try FormDecoding.decode(Substring(query), maxFields: environment.limits.maxFormFields))
        }
        return BrowserCall(
            environment: environment, caller: caller, context: context, request: request,
            serviceURL: request.serverBaseURL(context) + mountPoint, repository: repository, objectPath: objectPath,
            parameters: parameters, upload: nil, cacheKey: nil)
    }

    /// Reads a form body: urlencoded (collected, bounded) or multipart (streamed; content into the blob store).
    func readBody(_ request: Request, into call: inout BrowserCall) async throws {
        let contentType = request.headers[.contentType] ?? ""
        let mediaType =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }),
            length > environment.limits.maxContentBytes + Int64(environment.limits.maxMetadataBytes)
        {
            throw BrowserRequestError.tooLarge("the request body is larger than the server accepts")
        }
        switch mediaType {
        case "multipart/form-data":
            guard let boundary = MultipartReader.boundary(of: contentType) else {
                throw BrowserRequestError.invalid("multipart/form-data without a valid boundary")
            }
            let reader = MultipartReader(boundary: boundary, limits: environment.limits, blobs: environment.blobs)
            let early = call
            let (fields, upload) = try await reader.read(request.body) { fields in
                try await early.checkBeforeContent(fields)
            }
            call.parameters.add(fields)
            call.upload = upload
        case "application/x-www-form-urlencoded", "":
            let text = try await collect(request.body, limit: environment.limits.maxMetadataBytes)
            call.parameters.add(try FormDecoding.decode(Substring(text), maxFields: environment.limits.maxFormFields))
        default:
            throw BrowserRequestError.invalid(
                "a Browser binding POST is application/x-www-form-urlencoded or multipart/form-data, not \(mediaType)")
        }
    }

    func collect(_ body: RequestBody, limit: Int) async throws -> String {
        var bytes: [UInt8] = []
        do {
            for try await chunk in body {
                guard bytes.count + chunk.readableBytes <= limit else {
                    throw BrowserRequestError.tooLarge("the form is larger than \(limit) bytes")
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as BrowserRequestError {
            throw error
        } catch {
            throw BrowserRequestError.invalid("the request body could not be read")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BrowserRequestError.invalid("the form is not valid UTF-8")
        }
        return text
    }
}
