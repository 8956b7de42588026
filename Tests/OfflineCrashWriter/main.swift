// A child process for the offline store's kill loop: opens an offline store of odatapy's Products (ID ≥ 100000),
// then creates products locally (every third also changed) and uploads them in batches, forever, printing "queued N" and
// "updated N" once a change is committed to the store and "uploaded" after each upload. SatchelOfflineTests kills it at random moments.
//
//   satchel-offline-crash-writer SERVICE-URL STORE-PATH
import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore

let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: satchel-offline-crash-writer SERVICE-URL STORE-PATH\n".utf8))
    exit(2)
}
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

let service = ODataService(
    configuration: .init(serviceURL: url, http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never)))
let store = OfflineStore(
    configuration: .init(
        service: service, path: arguments[2],
        definingQueries: [.init(name: "mine", query: "Products?$filter=ID ge 100000")],
        key: try StoreKey.raw(Data(repeating: 5, count: 32))))
try await store.open()
var next =
    try await store.entities("Products", query: ODataQuery().orderBy("ID", descending: true).top(1))
    .first?["ID"]?.intValue.map { Int($0) + 1 } ?? 100_000
while true {
    try await store.create(
        "Products",
        ODataEntity(properties: ["ID": .int(Int64(next)), "Name": .string("crash \(next)"), "CategoryID": .int(1)]))
    say("queued \(next)")
    if next % 3 == 0 {
        try await store.update(
            "Products", .key(.single(.int(next))), with: ODataEntity(properties: ["Stock": .int(Int64(next))]))
        say("updated \(next)")
    }
    // Every third product an upload: up to three creations (or more after a kill) go in one `$batch`.
    if next % 3 == 2 {
        try await store.upload()
        say("uploaded")
    }
    next += 1
}
