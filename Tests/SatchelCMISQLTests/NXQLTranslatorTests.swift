import SatchelCMISCore
import SatchelCMISQL
import SatchelNXQL
import Testing

/// NXQL into CMIS QL, as `satchel serve`'s Nuxeo routes translate a search (the `nxql` fuzz target checks the same
/// properties on every input it makes).
@Suite("NXQL translated into CMIS QL")
struct NXQLTranslatorTests {
    @Test("conditions map onto CMIS properties and folders; what holds everywhere is dropped")
    func translation() throws {
        var translation = try NXQLTranslator.translate(
            "SELECT * FROM Document WHERE ecm:parentId = 'p1' AND ecm:isVersion = 0 AND dc:title LIKE 'a%' "
                + "AND dc:modified >= '2026-01-02' AND ecm:path STARTSWITH '/a b' ORDER BY dc:title DESC")
        #expect(translation.pathsToResolve == ["/a b"])
        translation.resolve(path: 0, to: "folder-1")
        #expect(
            translation.statements == [
                "SELECT * FROM cmis:folder WHERE IN_FOLDER('p1') AND cmis:name LIKE 'a%' AND cmis:lastModificationDate "
                    + ">= TIMESTAMP '2026-01-02' AND IN_TREE('folder-1') ORDER BY cmis:name DESC",
                "SELECT * FROM cmis:document WHERE IN_FOLDER('p1') AND cmis:name LIKE 'a%' AND "
                    + "cmis:lastModificationDate >= TIMESTAMP '2026-01-02' AND IN_TREE('folder-1') ORDER BY cmis:name DESC",
            ])
        for statement in translation.statements { _ = try CMISQL.parse(statement) }
    }

    @Test("a date compared with what is not one is refused by the translation, not by the query engine later")
    func notADate() {
        let error = #expect(throws: CMISError.self) {
            try NXQLTranslator.translate("SELECT * FROM Document WHERE dc:modified > 'yesterday'")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("dc:modified compared with 'yesterday', not a date") == true)
    }

    /// Found by the `nxql` fuzz target (`Fuzz/Regressions/nxql/ancestor-id-number.nxql`): `IN_TREE(0)` reached the
    /// query engine, which refused it as a syntax error.
    @Test("a folder condition takes an id in quotes")
    func folderIdNotANumber() {
        for property in ["ecm:parentId", "ecm:ancestorId"] {
            let error = #expect(throws: CMISError.self) {
                try NXQLTranslator.translate("SELECT * FROM Folder WHERE \(property) = 0")
            }
            #expect(error?.message.contains("\(property) takes a document id in quotes, not 0") == true)
        }
    }

    @Test("literals, folder ids and trash keys stay inside their quotes")
    func injection() throws {
        var translation = try NXQLTranslator.translate(
            #"SELECT * FROM File WHERE dc:title = 'x\' OR cmis:name = \'y\\' AND ecm:path STARTSWITH '/p'"#)
        translation.resolve(path: 0, to: "f') OR IN_TREE('g")
        translation.trash = NXQLTranslator.TrashFilter(keys: ["k') OR ('1", "\\"], only: false)
        let statement = try #require(translation.statements.first)
        guard case .and(let terms)? = try CMISQL.parse(statement).whereClause else {
            Issue.record("not a conjunction: \(statement)")
            return
        }
        // File's own type condition, the title, the tree and the trash filter.
        #expect(terms.count == 4, "\(statement)")
        #expect(
            terms.dropFirst().first
                == .comparison(ColumnReference(name: "cmis:name"), .equal, .string(#"x' OR cmis:name = 'y\"#)))
    }

    @Test(
        "Nuxeo's document types: Note and Workspace are their own CMIS types with a title of their own; File and Folder also stand for the base types' objects"
    )
    func documentTypes() throws {
        #expect(
            try NXQLTranslator.translate("SELECT * FROM Note WHERE dc:title = 'Monday' ORDER BY dc:title").statements
                == ["SELECT * FROM Note WHERE dc:title = 'Monday' ORDER BY dc:title"])
        #expect(
            try NXQLTranslator.translate("SELECT * FROM Workspace").statements == ["SELECT * FROM Workspace"])
        #expect(
            try NXQLTranslator.translate("SELECT * FROM File WHERE dc:title = 'a'").statements == [
                "SELECT * FROM cmis:document WHERE cmis:objectTypeId IN ('cmis:document', 'File') AND cmis:name = 'a'"
            ])
        #expect(
            try NXQLTranslator.translate("SELECT * FROM Folder").statements == [
                "SELECT * FROM cmis:folder WHERE cmis:objectTypeId IN ('cmis:folder', 'Folder')"
            ])
        let empty = #expect(throws: CMISError.self) {
            try NXQLTranslator.translate("SELECT * FROM Note WHERE ecm:mixinType = 'Folderish'")
        }
        #expect(empty?.message.contains("is empty") == true)
        for nxql in ["SELECT * FROM Note WHERE dc:title = 'x'", "SELECT * FROM File WHERE dc:title = 'x'"] {
            for statement in try NXQLTranslator.translate(nxql).statements { _ = try CMISQL.parse(statement) }
        }
    }
}

@Suite("Escapes that carry a combining mark")
struct CombiningMarkEscapeTests {
    @Test("a backslash before a quote or backslash that carries a combining mark escapes it, in CMIS QL and NXQL")
    func escapedMarks() throws {
        let value = "x'\u{301}\\\u{652}%\u{301}"
        let statement = "SELECT * FROM cmis:document WHERE cmis:name = \(NXQLTranslator.literal(value))"
        guard case .comparison(_, .equal, .string(let read))? = try CMISQL.parse(statement).whereClause else {
            Issue.record("not a comparison: \(statement)")
            return
        }
        #expect(Array(read.unicodeScalars) == Array(value.unicodeScalars))
        // The input the fuzz smoke run found: an NXQL literal holding a backslash with a mark on it.
        let translation = try NXQLTranslator.translate("SELECT * FROM Document WHERE ecm:uuid = 'x\\\\\u{652}%'")
        let translated = try #require(translation.statements.first)
        #expect(throws: Never.self) { try CMISQL.parse(translated) }
    }

    @Test("a number CMIS QL cannot hold is refused at translation")
    func hugeNumber() throws {
        let error = #expect(throws: CMISError.self) {
            try NXQLTranslator.translate(
                "SELECT * FROM File WHERE file:content/length > " + String(repeating: "100", count: 60))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("out of range") == true)
        #expect(
            try NXQLTranslator.translate("SELECT * FROM File WHERE file:content/length > 1.5").statements.count == 1)
    }
}
