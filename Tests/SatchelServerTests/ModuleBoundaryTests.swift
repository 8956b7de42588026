import Foundation
import Testing

/// The module rules of docs/cmis-core.md, read from the sources and the manifest: the CMIS vocabulary, CMIS QL,
/// the repository engine and the server never reach the HTTP client or the CMIS client.
@Suite("Module boundaries")
struct ModuleBoundaryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let httpFree = [
        "SatchelText", "SatchelCMISCore", "SatchelCMISQL", "SatchelRepository", "SatchelRepositoryPostgres",
        "SatchelServer",
    ]

    @Test("no source of the server side imports SatchelHTTP or the CMIS client")
    func imports() throws {
        var offenders: [String] = []
        for module in Self.httpFree {
            let folder = Self.root.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            var count = 0
            for case let file as URL in files where file.pathExtension == "swift" {
                count += 1
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                where line.contains("import SatchelHTTP") || line.hasSuffix("import SatchelCMIS")
                    || line.contains("import FoundationNetworking")
                {
                    offenders.append("\(module)/\(file.lastPathComponent): \(line)")
                }
            }
            #expect(count > 0, "Sources/\(module) has no sources: the rule would hold vacuously")
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    @Test("the manifest gives the server side no dependency on SatchelHTTP or the CMIS client")
    func manifest() throws {
        let manifest = try String(
            contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for module in Self.httpFree {
            let start = try #require(
                manifest.range(of: #"\.target\(\s*name: ""# + module + #"","#, options: .regularExpression),
                "\(module) is not a target")
            let rest = manifest[start.upperBound...]
            let end = rest.range(of: "swiftSettings")?.lowerBound ?? rest.endIndex
            let declaration = rest[..<end]
            #expect(!declaration.contains("\"SatchelHTTP\""), "\(module) depends on SatchelHTTP")
            #expect(!declaration.contains("\"SatchelCMIS\""), "\(module) depends on the CMIS client")
        }
    }
}
