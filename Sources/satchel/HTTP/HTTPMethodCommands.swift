import ArgumentParser
import SatchelHTTP

// One small command per method; they differ only in the method and whether they take a body.

struct HTTPGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "GET a URL.")
    @OptionGroup(title: "Request Options") var target: TargetOptions
    @OptionGroup(title: "Connection Options") var connection: ConnectionOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        try await HTTPInvocation(method: .get, target: target, body: nil, connection: connection, global: global).run()
    }
}

struct HTTPHead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "head", abstract: "HEAD a URL (use -i to see the headers).")
    @OptionGroup(title: "Request Options") var target: TargetOptions
    @OptionGroup(title: "Connection Options") var connection: ConnectionOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        try await HTTPInvocation(method: .head, target: target, body: nil, connection: connection, global: global).run()
    }
}

struct HTTPDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "DELETE a URL.")
    @OptionGroup(title: "Request Options") var target: TargetOptions
    @OptionGroup(title: "Connection Options") var connection: ConnectionOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        try await HTTPInvocation(method: .delete, target: target, body: nil, connection: connection, global: global)
            .run()
    }
}

struct HTTPPut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "put", abstract: "PUT a body to a URL.")
    @OptionGroup(title: "Request Options") var target: TargetOptions
    @OptionGroup(title: "Body Options") var body: BodyOptions
    @OptionGroup(title: "Connection Options") var connection: ConnectionOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        try await HTTPInvocation(method: .put, target: target, body: body, connection: connection, global: global).run()
    }
}

struct HTTPPost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "post", abstract: "POST a body to a URL.")
    @OptionGroup(title: "Request Options") var target: TargetOptions
    @OptionGroup(title: "Body Options") var body: BodyOptions
    @OptionGroup(title: "Connection Options") var connection: ConnectionOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        try await HTTPInvocation(method: .post, target: target, body: body, connection: connection, global: global)
            .run()
    }
}

struct HTTPPatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "patch", abstract: "PATCH a URL with a body.")
    @OptionGroup(title: "Request Options") var target: TargetOptions
    @OptionGroup(title: "Body Options") var body: BodyOptions
    @OptionGroup(title: "Connection Options") var connection: ConnectionOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        try await HTTPInvocation(method: .patch, target: target, body: body, connection: connection, global: global)
            .run()
    }
}
