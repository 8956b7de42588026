import Foundation
import Testing

/// The module rules of docs/cmis-core.md, read from the sources and the manifest: the CMIS vocabulary, CMIS QL,
/// the repository engine and the server never reach the HTTP client or the CMIS client (the server reaches
/// back-ends only through SatchelGateway, SatchelOfflineServer and SatchelObjectStore), and every target declares what it
/// imports.
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

    /// Modules every target may import without declaring them: the toolchain's, and a package's internal modules
    /// that come with a declared product.
    static let undeclaredAllowed: Set<String> = [
        "Foundation", "FoundationNetworking", "FoundationXML", "FoundationEssentials", "Testing", "Synchronization",
        "Glibc", "Musl", "Darwin", "Dispatch", "XCTest", "PackagePlugin", "CSatchelStoreVFS", "GRDBSQLite",
        "_CryptoExtras",
    ]

    @Test("every target declares each module its files import (incremental builds hide what is missing)")
    func declaredImports() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try NSRegularExpression(
            pattern: #"\.(?:target|testTarget|executableTarget)\(\s*name:\s*"([^"]+)"(.*?)swiftSettings"#,
            options: [.dotMatchesLineSeparators])
        let quoted = try NSRegularExpression(pattern: #""([A-Za-z_]+)""#)
        let product = try NSRegularExpression(pattern: #"\.product\(name:\s*"([^"]+)""#)
        let pathOption = try NSRegularExpression(pattern: #"path:\s*"([^"]+)""#)
        let importLine = try NSRegularExpression(
            pattern: #"^\s*(?:@testable |public |package |internal |@preconcurrency )*import (\w+)\s*$"#,
            options: [.anchorsMatchLines])
        func strings(_ regex: NSRegularExpression, in text: String) -> [String] {
            regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        var checked = 0
        var missing: [String] = []
        for match in target.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            guard let nameRange = Range(match.range(at: 1), in: manifest),
                let bodyRange = Range(match.range(at: 2), in: manifest)
            else { continue }
            let name = String(manifest[nameRange])
            let body = String(manifest[bodyRange])
            let dependencies = body.components(separatedBy: "dependencies:").dropFirst().first ?? ""
            let declared = Set(strings(quoted, in: dependencies) + strings(product, in: body))
            let folder: String
            if let path = strings(pathOption, in: body).first {
                folder = path
            } else if FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Tests/\(name)").path) {
                folder = "Tests/\(name)"
            } else {
                folder = "Sources/\(name)"
            }
            guard
                let files = FileManager.default.enumerator(
                    at: Self.root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            else { continue }
            checked += 1
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for module in strings(importLine, in: text)
                where module != name && !declared.contains(module) && !Self.undeclaredAllowed.contains(module) {
                    missing.append("\(name) (\(file.lastPathComponent)) imports \(module)")
                }
            }
        }
        #expect(checked > 30, "only \(checked) targets read from Package.swift")
        #expect(Set(missing).isEmpty, "\(Set(missing).sorted())")
    }
}
