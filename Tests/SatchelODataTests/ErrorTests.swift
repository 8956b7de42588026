import Foundation
import SatchelHTTP
import Testing

@testable import SatchelOData
import SatchelJSON

@Suite("OData errors")
struct ErrorTests {
    static func error(
        _ status: Int, _ body: Data, type: String = "application/json", headers: HTTPClient.Headers = [:]
    ) -> ODataError {
        var headers = headers
        headers["Content-Type"] = type
        let url = URL(string: "https://gw.example.edu/sap/opu/odata/sap/ZADM_SRV/StudentSet('0099')")!
        let response = HTTPClient.Response(status: status, headers: headers, url: url, body: body)
        return ODataError(
            response: response, request: HTTPClient.Request(.get, url: url, operation: "read StudentSet('0099')"))
    }

    @Test func v2SAPError() throws {
        let error = Self.error(404, try fixture("v2-error.json"))
        #expect(error.code == .notFound && error.status == 404)
        #expect(error.serviceCode == "ZADM/042")
        #expect(error.message == "Student 0099 does not exist")
        #expect(error.sapErrorDetails.count == 2)
        #expect(error.sapErrorDetails[1].target == "StudentId" && error.sapErrorDetails[1].severity == "error")
        #expect(error.innerError?["transactionid"] == "5A1B2C3D4E5F")
        #expect(error.httpError?.code == .notFound)
        #expect(error.description.contains("Resource not found for segment"))
        #expect(error.description.contains("read StudentSet('0099')"))
    }

    @Test func v4Error() throws {
        let error = Self.error(400, try fixture("v4-error.json"))
        #expect(error.code == .badRequest && error.serviceCode == "ValidationFailed")
        #expect(error.message == "The trip is invalid" && error.target == "Trips")
        #expect(error.details.map(\.target) == ["Trips/0/Name", "Trips/0/Budget"])
        #expect(error.innerError?["trace"] == "at Validator.check")
    }

    @Test func xmlErrorAndPrecondition() throws {
        let error = Self.error(412, try fixture("v2-error.xml"), type: "application/xml", headers: ["ETag": "W/\"42\""])
        #expect(error.code == .preconditionFailed && error.currentETag == "W/\"42\"")
        #expect(error.serviceCode == "SY/530" && error.message.hasPrefix("Update conflict"))
        #expect(error.sapErrorDetails.first?.message == "Record locked by MEYER")
    }

    @Test(arguments: [
        (500, "<html><title>Oops</title></html>", "text/html", ODataError.Code.server),
        (503, "", "text/plain", .server), (401, "", "text/plain", .unauthorized),
        (403, "nope", "text/plain", .forbidden),
        (405, "", "", .notSupported), (409, "{\"error\":{}}", "application/json", .conflict),
        (428, "", "", .preconditionRequired), (418, "{not json", "application/json", .clientError),
    ])
    func statuses(status: Int, body: String, type: String, code: ODataError.Code) {
        let error = Self.error(status, Data(body.utf8), type: type)
        #expect(error.code == code)
        #expect(!error.message.isEmpty)
    }

    @Test func plainTextMessageIsKept() {
        #expect(
            Self.error(403, Data("  CSRF token validation failed \n".utf8), type: "text/plain").message
                == "CSRF token validation failed")
    }
}

/// How an operation is called when the service's `$metadata` is not loaded: the generated proxies pass what the
/// generator read.
@Suite("Operation calls without metadata")
struct OperationHintTests {
    @Test func hintsPickTheMethodAndTheKind() throws {
        let v2 = ODataService(configuration: .init(serviceURL: URL(string: "http://127.0.0.1:1/sap/opu/odata/X")!))
        let get = try v2.operationCall("Touch", parameters: [("ID", .string("1"))], boundTo: nil, version: .v2)
        #expect(get.method == .get)
        let post = try v2.operationCall(
            "Touch", parameters: [("ID", .string("1"))], boundTo: nil, version: .v2, kind: .function,
            httpMethod: "POST")
        #expect(post.method == .post)
        let v4 = ODataService(configuration: .init(serviceURL: URL(string: "http://127.0.0.1:1/odata")!))
        let function = try v4.operationCall("Reset", parameters: [], boundTo: nil, version: .v4)
        #expect(function.method == .get && function.path.hasSuffix("()"))
        let action = try v4.operationCall("Reset", parameters: [], boundTo: nil, version: .v4, kind: .action)
        #expect(action.method == .post && action.path == "Reset")
    }
}
