public import Foundation
import SatchelRepository

/// The keys an S3-compatible store checks: from the environment (``fromEnvironment(_:)``) or an owner-only file
/// in the AWS shared-credentials format (``fromFile(_:profile:)``), never from a command line. The secret never
/// appears in a description, a log line or a dump.
///
/// ```swift
/// let credentials = try S3Credentials.fromEnvironment()   // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
/// let fromFile = try S3Credentials.fromFile(URL(fileURLWithPath: "/etc/satchel/s3-credentials"))
/// ```
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access key id.
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Credentials of these parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, when set, `AWS_SESSION_TOKEN` from `environment` (the
    /// process's by default).
    ///
    /// - Throws: ``S3ConfigurationError`` naming the variable that is missing or empty.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(S3ConfigurationError) -> S3Credentials {
        func value(_ name: String) throws(S3ConfigurationError) -> String {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty
            else { throw S3ConfigurationError("\(name) is not set: the object store's credentials are missing") }
            return value
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return S3Credentials(
            accessKeyID: try value("AWS_ACCESS_KEY_ID"), secretAccessKey: try value("AWS_SECRET_ACCESS_KEY"),
            sessionToken: token)
    }

    /// Reads `profile` (`default` unless named) from a file in the AWS shared-credentials format:
    ///
    /// ```
    /// [default]
    /// aws_access_key_id = test:tester
    /// aws_secret_access_key = testing
    /// ```
    ///
    /// The file must belong to this process's user (or root) and be readable by nobody else (`chmod 600`).
    ///
    /// - Throws: ``S3ConfigurationError`` when the file is open to others, unreadable, or lacks the profile or a key.
    public static func fromFile(
        _ file: URL, profile: String = "default"
    ) throws(S3ConfigurationError)
        -> S3Credentials
    {
        let text: String
        do {
            text = try PrivateFiles.readSecret(file, role: "object store credentials")
        } catch {
            throw S3ConfigurationError(error.message)
        }
        var section: String?
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == profile, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = values["aws_access_key_id"], !id.isEmpty,
            let secret = values["aws_secret_access_key"], !secret.isEmpty
        else {
            throw S3ConfigurationError(
                "\(file.path) has no [\(profile)] profile with aws_access_key_id and aws_secret_access_key")
        }
        return S3Credentials(
            accessKeyID: id, secretAccessKey: secret,
            sessionToken: values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The access key id; the secret is redacted.
    public var description: String { "S3Credentials(\(accessKeyID), secret <redacted>)" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// A mirror showing only the access key id.
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID], displayStyle: .struct) }
}

/// An object store setting that cannot be used: a `--blobs` URL, credentials, a bucket.
public struct S3ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, for a person.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
