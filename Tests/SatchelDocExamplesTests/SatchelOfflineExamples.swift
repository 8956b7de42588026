import Foundation
import SatchelOffline

enum SatchelOfflineExamples {
    /// GettingStarted.md: configure a store.
    static func makeStore(folder: URL, password: String, passphrase: String) -> OfflineStore {
        let service = ODataService(
            configuration: .init(
                serviceURL: URL(string: "https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/")!,
                sapClient: "100",
                auth: [BasicAuth(user: "alice", password: password), CSRFTokenAuth()]))
        let configuration = OfflineStore.Configuration(
            service: service,
            path: folder.appendingPathComponent("alice-gwsample.store").path,
            definingQueries: [
                OfflineDefiningQuery(name: "products", query: "ProductSet?$filter=Category eq 'Notebooks'"),
                OfflineDefiningQuery(name: "partners", query: "BusinessPartnerSet?$expand=ToContacts"),
            ],
            key: .passphrase(passphrase))  // or try StoreKey.raw(keyFromTheKeychain)
        return OfflineStore(configuration: configuration)
    }

    /// GettingStarted.md: open the store and watch its progress.
    static func open(_ store: OfflineStore) async throws -> Bool {
        let progress = store.progress()
        let watcher = Task {
            for await step in progress {
                if case .received(definingQuery: let name, entities: let count) = step { print("\(name): \(count)") }
            }
        }
        defer { watcher.cancel() }
        do {
            try await store.open()  // the first time: $metadata, then every defining query
        } catch let error as StoreError where error.code == .wrongKey {
            print("the passphrase does not open the store")
            return false
        }
        return try await store.isInitialDownloadComplete
    }

    /// GettingStarted.md: read from the store with runtime values in the filter.
    static func read(_ store: OfflineStore, category: String, maximumPrice: Decimal) async throws -> [ODataEntity] {
        let filter: ODataExpression = .property("Category") == category && .property("Price") < maximumPrice
        let query = ODataQuery().filter(filter).orderBy("Price").top(20)
        let products = try await store.entities("ProductSet", query: query)
        for product in products {
            print(product["Name"]?.stringValue ?? "", product["Price"]?.decimalValue ?? 0)
        }
        let total = try await store.count("ProductSet", query: ODataQuery().filter(.property("Category") == category))
        print("\(products.count) of \(total)")
        return products
    }

    /// GettingStarted.md: change entities locally.
    static func change(_ store: OfflineStore) async throws -> Int64 {
        let id = try await store.create(
            "ProductSet",
            ODataEntity(properties: [
                "ProductID": "HT-9999", "Name": "Travel mug", "Category": "Notebooks",
                "Price": .decimal(Decimal(string: "12.50")!), "CurrencyCode": "EUR",
            ]))
        try await store.update("ProductSet", .id(id), with: ODataEntity(properties: ["Name": "Travel mug, steel"]))
        try await store.update("ProductSet", .key("HT-1000"), with: ODataEntity(properties: ["Price": .decimal(999)]))
        let queued = try await store.requests()  // POST, PATCH: the first update joined the queued creation
        print(queued.map(\.method))
        return id
    }

    /// GettingStarted.md: upload the queue, then download what changed.
    static func sync(_ store: OfflineStore) async throws {
        do {
            let result = try await store.upload()
            print("sent \(result.sent), refused \(result.failed), held \(result.held)")
            try await store.download()
        } catch let error as ODataError where error.code == .connection {
            print("no connection: the requests stay queued")  // upload again later
        }
    }

    /// GettingStarted.md: settle the requests the service refused.
    static func settleErrors(_ store: OfflineStore) async throws {
        for failure in try await store.errors() {
            print(failure.requestMethod, failure.requestURL, failure.httpStatus ?? 0, failure.message)
            if failure.httpStatus == 412 {
                try await store.revert(errorID: failure.errorID)  // give the change up: back to the server's values
            } else {
                // Correct the entity: the change joins the refused request, which the next upload sends again.
                let fix = ODataEntity(properties: ["CurrencyCode": "EUR"])
                try await store.update(failure.entitySet, .id(failure.entityID), with: fix)
            }
        }
        try await store.upload()
    }
}
