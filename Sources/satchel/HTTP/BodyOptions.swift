import ArgumentParser
import SatchelHTTP
import Foundation

/// Where a request body comes from; exactly one source, files streamed from disk.
struct BodyOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp("Send this text (text/plain unless --content-type).", valueName: "text"))
    var data: String?

    @Option(
        help: ArgumentHelp(
            "Send this file, streamed (application/octet-stream unless --content-type).",
            valueName: "path"))
    var dataFile: String?

    @Option(help: ArgumentHelp("Send this JSON text as application/json.", valueName: "json"))
    var json: String?

    @Option(help: ArgumentHelp("Send a urlencoded form field; repeatable.", valueName: "name=value"))
    var form: [String] = []

    @Option(
        help: ArgumentHelp(
            "Send a multipart/form-data part: name=value, or name=@path for a file (streamed);"
                + " repeatable.", valueName: "name=value"))
    var multipart: [String] = []

    @Option(help: ArgumentHelp("The body's Content-Type.", valueName: "type"))
    var contentType: String?

    func validate() throws {
        let sources = [data != nil, dataFile != nil, json != nil, !form.isEmpty, !multipart.isEmpty].filter { $0 }
        guard sources.count <= 1 else {
            throw ValidationError("use one of --data, --data-file, --json, --form and --multipart")
        }
        if contentType != nil, !multipart.isEmpty {
            throw ValidationError("--multipart sets its own Content-Type (with the boundary)")
        }
        for field in form + multipart where Self.split(field) == nil {
            throw ValidationError("--form and --multipart need name=value, got \"\(field.prefix(40))\"")
        }
    }

    /// The body, or nil when none was given.
    func makeBody() throws -> HTTPClient.Body? {
        var body: HTTPClient.Body
        if let data {
            body = .text(data)
        } else if let dataFile {
            body = try .file(URL(fileURLWithPath: dataFile))
        } else if let json {
            body = .json(bytes: Data(json.utf8))
        } else if !form.isEmpty {
            body = .form(form.compactMap(Self.split))
        } else if !multipart.isEmpty {
            body = .multipart(try multipartForm())
        } else {
            return nil
        }
        if let contentType { body.contentType = contentType }
        return body
    }

    private func multipartForm() throws -> MultipartFormData {
        var form = MultipartFormData()
        for (name, value) in multipart.compactMap(Self.split) {
            if value.hasPrefix("@") {
                try form.addFile(name, fileURL: URL(fileURLWithPath: String(value.dropFirst())))
            } else {
                form.addField(name, value)
            }
        }
        return form
    }

    static func split(_ field: String) -> (String, String)? {
        guard let equals = field.firstIndex(of: "="), equals != field.startIndex else { return nil }
        return (String(field[..<equals]), String(field[field.index(after: equals)...]))
    }
}
