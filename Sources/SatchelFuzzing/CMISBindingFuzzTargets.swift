import Foundation
import SatchelCMISCore
import SatchelXML

/// What the CMIS binding targets share: the input's first byte picks which answer the rest is read as, the way
/// the client reads whichever answer a server sends to the request it made.
enum CMISBindingFuzzing {
    /// One kind of answer: its name for messages, and a read (which may check more, throwing ``FuzzViolation``).
    struct Reader: Sendable {
        let name: String
        let read: @Sendable (Data) throws -> Void
    }

    /// A seed file once for each reader: a selector byte in front.
    static func seedForms(readers: Int) -> @Sendable ([UInt8]) -> [[UInt8]] {
        { bytes in (0..<readers).map { [UInt8($0)] + bytes } }
    }

    /// Reads the input with the reader its first byte picks. Failing to read must throw a ``CMISError`` of code
    /// `.invalidResponse`; what reads must write and read again, and from then on stay the same.
    static func check(_ bytes: [UInt8], target: String, readers: [Reader]) throws(FuzzViolation) {
        guard let selector = bytes.first else { return }
        let reader = readers[Int(selector) % readers.count]
        let body = Data(bytes.dropFirst())
        func violation(_ message: String) -> FuzzViolation {
            FuzzViolation(target, "\(reader.name): \(message): \(Array(body).excerpt())")
        }
        do {
            try reader.read(body)
        } catch let violation as FuzzViolation {
            throw violation
        } catch let error as CMISError {
            guard error.code == .invalidResponse else {
                throw violation("a CMISError of code \(error.code), not .invalidResponse: \(error)")
            }
        } catch {
            throw violation("the parser threw something other than a CMISError: \(error)")
        }
    }
}

extension CMISBindingFuzzing {
    /// Reads, writes and reads twice more; throws when the second and third reads differ, or when what was written
    /// does not read.
    static func stable<Value: Equatable>(
        _ data: Data, target: String, read: (Data) throws -> Value, write: (Value) -> [UInt8]
    ) throws {
        func again(_ value: Value, _ round: String) throws -> Value {
            let written = write(value)
            do {
                return try read(Data(written))
            } catch {
                throw FuzzViolation(target, "written \(round) as \(written.excerpt(400)), it no longer reads: \(error)")
            }
        }
        let second = try again(try read(data), "once")
        let third = try again(second, "twice")
        guard second == third else {
            throw FuzzViolation(target, "written and read twice, it changed: \(second) then \(third)")
        }
    }
}

/// Browser binding answers (`BrowserParser`): objects, lists, repositories, types, ACLs, content changes.
///
/// - What cannot be read throws ``CMISError`` `.invalidResponse`, never a trap.
/// - Objects, type definitions, ACLs, allowable actions and repository infos that read are written with
///   `BrowserJSONWriter` and read again; written and read once more, they must not change (the writer and the
///   parser agree once the input's loose forms are normalised: string dates, integers as decimals).
enum BrowserFuzzTarget {
    static let target = FuzzTarget(
        name: "browser", summary: "CMIS Browser binding answers: BrowserParser (first byte picks the answer)",
        seedFolders: ["Tests/SatchelCMISCoreTests/Fixtures/cmis-opencmis"], seedExtensions: ["json"],
        seedForms: CMISBindingFuzzing.seedForms(readers: readers.count),
        check: { bytes throws(FuzzViolation) in
            try CMISBindingFuzzing.check(bytes, target: "browser", readers: readers)
        })

    /// The Browser round trip: written full (`succinct: false`) with `write`.
    static func stable<Value: Equatable>(
        _ data: Data, read: (Data) throws -> Value, write: @escaping (Value, inout BrowserJSONWriter) -> Void
    ) throws {
        try CMISBindingFuzzing.stable(data, target: "browser", read: read) { value in
            var writer = BrowserJSONWriter(succinct: false)
            write(value, &writer)
            return writer.bytes
        }
    }

    static let readers: [CMISBindingFuzzing.Reader] = [
        .init(name: "object") { try stable($0, read: { try BrowserParser.object($0) }, write: { $1.object($0) }) },
        .init(name: "typeDefinition") {
            try stable($0, read: { try BrowserParser.typeDefinition($0) }, write: { $1.typeDefinition($0) })
        },
        .init(name: "acl") { try stable($0, read: { try BrowserParser.acl($0) }, write: { $1.acl($0) }) },
        .init(name: "allowableActions") {
            try stable($0, read: { try BrowserParser.allowableActions($0) }, write: { $1.allowableActions($0) })
        },
        .init(name: "repositoryInfo") {
            try stable(
                $0, read: { try BrowserParser.repositoryInfo($0) }, write: { $1.repositoryInfo($0, baseURL: nil) })
        },
        .init(name: "repositoryInfos") { _ = try BrowserParser.repositoryInfos($0) },
        .init(name: "children") { _ = try BrowserParser.children($0) },
        .init(name: "descendants") { _ = try BrowserParser.descendants($0) },
        .init(name: "parents") { _ = try BrowserParser.parents($0) },
        .init(name: "queryResults") { _ = try BrowserParser.queryResults($0) },
        .init(name: "objectList") { _ = try BrowserParser.objectList($0) },
        .init(name: "contentChanges") { _ = try BrowserParser.contentChanges($0) },
        .init(name: "renditions") { _ = try BrowserParser.renditions($0) },
        .init(name: "typeDefinitionList") { _ = try BrowserParser.typeDefinitionList($0) },
        .init(name: "typeDescendants") { _ = try BrowserParser.typeDescendants($0) },
    ]
}

/// AtomPub binding answers (`AtomPubParser`): entries, feeds, service documents, types, ACLs.
///
/// - What cannot be read throws ``CMISError`` `.invalidResponse`, never a trap.
/// - An entry's object that reads is written with `AtomPubWriter` into an entry and read again; written and read
///   once more, it must not change.
enum AtomPubFuzzTarget {
    static let target = FuzzTarget(
        name: "atompub", summary: "CMIS AtomPub binding answers: AtomPubParser (first byte picks the answer)",
        seedFolders: ["Tests/SatchelCMISCoreTests/Fixtures/cmis-opencmis"], seedExtensions: ["xml"],
        seedForms: CMISBindingFuzzing.seedForms(readers: readers.count),
        check: { bytes throws(FuzzViolation) in
            try CMISBindingFuzzing.check(bytes, target: "atompub", readers: readers)
        })

    /// The object as an `atom:entry` around its `cmisra:object`.
    static func entry(_ object: CMISObject) -> Data {
        var writer = AtomPubWriter.makeWriter()
        writer.start("entry", namespace: XNamespace.atom)
        writer.element("id", namespace: XNamespace.atom, text: object.id ?? "urn:uuid:0")
        writer.element("title", namespace: XNamespace.atom, text: object.name ?? "")
        AtomPubWriter.object(object, into: &writer)
        writer.end()
        return Data(writer.finish())
    }

    static func stableObject(_ data: Data) throws {
        try CMISBindingFuzzing.stable(data, target: "atompub", read: { try AtomPubParser.object($0) }) {
            Array(entry($0))
        }
    }

    static let readers: [CMISBindingFuzzing.Reader] = [
        .init(name: "object") { try stableObject($0) },
        .init(name: "entry") { _ = try AtomPubParser.entry($0) },
        .init(name: "feed") { _ = try AtomPubParser.feed($0) },
        .init(name: "children") { _ = try AtomPubParser.children($0) },
        .init(name: "descendants") { _ = try AtomPubParser.descendants($0) },
        .init(name: "queryResults") { _ = try AtomPubParser.queryResults($0) },
        .init(name: "objectList") { _ = try AtomPubParser.objectList($0) },
        .init(name: "allowableActions") { _ = try AtomPubParser.allowableActions($0) },
        .init(name: "acl") { _ = try AtomPubParser.acl($0) },
        .init(name: "serviceDocument") { _ = try AtomPubParser.serviceDocument($0) },
        .init(name: "repositoryInfos") { _ = try AtomPubParser.repositoryInfos($0) },
        .init(name: "typeDefinition") { _ = try AtomPubParser.typeDefinition($0) },
        .init(name: "typeDefinitionList") { _ = try AtomPubParser.typeDefinitionList($0) },
    ]
}
