import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: query")
struct QueryTests {
    /// alice's MyDocuments: /reports/{q1.txt "quarterly revenue grew", q2.txt "revenue fell"}, /notes.txt, /archive/
    func fixture() async throws -> (EngineFixture, root: String, reports: String, archive: String) {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let reports = try await f.folder("reports", in: root, f.aliceDocs, f.alice).requiredId
        let archive = try await f.folder("archive", in: reports, f.aliceDocs, f.alice).requiredId
        try await f.document("q1.txt", in: reports, f.aliceDocs, f.alice, text: "quarterly revenue grew")
        try await f.document("q2.txt", in: archive, f.aliceDocs, f.alice, text: "revenue fell")
        try await f.document("notes.txt", in: root, f.aliceDocs, f.alice, text: "shopping list")
        return (f, root, reports, archive)
    }

    func run(
        _ f: EngineFixture, _ statement: String, caller: CallerContext? = nil, repository: String? = nil,
        maxItems: Int? = nil, skipCount: Int = 0, allVersions: Bool = false
    ) async throws -> ObjectList {
        try await f.repository.query(
            repositoryId: repository ?? f.aliceDocs, statement: statement, searchAllVersions: allVersions,
            includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil, maxItems: maxItems,
            skipCount: skipCount, caller: caller ?? f.alice)
    }

    func names(_ list: ObjectList) -> [String] {
        list.objects.compactMap { $0.properties.property(queryName: "cmis:name")?.stringValue }
    }

    @Test func whereOrderAndPaging() async throws {
        let (f, _, reports, _) = try await fixture()
        let all = try await run(f, "SELECT * FROM cmis:document ORDER BY cmis:name")
        #expect(names(all) == ["notes.txt", "q1.txt", "q2.txt"])
        #expect(all.objects[0].properties["cmis:contentStreamLength"]?.int64Value == 13)
        let like = try await run(
            f, "SELECT cmis:name FROM cmis:document WHERE cmis:name LIKE 'q%' ORDER BY cmis:name DESC")
        #expect(names(like) == ["q2.txt", "q1.txt"])
        #expect(like.objects[0].properties.count == 1)
        let paged = try await run(f, "SELECT * FROM cmis:document ORDER BY cmis:name", maxItems: 1, skipCount: 1)
        #expect(names(paged) == ["q1.txt"] && paged.hasMoreItems && paged.numItems == 3)
        let inFolder = try await run(f, "SELECT * FROM cmis:document WHERE IN_FOLDER('\(reports)')")
        #expect(names(inFolder) == ["q1.txt"])
        let inTree = try await run(f, "SELECT * FROM cmis:document WHERE IN_TREE('\(reports)') ORDER BY cmis:name")
        #expect(names(inTree) == ["q1.txt", "q2.txt"])
        let folders = try await run(f, "SELECT cmis:name, cmis:path FROM cmis:folder WHERE cmis:name = 'archive'")
        #expect(folders.objects.first?.properties["cmis:path"]?.stringValue == "/reports/archive")
        let sized = try await run(f, "SELECT * FROM cmis:document WHERE cmis:contentStreamLength > 12")
        #expect(Set(names(sized)) == ["notes.txt", "q1.txt"])
    }

    @Test func containsSearchesNameAndTextContent() async throws {
        let (f, _, _, _) = try await fixture()
        let revenue = try await run(
            f, "SELECT cmis:name, SCORE() AS relevance FROM cmis:document WHERE CONTAINS('revenue') ORDER BY cmis:name")
        #expect(names(revenue) == ["q1.txt", "q2.txt"])
        #expect(revenue.objects[0].properties.property(queryName: "relevance")?.decimalValue == 1)
        let both = try await run(f, "SELECT * FROM cmis:document WHERE CONTAINS('revenue -fell')")
        #expect(names(both) == ["q1.txt"])
        let byName = try await run(f, "SELECT * FROM cmis:document WHERE CONTAINS('notes')")
        #expect(names(byName) == ["notes.txt"])
    }

    @Test func aliasesAndVersions() async throws {
        let (f, root, _, _) = try await fixture()
        let doc = try await f.document("v.txt", in: root, f.aliceDocs, f.alice, text: "one")
        let pwc = try await f.repository.checkOut(repositoryId: f.aliceDocs, objectId: doc.requiredId, caller: f.alice)
        let withCopy = try await run(f, "SELECT cmis:objectId FROM cmis:document WHERE cmis:name = 'v.txt'")
        #expect(Set(withCopy.objects.map(\.id)) == [doc.id, pwc.id])
        _ = try await f.repository.checkIn(
            repositoryId: f.aliceDocs, objectId: pwc.requiredId, major: true, properties: Properties(), content: nil,
            comment: nil, policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        let latest = try await run(
            f, "SELECT d.cmis:versionLabel AS label FROM cmis:document d WHERE d.cmis:name = 'v.txt'")
        #expect(latest.objects.map { $0.properties.property(queryName: "label")?.stringValue } == ["2.0"])
        let every = try await run(
            f, "SELECT cmis:versionLabel FROM cmis:document WHERE cmis:name = 'v.txt' ORDER BY cmis:versionLabel",
            allVersions: true)
        #expect(every.objects.map { $0.properties["cmis:versionLabel"]?.stringValue } == ["1.0", "2.0"])
    }

    @Test(arguments: [
        ("SELECT * FROM", CMISError.Code.invalidArgument),
        ("SELECT * FROM my:type", .invalidArgument),
        ("SELECT my:prop FROM cmis:document", .invalidArgument),
        ("SELECT * FROM cmis:document WHERE x.cmis:name = 'a'", .invalidArgument),
        ("SELECT * FROM cmis:document WHERE cmis:name = 3", .invalidArgument),
        ("SELECT * FROM cmis:document d JOIN cmis:folder f ON d.cmis:parentId = f.cmis:objectId", .notSupported),
    ])
    func badQueriesAreRejected(statement: String, expected: CMISError.Code) async throws {
        let (f, _, _, _) = try await fixture()
        #expect(await cmisCode { _ = try await run(f, statement) } == expected)
    }

    @Test func queryNeverCrossesUsersOrAcls() async throws {
        let (f, _, _, _) = try await fixture()
        let bobs = try await run(f, "SELECT * FROM cmis:document", caller: f.bob, repository: f.bobDocs)
        #expect(bobs.objects.isEmpty)
        let sharedRoot = try await f.root(f.shared, f.alice)
        let open = try await f.folder("open", in: sharedRoot, f.shared, f.alice)
        try await f.document("public.txt", in: open.requiredId, f.shared, f.alice, text: "p")
        let hidden = try await f.folder("hidden", in: sharedRoot, f.shared, f.alice)
        try await f.document("secret.txt", in: hidden.requiredId, f.shared, f.alice, text: "s")
        _ = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: sharedRoot,
            addACEs: [ACE(principalId: "alice", permissions: ["cmis:all"])],
            removeACEs: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])], propagation: nil,
            caller: f.admin)
        _ = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: open.requiredId,
            addACEs: [ACE(principalId: "bob", permissions: ["cmis:read"])],
            removeACEs: [], propagation: nil, caller: f.alice)
        let visible = try await run(f, "SELECT * FROM cmis:document", caller: f.bob, repository: f.shared)
        #expect(names(visible) == ["public.txt"])
        let aliceSees = try await run(f, "SELECT * FROM cmis:document ORDER BY cmis:name", repository: f.shared)
        #expect(names(aliceSees) == ["public.txt", "secret.txt"])
    }

    /// Later pages of a result come from what the first page matched while nothing changes (a sole-writer store);
    /// any change, and another user, starts over.
    @Test func pagesOfOneResultUntilAChange() async throws {
        let f = try await EngineFixture { $0.isSoleWriter = true }
        let root = try await f.root(f.shared, f.admin)
        let folder = try await f.folder("paged", in: root, f.shared, f.alice).requiredId
        for index in 0..<5 { try await f.document("d\(index).txt", in: folder, f.shared, f.alice) }
        let statement = "SELECT * FROM cmis:document WHERE IN_FOLDER('\(folder)') ORDER BY cmis:name"
        func page(_ skip: Int, _ caller: CallerContext) async throws -> ObjectList {
            try await run(f, statement, caller: caller, repository: f.shared, maxItems: 2, skipCount: skip)
        }
        let first = try await page(0, f.alice)
        #expect(names(first) == ["d0.txt", "d1.txt"] && first.numItems == 5 && first.hasMoreItems)
        #expect(names(try await page(2, f.alice)) == ["d2.txt", "d3.txt"])
        let last = try await page(4, f.alice)
        #expect(names(last) == ["d4.txt"] && !last.hasMoreItems)
        // A change: the next page sees it.
        try await f.document("d5.txt", in: folder, f.shared, f.alice)
        let after = try await page(4, f.alice)
        #expect(names(after) == ["d4.txt", "d5.txt"] && after.numItems == 6)
        // A document bob may not read is not in his result, though alice's is kept.
        _ = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: root, addACEs: [ACE(principalId: "alice", permissions: ["cmis:all"])],
            removeACEs: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])], propagation: nil,
            caller: f.admin)
        #expect(try await page(0, f.alice).numItems == 6)
        #expect(try await page(0, f.bob).numItems == 0)
        #expect(try await page(0, f.alice).numItems == 6)
    }

    /// A query held to one folder reads that folder's children, not the repository: it must match exactly what a
    /// scan of everything would (the `OR` below keeps the scan), working copies filed through their series included.
    @Test func oneFolderQueriesMatchAScan() async throws {
        let (f, root, reports, archive) = try await fixture()
        let checkedOut = try await f.document("q3.txt", in: reports, f.aliceDocs, f.alice, text: "draft")
        let workingCopy = try await f.repository.checkOut(
            repositoryId: f.aliceDocs, objectId: checkedOut.requiredId, caller: f.alice)
        for folder in [root, reports, archive] {
            for (table, condition) in [
                ("cmis:document", ""), ("cmis:document", " AND cmis:name LIKE 'q%'"), ("cmis:folder", ""),
            ] {
                let narrowed = try await run(f, "SELECT * FROM \(table) WHERE IN_FOLDER('\(folder)')\(condition)")
                let scanned = try await run(
                    f, "SELECT * FROM \(table) WHERE (IN_FOLDER('\(folder)') OR cmis:name = '-none-')\(condition)")
                #expect(names(narrowed) == names(scanned), "\(table) in \(folder)\(condition)")
                #expect(narrowed.numItems == scanned.numItems)
            }
        }
        let inReports = try await run(f, "SELECT cmis:objectId FROM cmis:document WHERE IN_FOLDER('\(reports)')")
        let ids = inReports.objects.compactMap { $0.properties["cmis:objectId"]?.values.first?.stringValue }
        #expect(ids.contains(try #require(workingCopy.id)), "the working copy is searchable where its series is filed")
    }

    /// A folder's children read for one query serve the next query of that folder (another condition, another
    /// user) while nothing changes; each user still sees only what they may read, and a change is seen at once.
    @Test func keptFolderContentsFollowChangesAndPermissions() async throws {
        let f = try await EngineFixture { $0.isSoleWriter = true }
        let root = try await f.root(f.shared, f.admin)
        let folder = try await f.folder("kept", in: root, f.shared, f.alice).requiredId
        try await f.document("a1.txt", in: folder, f.shared, f.alice)
        try await f.document("b1.txt", in: folder, f.shared, f.alice)
        func query(_ prefix: String, _ caller: CallerContext) async throws -> [String] {
            names(
                try await run(
                    f, "SELECT * FROM cmis:document WHERE IN_FOLDER('\(folder)') AND cmis:name LIKE '\(prefix)%'",
                    caller: caller, repository: f.shared))
        }
        #expect(try await query("a", f.alice) == ["a1.txt"])
        #expect(try await query("b", f.alice) == ["b1.txt"])
        #expect(try await query("b", f.bob) == ["b1.txt"])
        try await f.document("b2.txt", in: folder, f.shared, f.alice)
        #expect(try await query("b", f.alice).sorted() == ["b1.txt", "b2.txt"])
        // alice closes the root to bob: the same folder read gives him nothing.
        _ = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: root, addACEs: [ACE(principalId: "alice", permissions: ["cmis:all"])],
            removeACEs: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])], propagation: nil,
            caller: f.admin)
        #expect(try await query("b", f.alice).count == 2)
        #expect(try await query("b", f.bob).isEmpty)
    }
}
