import Foundation
import SatchelCMISCore
import Testing

@Suite("Browser binding: error bodies and hostile input")
struct BrowserErrorTests {
    static let exceptions: [(String, Int, CMISError.Code)] = [
        ("invalidArgument", 400, .invalidArgument), ("objectNotFound", 404, .objectNotFound),
        ("permissionDenied", 403, .permissionDenied), ("notSupported", 405, .notSupported),
        ("constraint", 409, .constraint), ("contentAlreadyExists", 409, .contentAlreadyExists),
        ("filterNotValid", 400, .filterNotValid), ("nameConstraintViolation", 409, .nameConstraintViolation),
        ("storage", 500, .storage), ("streamNotSupported", 403, .streamNotSupported),
        ("updateConflict", 409, .updateConflict), ("versioning", 409, .versioning), ("runtime", 500, .runtime),
    ]

    @Test("an exception body maps to its code and keeps the server's message", arguments: exceptions)
    func exceptionBody(exception: String, status: Int, code: CMISError.Code) {
        let body = #"{"exception":"\#(exception)","message":"it failed: \#(exception)","stacktrace":"at x.y"}"#
        let error = CMISError.browser(status: status, body: Data(body.utf8))
        #expect(error.code == code)
        #expect(error.message == "it failed: \(exception)")
        #expect(error.serverException == exception)
        #expect(error.status == status)
    }

    @Test(
        "without a readable exception the status decides",
        arguments: [
            (400, CMISError.Code.invalidArgument), (401, .unauthorized), (403, .permissionDenied),
            (404, .objectNotFound), (405, .notSupported), (409, .constraint), (500, .runtime), (503, .runtime),
        ])
    func statusFallback(status: Int, code: CMISError.Code) {
        #expect(CMISError.browser(status: status, body: Data("<html>oops</html>".utf8)).code == code)
        #expect(CMISError.browser(status: status, body: Data(#"{"exception":"somethingNew"}"#.utf8)).code == code)
    }

    @Test("a truncated fixture fails with the byte offset")
    func truncated() throws {
        let data = try Fixture.data("browser-children.json")
        let error = #expect(throws: CMISError.self) { try BrowserParser.children(data.prefix(data.count / 2)) }
        #expect(error?.code == .invalidResponse)
        #expect(error?.offset != nil)
    }

    static let wrongShapes: [(String, String, String)] = [
        ("repositories", "[]", "$"),
        ("repositories", #"{"A1": {"repositoryName": "x", "rootFolderId": "1"}}"#, "A1"),
        ("repositories", #"{"A1": {"repositoryId": 5, "rootFolderId": "1"}}"#, "A1.repositoryId"),
        ("children", #"{"objects": {}}"#, "objects"),
        ("children", #"{"objects": [{"object": {"succinctProperties": {"cmis:name": "x"}}}]}"#, "objects[0].object"),
        (
            "object", #"{"properties": {"cmis:objectId": {"type": "id", "value": ["a", 1]}}}"#,
            "properties.cmis:objectId.value[1]"
        ),
        ("object", #"{"properties": {"x": {"type": "integer", "value": 1e400}}}"#, "properties.x.value"),
        ("object", #"{"succinctProperties": {"cmis:objectId": "1", "cmis:contentStreamLength": "big"}}"#, ""),
        ("typeDefinition", #"{"id": "t", "baseId": "cmis:unknown"}"#, "baseId"),
        ("contentChanges", #"{"objects": [{"properties": {}}]}"#, "objects[0]"),
        ("descendants", #"{"object": {}}"#, "$"),
    ]

    @Test("wrong shapes give invalid-response errors naming the JSON path", arguments: wrongShapes)
    func wrongShape(parser: String, body: String, path: String) {
        let data = Data(body.utf8)
        let error = #expect(throws: CMISError.self) {
            switch parser {
            case "repositories": _ = try BrowserParser.repositoryInfos(data)
            case "children": _ = try BrowserParser.children(data)
            case "object": _ = try BrowserParser.object(data)
            case "typeDefinition": _ = try BrowserParser.typeDefinition(data)
            case "contentChanges": _ = try BrowserParser.contentChanges(data)
            default: _ = try BrowserParser.descendants(data)
            }
        }
        #expect(error?.code == .invalidResponse)
        if !path.isEmpty { #expect(error?.path?.hasPrefix(path) == true, "\(error?.path ?? "nil")") }
    }

    @Test("a 1 MB property value parses")
    func hugeValue() throws {
        let big = String(repeating: "x", count: 1 << 20)
        let body = #"{"succinctProperties": {"cmis:objectId": "1", "cmis:description": "\#(big)"}}"#
        let object = try BrowserParser.object(Data(body.utf8))
        #expect(object.objectDescription?.utf8.count == 1 << 20)
    }

    static func tree(depth: Int) -> Data {
        var text = "[]"
        for level in (0..<depth).reversed() {
            text = #"[{"object":{"object":{"succinctProperties":{"cmis:objectId":"\#(level)"}}},"children":\#(text)}]"#
        }
        return Data(text.utf8)
    }

    @Test("a 200-level folder tree parses; a 5000-level one is refused, not a crash")
    func deepTrees() throws {
        var node = try #require(try BrowserParser.descendants(Self.tree(depth: 200)).first)
        var depth = 1
        while let child = node.children.first {
            node = child
            depth += 1
        }
        #expect(depth == 200)
        #expect(node.object.id == "199")
        let error = #expect(throws: CMISError.self) { try BrowserParser.descendants(Self.tree(depth: 5000)) }
        #expect(error?.code == .invalidResponse)
    }

    @Test("every Browser fixture parses with its parser")
    func everyFixture() throws {
        _ = try BrowserParser.repositoryInfos(Fixture.data("browser-repositories.json"))
        _ = try BrowserParser.children(Fixture.data("browser-children.json"))
        _ = try BrowserParser.children(Fixture.data("browser-children-succinct.json"))
        _ = try BrowserParser.descendants(Fixture.data("browser-descendants-succinct.json"))
        _ = try BrowserParser.object(Fixture.data("browser-object-document.json"))
        _ = try BrowserParser.queryResults(Fixture.data("browser-query.json"))
        _ = try BrowserParser.contentChanges(Fixture.data("browser-content-changes.json"))
        _ = try BrowserParser.typeDefinitionList(Fixture.data("browser-type-children.json"))
        _ = try BrowserParser.typeDefinition(Fixture.data("browser-typedef-document.json"))
        _ = try BrowserParser.endpoints(Fixture.data("cmis-endpoints.json"))
    }
}
