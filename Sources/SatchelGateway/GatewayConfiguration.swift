public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// The back-end repositories a `satchel serve` mounts beside its own (`satchel serve --gateway FILE`).
///
/// ```json
/// {"repositories": [
///   {"id": "docs", "name": "Documents", "url": "https://cmis.example.com/browser", "binding": "browser",
///    "repositoryId": "A1", "users": {"serviceAccount": {"user": "svc", "passwordEnv": "DOCS_PASSWORD"}}},
///   {"id": "team", "url": "https://cmis.example.com/atom", "binding": "atomPub", "repositoryId": "T",
///    "users": "passThrough", "myDocuments": "/Users", "timeoutSeconds": 20}
/// ]}
/// ```
///
/// The file holds no password: a service account's comes from an environment variable (`passwordEnv`) or from a
/// file only its owner may read (`passwordFile`). The configuration file itself must not be writable by anyone
/// but its owner, since it decides where users' requests (and, passed through, their passwords) go.
public struct GatewayConfiguration: Sendable, Hashable {
    /// The mounted back-ends, in the file's order (the order the repository list shows them in).
    public var mounts: [Mount]

    /// A configuration of `mounts`, taken as given: `parse(_:relativeTo:environment:)` is what checks a file.
    public init(mounts: [Mount]) { self.mounts = mounts }

    /// One back-end repository, shown to users as repository ``id``.
    public struct Mount: Sendable, Hashable {
        /// The repository id users see (letters, digits, `-`, `_`, `.`).
        public var id: String
        /// The repository name users see; the back-end's own when nil.
        public var name: String?
        /// The back-end's service URL (the Browser binding's URL or the AtomPub service document).
        public var url: URL
        /// The back-end's binding: `.browser` by default.
        public var binding: Binding
        /// The back-end's repository id.
        public var repositoryId: String
        /// Whose credentials reach the back-end: a service account's or each user's own.
        public var users: Users
        /// The back-end folder path under which each user gets a MyDocuments folder (`/Users` → `/Users/alice`),
        /// created on first use and shared with nobody else. Only with ``Users/passThrough``: under one service
        /// account the back-end could not keep users' folders apart.
        public var myDocuments: String?
        /// The back-end account that creates users' MyDocuments folders and gives each to its user alone (an
        /// administrator of the ``myDocuments`` folder). Without one, each user creates their own, so everyone
        /// must be allowed to add folders there, and whether others can then reach them is the back-end's ACL
        /// model's to say (on a back-end where a folder's ACEs always reach its contents, they can).
        public var provisioner: Account?
        /// How long one back-end request may take.
        public var timeout: Duration

        /// A mount with the given values; the timeout defaults to 30 seconds. Nothing is checked here (the file's
        /// loader checks ids, URLs and passwords).
        public init(
            id: String, name: String? = nil, url: URL, binding: Binding = .browser, repositoryId: String,
            users: Users, myDocuments: String? = nil, provisioner: Account? = nil, timeout: Duration = .seconds(30)
        ) {
            self.id = id
            self.name = name
            self.url = url
            self.binding = binding
            self.repositoryId = repositoryId
            self.users = users
            self.myDocuments = myDocuments
            self.provisioner = provisioner
            self.timeout = timeout
        }
    }

    /// The CMIS binding the gateway speaks to a back-end (`binding` in the file).
    public enum Binding: String, Sendable, Hashable, CaseIterable {
        /// The Browser (JSON) binding: `url` is the binding's service URL.
        case browser
        /// The AtomPub binding: `url` is the service document.
        case atomPub
    }

    /// A back-end user name and password (which never prints).
    public struct Account: Sendable, Hashable, CustomStringConvertible {
        /// The back-end user name.
        public var user: String
        /// The back-end password (from `passwordEnv` or `passwordFile` when loaded from a gateway file).
        public var password: String

        /// An account of `user` and `password`.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The user name, with the password shown as `<redacted>`.
        public var description: String { "\(user) (password <redacted>)" }
    }

    /// Whose credentials reach the back-end.
    public enum Users: Sendable, Hashable, CustomStringConvertible {
        /// Every user's requests run as this one account: the back-end sees a single user.
        case serviceAccount(user: String, password: String)
        /// Each user's own user name and password (as signed in at Satchel with Basic) go to the back-end, which
        /// decides what each may see.
        case passThrough

        /// `passThrough`, or the service account's user name with the password shown as `<redacted>`.
        public var description: String {
            switch self {
            case .serviceAccount(let user, _): "service account \(user) (password <redacted>)"
            case .passThrough: "passThrough"
            }
        }
    }

    /// Reads and checks a gateway file; `environment` supplies `passwordEnv` variables.
    public static func load(
        from file: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> GatewayConfiguration {
        do {
            try PrivateFiles.checkNotWritableByOthers(file, role: "gateway file")
        } catch {
            throw GatewayError(error.message)
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw GatewayError("cannot read the gateway file \(file.path): \(error.localizedDescription)")
        }
        do {
            return try parse(data, relativeTo: file.deletingLastPathComponent(), environment: environment)
        } catch let error as GatewayError {
            throw GatewayError("the gateway file \(file.path): \(error.message)")
        }
    }

    /// Parses a gateway file's JSON; relative `passwordFile` paths are read from `folder`.
    public static func parse(
        _ data: Data, relativeTo folder: URL, environment: [String: String]
    ) throws -> GatewayConfiguration {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data, limits: JSONLimits(maxDepth: 16))
        } catch {
            throw GatewayError("not JSON: \(error)")
        }
        guard let list = json["repositories"]?.arrayValue else {
            throw GatewayError("it needs a \"repositories\" list")
        }
        var mounts: [Mount] = []
        for (index, entry) in list.enumerated() {
            do {
                mounts.append(try mount(entry, folder: folder, environment: environment))
            } catch let error as GatewayError {
                throw GatewayError("repositories[\(index)]: \(error.message)")
            }
        }
        let ids = mounts.map(\.id)
        if let twice = ids.first(where: { id in ids.filter { $0 == id }.count > 1 }) {
            throw GatewayError("the repository id \(twice) is used twice")
        }
        return GatewayConfiguration(mounts: mounts)
    }

    static func mount(_ json: JSONValue, folder: URL, environment: [String: String]) throws -> Mount {
        func string(_ key: String) throws -> String {
            guard let value = json[key]?.stringValue, !value.isEmpty else {
                throw GatewayError("\"\(key)\" is missing or not a string")
            }
            return value
        }
        let id = try string("id")
        // It is a path segment of every URL the mount is reached by: `.` and `..` (or anything else that starts with
        // a dot) would be read as a step through the path.
        guard id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }),
            let first = id.first, first.isLetter || first.isNumber
        else {
            throw GatewayError(
                "the id \(id) may hold only letters, digits, '-', '_' and '.', and starts with a letter or digit"
                    + " (64 at most)")
        }
        guard !RepositoryConfiguration.isMyDocumentsRepositoryId(id) else {
            throw GatewayError("the id \(id) would look like a MyDocuments repository (mydocs-…)")
        }
        guard id != RepositoryConfiguration().sharedRepositoryId else {
            throw GatewayError("the id \(id) is the server's own shared repository")
        }
        let urlText = try string("url")
        guard let url = URL(string: urlText), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else {
            throw GatewayError("the url \(urlText) is not an http or https URL")
        }
        guard url.user == nil, url.password == nil else {
            throw GatewayError("the url of \(id) holds credentials: use \"users\" (passwordEnv or passwordFile)")
        }
        // A binding's URL has no query or fragment (the client adds its own), and one here is where a secret would
        // hide (`?password=…`), to be logged and sent with every request.
        guard url.query == nil, url.fragment == nil else {
            throw GatewayError(
                "the url of \(id) has a query or fragment: name the binding's service URL alone, and credentials in"
                    + " \"users\"")
        }
        let bindingName = json["binding"]?.stringValue ?? "browser"
        guard let binding = Binding(rawValue: bindingName) else {
            throw GatewayError("the binding \(bindingName) is neither browser nor atomPub")
        }
        let users = try self.users(json["users"], folder: folder, environment: environment)
        if users == .passThrough, url.scheme?.lowercased() == "http", !isLoopback(url.host ?? "") {
            throw GatewayError(
                "\(id) passes users' passwords through: its back-end must be https (or on this machine), not \(urlText)"
            )
        }
        let myDocuments = json["myDocuments"]?.stringValue
        if let myDocuments {
            guard myDocuments.hasPrefix("/") else {
                throw GatewayError("myDocuments \(myDocuments) must be an absolute back-end path")
            }
            guard users == .passThrough else {
                throw GatewayError(
                    "myDocuments needs \"users\": \"passThrough\": under one service account the back-end cannot"
                        + " keep users' folders apart")
            }
        }
        var provisioner: Account?
        if let json = json["provisioner"] {
            guard myDocuments != nil else {
                throw GatewayError("a provisioner only creates MyDocuments folders: set myDocuments")
            }
            provisioner = try account(json, role: "provisioner", folder: folder, environment: environment)
        }
        var timeout = Duration.seconds(30)
        if let seconds = json["timeoutSeconds"] {
            guard let value = seconds.doubleValue, value > 0, value <= 3_600 else {
                throw GatewayError("timeoutSeconds must be a number of seconds between 0 and 3600")
            }
            timeout = .milliseconds(Int64(value * 1000))
        }
        return Mount(
            id: id, name: json["name"]?.stringValue, url: url, binding: binding,
            repositoryId: try string("repositoryId"),
            users: users, myDocuments: myDocuments, provisioner: provisioner, timeout: timeout)
    }

    static func users(_ json: JSONValue?, folder: URL, environment: [String: String]) throws -> Users {
        if json?.stringValue == "passThrough" || json?["passThrough"] != nil { return .passThrough }
        guard let json = json?["serviceAccount"] else {
            throw GatewayError("\"users\" must be \"passThrough\" or {\"serviceAccount\": {…}}")
        }
        let account = try account(json, role: "service account", folder: folder, environment: environment)
        return .serviceAccount(user: account.user, password: account.password)
    }

    /// `{"user": …, "passwordEnv": …}` or `{"user": …, "passwordFile": …}`; a password written in the file is refused.
    static func account(
        _ json: JSONValue, role: String, folder: URL, environment: [String: String]
    ) throws -> Account {
        guard let user = json["user"]?.stringValue, !user.isEmpty else {
            throw GatewayError("the \(role) needs a \"user\"")
        }
        if json["password"] != nil {
            throw GatewayError("the \(role)'s password may not be written in the file: use passwordEnv or passwordFile")
        }
        if let name = json["passwordEnv"]?.stringValue {
            guard let password = environment[name], !password.isEmpty else {
                throw GatewayError("the environment variable \(name) (the \(role)'s password) is not set")
            }
            return Account(user: user, password: password)
        }
        if let path = json["passwordFile"]?.stringValue {
            let file = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
            do {
                return Account(user: user, password: try PrivateFiles.readSecret(file, role: "password"))
            } catch {
                throw GatewayError(error.message)
            }
        }
        throw GatewayError("the \(role) needs passwordEnv or passwordFile")
    }

    /// Whether `host` is this machine for certain: `localhost`, an IPv4 address in 127.0.0.0/8 written as one
    /// (four decimal parts), or the IPv6 loopback address. A name that merely starts like one
    /// (`127.attacker.example`) is a name, which DNS may point anywhere.
    package static func isLoopback(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            // Network byte order: the first byte in memory is the first part.
            return withUnsafeBytes(of: &v4) { $0[0] } == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }
}

/// A gateway file that cannot be used, or a back-end that cannot be mounted.
public struct GatewayError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for a person: names the file, the entry and the key when they are known.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
