import Foundation
import Hummingbird
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import SatchelTestSupport
import Synchronization
import Testing

/// An app's own entity type, as the Nuxeo SDK lets an app register one: read by its `entity-type`, written back.
struct Workflow: NuxeoEntityType, Equatable {
    static let entityType = "workflow"
    var id: String
    var name: String
    var state: String?

    init(id: String, name: String, state: String? = nil) {
        self.id = id
        self.name = name
        self.state = state
    }

    init(nuxeoEntity json: JSONValue) throws {
        guard let id = json["id"]?.stringValue, let name = json["name"]?.stringValue else {
            throw NuxeoError(.invalidResponse, "a workflow without id or name")
        }
        self.init(id: id, name: name, state: json["state"]?.stringValue)
    }

    var nuxeoEntityMembers: JSONObject {
        ["id": .string(id), "name": .string(name), "state": state.map { .string($0) } ?? .null]
    }
}

@Suite("Nuxeo entity types an app registers")
struct EntityRegistryTests {
    static let workflowJSON = #"{"entity-type":"workflow","id":"wf-1","name":"SerialDocumentReview","state":"running"}"#

    @Test("a registered entity-type is read by its type; without registration it stays .other with its JSON")
    func readByRegistration() throws {
        let data = Data(Self.workflowJSON.utf8)
        guard case .other(let type, let json) = try NuxeoEntity(json: data) else {
            Issue.record("an unregistered type is .other")
            return
        }
        #expect(type == "workflow" && json["name"]?.stringValue == "SerialDocumentReview")
        let registry = NuxeoEntityRegistry([Workflow.self])
        #expect(registry.entityTypes == ["workflow"])
        guard case .registered(let entity) = try NuxeoEntity(json: data, registry: registry) else {
            Issue.record("a registered type is .registered")
            return
        }
        #expect(entity.value(as: Workflow.self) == Workflow(id: "wf-1", name: "SerialDocumentReview", state: "running"))
        // Satchel's own types stay Satchel's, whatever is registered under their names.
        struct FakeDocument: NuxeoEntityType {
            static let entityType = "document"
            init(nuxeoEntity json: JSONValue) throws {}
            var nuxeoEntityMembers: JSONObject { [:] }
        }
        let document = try NuxeoEntity(
            json: Data(#"{"entity-type":"document","uid":"u","type":"Note"}"#.utf8),
            registry: NuxeoEntityRegistry([FakeDocument.self]))
        #expect(document == .document(try NuxeoDocument(json: ["uid": "u", "type": "Note"])))
    }

    @Test("an entity its type cannot read is an invalid-response error naming the type, never a half value")
    func unreadable() throws {
        let registry = NuxeoEntityRegistry([Workflow.self])
        let error = #expect(throws: NuxeoError.self) {
            try NuxeoEntity(json: Data(#"{"entity-type":"workflow","id":"wf-1"}"#.utf8), registry: registry)
        }
        #expect(error?.code == .invalidResponse)
        #expect(String(describing: error).contains("workflow without id or name"), "\(String(describing: error))")
    }

    @Test("the writer puts entity-type first, and what it writes reads back the same")
    func writer() throws {
        let workflow = Workflow(id: "wf-2", name: "ParallelDocumentReview")
        let json = workflow.nuxeoEntityJSON
        #expect(json.objectValue?.first?.key == "entity-type")
        #expect(
            json.serializedString()
                == #"{"entity-type":"workflow","id":"wf-2","name":"ParallelDocumentReview","state":null}"#)
        guard case .registered(let read) = try NuxeoEntity(value: json, registry: NuxeoEntityRegistry([Workflow.self]))
        else {
            Issue.record("the written entity reads back as registered")
            return
        }
        #expect(read.value(as: Workflow.self) == workflow)
    }

    @Test("over HTTP: the session sends an app's entity and reads the server's answer as the app's types")
    func overHTTP() async throws {
        let received = Mutex<String?>(nil)
        let server = try await TestHTTPServer.start { router in
            router.post("/nuxeo/api/v1/id/doc-1/@workflow") { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 1 << 16)
                received.withLock { $0 = String(buffer: body) }
                return Response(
                    status: .created, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.workflowJSON)))
            }
            router.get("/nuxeo/api/v1/id/doc-1/@workflow") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"entity-type":"task","id":"t-1"}"#)))
            }
        }
        try await withCleanup { () async throws in
            var configuration = NuxeoSession.Configuration(
                serverURL: server.url("/nuxeo"), http: HTTPClient.Configuration(retry: .never))
            configuration.entityTypes.register(Workflow.self)
            let session = NuxeoSession(configuration: configuration)
            let request = NuxeoRequest.id("doc-1").adapter("workflow").method(.post)
            let started = try await session.entity(
                request, sending: Workflow(id: "", name: "SerialDocumentReview"), as: Workflow.self)
            #expect(started == Workflow(id: "wf-1", name: "SerialDocumentReview", state: "running"))
            #expect(received.withLock { $0 }?.hasPrefix(#"{"entity-type":"workflow","id":"""#) == true)
            guard case .registered(let again) = try await session.entity(request, sending: started) else {
                Issue.record("the configured registry reads the answer")
                return
            }
            #expect(again.value(as: Workflow.self)?.id == "wf-1")
            let wrong = await #expect(throws: NuxeoError.self) {
                _ = try await session.entity(NuxeoRequest.id("doc-1").adapter("workflow"), as: Workflow.self)
            }
            #expect(wrong?.code == .invalidResponse)
            #expect(String(describing: wrong).contains("expected a workflow entity, the server answered a task entity"))
        } cleanup: {
            await server.stop()
        }
    }
}
