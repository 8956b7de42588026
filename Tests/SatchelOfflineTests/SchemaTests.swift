import Foundation
import GRDB
import SatchelOData
import Testing

@testable import SatchelOffline

/// Tables from `$metadata` whose names SQLite would confuse.
@Suite("Offline schema")
struct SchemaTests {
    static let metadata = """
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Odd">
              <EntityType Name="Thing">
                <Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Id" Type="Edm.String"/>
                <Property Name="_state" Type="Edm.String"/>
                <Property Name="name" Type="Edm.String"/>
                <Property Name="Name" Type="Edm.String"/>
              </EntityType>
              <EntityContainer Name="C">
                <EntitySet Name="Things" EntityType="Odd.Thing"/>
                <EntitySet Name="things" EntityType="Odd.Thing"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test("properties differing only by case, and one named like an internal column, get columns of their own")
    func caseInsensitiveNames() throws {
        let schema = OfflineSchema(metadata: try ODataMetadata.parse(data: Data(Self.metadata.utf8)))
        let table = try schema.table("Things")
        let names = table.columns.map { $0.name.lowercased() }
        #expect(Set(names).count == names.count)
        #expect(!names.contains("_state"))
        let queue = try DatabaseQueue()
        try queue.write { db in
            try schema.create(in: db)
            let values: [DatabaseValue] = [
                1.databaseValue, "a".databaseValue, "b".databaseValue, "c".databaseValue, "d".databaseValue,
            ]
            try db.execute(
                sql: table.upsertSQL(columns: table.columns),
                arguments: StatementArguments([DatabaseValue.null] + values))
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM \(table.sql)"))
            for (column, value) in zip(table.columns, values) { #expect(row[column.name] as DatabaseValue? == value) }
            #expect(row["_state"] as Int? == 0)
        }
    }

    @Test("entity sets differing only by case get tables (and indexes) of their own")
    func setsDifferingByCase() throws {
        let schema = OfflineSchema(metadata: try ODataMetadata.parse(data: Data(Self.metadata.utf8)))
        let upper = try schema.table("Things")
        let lower = try schema.table("things")
        #expect(upper.name.lowercased() != lower.name.lowercased())
        #expect(upper.name == "e_Things", "the first keeps the plain name")
        let queue = try DatabaseQueue()
        try queue.write { db in
            try schema.create(in: db)
            for (table, id) in [(upper, 1), (lower, 2)] {
                let values = [id.databaseValue] + [DatabaseValue](repeating: .null, count: table.columns.count - 1)
                try db.execute(
                    sql: table.upsertSQL(columns: table.columns),
                    arguments: StatementArguments([DatabaseValue.null] + values))
            }
            let idColumn = try #require(upper.column("ID")).sql
            #expect(try Int.fetchAll(db, sql: "SELECT \(idColumn) FROM \(upper.sql)") == [1])
            #expect(try Int.fetchAll(db, sql: "SELECT \(idColumn) FROM \(lower.sql)") == [2])
        }
    }

    @Test("SQL literals and quoted names hold a quote that carries a combining mark")
    func quoteWithCombiningMark() throws {
        // "'\u{301}" is one Character: a Character-based escaper leaves its quote for SQLite to read.
        let value = "x'\u{301}); DROP TABLE t; --"
        let name = "c\"\u{301}; x"
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t(\(quoted(name)) TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (\(sqlText(value)))")
            let read = try String.fetchOne(db, sql: "SELECT \(quoted(name)) FROM t")
            #expect(read.map { Array($0.unicodeScalars) } == Array(value.unicodeScalars))
            #expect(try db.tableExists("t"))
        }
    }
}
