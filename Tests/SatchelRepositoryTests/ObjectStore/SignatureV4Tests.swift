import Foundation
import SatchelHTTP
import Testing

@testable import SatchelObjectStore

/// Signature Version 4 against the worked examples AWS publishes for S3 (header-based authentication): the same
/// keys, time and requests must give the same signatures, byte for byte.
@Suite("Signature Version 4: AWS's published S3 examples")
struct SignatureV4Tests {
    static let signer = SignatureV4(
        credentials: S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    /// 2013-05-24T00:00:00Z.
    static let date = Date(timeIntervalSince1970: 1_369_353_600)

    static func signature(_ request: HTTPClient.Request) -> String? {
        request.headers["Authorization"]?.components(separatedBy: "Signature=").last
    }

    @Test func getObjectWithRange() {
        var request = HTTPClient.Request(.get, url: URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!)
        request.headers["Range"] = "bytes=0-9"
        Self.signer.sign(&request, payloadHash: SignatureV4.emptyPayloadHash, date: Self.date)
        #expect(
            request.headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(request.headers["x-amz-date"] == "20130524T000000Z")
        #expect(request.headers["Host"] == "examplebucket.s3.amazonaws.com")
    }

    @Test func putObjectWithAnEncodedKeyAndADateHeader() {
        let key = SignatureV4.uriEncode("test$file.text", keepingSlash: true)
        #expect(key == "test%24file.text")
        var request = HTTPClient.Request(.put, url: URL(string: "https://examplebucket.s3.amazonaws.com/\(key)")!)
        request.headers["Date"] = "Fri, 24 May 2013 00:00:00 GMT"
        request.headers["x-amz-storage-class"] = "REDUCED_REDUNDANCY"
        Self.signer.sign(
            &request, payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
            date: Self.date)
        #expect(
            request.headers["Authorization"]?.contains(
                "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class") == true)
        #expect(
            Self.signature(request) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func listWithAQueryInAnyOrder() {
        var request = HTTPClient.Request(
            .get, url: URL(string: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J")!)
        Self.signer.sign(&request, payloadHash: SignatureV4.emptyPayloadHash, date: Self.date)
        #expect(
            Self.signature(request) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
        // The canonical query is sorted and encoded whatever order and encoding the URL has.
        var reordered = HTTPClient.Request(
            .get, url: URL(string: "https://examplebucket.s3.amazonaws.com/?prefix=%4A&max-keys=2")!)
        Self.signer.sign(&reordered, payloadHash: SignatureV4.emptyPayloadHash, date: Self.date)
        #expect(Self.signature(reordered) == Self.signature(request))
    }

    @Test func canonicalQueryAndHost() {
        #expect(SignatureV4.canonicalQuery("uploads") == "uploads=")
        #expect(
            SignatureV4.canonicalQuery("partNumber=2&uploadId=a%2Fb+c")
                == "partNumber=2&uploadId=a%2Fb%2Bc")
        #expect(SignatureV4.canonicalQuery("b=2&a=%7E&a=1") == "a=1&a=~&b=2")
        #expect(SignatureV4.host(of: URL(string: "http://127.0.0.1:8080/b")!) == "127.0.0.1:8080")
        #expect(SignatureV4.host(of: URL(string: "http://127.0.0.1:80/b")!) == "127.0.0.1")
        #expect(SignatureV4.host(of: URL(string: "https://[::1]:9000/b")!) == "[::1]:9000")
        #expect(SignatureV4.uriEncode("a b/ü~") == "a%20b%2F%C3%BC~")
    }

    /// The secret never shows: not in a description, a debug description or a dump.
    @Test func credentialsNeverPrintTheirSecret() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t-value", sessionToken: "tok")
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in [credentials.description, credentials.debugDescription, dumped, "\(credentials)"] {
            #expect(!text.contains("s3cr3t-value"))
            #expect(!text.contains("tok"))
        }
    }

    @Test func credentialsFromTheEnvironmentAndAnOwnerOnlyFile() throws {
        #expect(throws: S3ConfigurationError.self) { try S3Credentials.fromEnvironment([:]) }
        let fromEnvironment = try S3Credentials.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
        ])
        #expect(fromEnvironment.accessKeyID == "id" && fromEnvironment.sessionToken == nil)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-credentials-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try
            "# keys\n[other]\naws_access_key_id = no\n[default]\naws_access_key_id = test:tester\naws_secret_access_key=testing\n"
            .write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        // Readable by others: refused, with the fix named.
        #expect {
            try S3Credentials.fromFile(file)
        } throws: { error in
            (error as? S3ConfigurationError)?.message.contains("chmod 600") == true
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let credentials = try S3Credentials.fromFile(file)
        #expect(credentials.accessKeyID == "test:tester" && credentials.secretAccessKey == "testing")
        #expect(throws: S3ConfigurationError.self) { try S3Credentials.fromFile(file, profile: "missing") }
    }

    @Test func blobsURLs() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"]
        let settings = try S3BlobBackend.Configuration(
            url: "s3://bucket/some/prefix?endpoint=http://127.0.0.1:8080&region=eu-west-1&part-size=8",
            environment: environment)
        #expect(settings.bucket == "bucket" && settings.prefix == "some/prefix/" && settings.region == "eu-west-1")
        #expect(settings.partSize == 8 << 20 && settings.endpoint.port == 8080)
        for bad in [
            "http://bucket?endpoint=http://x", "s3://?endpoint=http://x", "s3://bucket",
            "s3://bucket?endpoint=ftp://x", "s3://id:secret@bucket?endpoint=http://x",
            "s3://bucket?endpoint=http://x&colour=blue", "s3://bucket?endpoint=http://id:secret@x",
            "s3://bucket?endpoint=http://x&part-size=1",
        ] {
            #expect("\(bad)") {
                try S3BlobBackend.Configuration(url: bad, environment: environment)
            } throws: { error in
                // Refused without repeating the address, which may hold keys.
                (error as? S3ConfigurationError).map { !$0.message.contains("secret") } ?? false
            }
        }
        #expect(throws: S3ConfigurationError.self) {
            try S3BlobBackend.Configuration(url: "s3://bucket?endpoint=http://x", environment: [:])
        }
    }
}
