// swift-tools-version: 6.1
import PackageDescription

/// `scripts/fuzz` builds with `SATCHEL_FUZZ_BUILD=1` (docs/fuzzing.md): Satchel's own modules then carry libFuzzer's
/// coverage and AddressSanitizer (one `-sanitize=`: given twice, swiftc keeps the last), and `satchel-fuzz` runs
/// libFuzzer from its own `main`. Dependencies stay uninstrumented.
let fuzzBuild = Context.environment["SATCHEL_FUZZ_BUILD"] == "1"
let fuzzSettings: [SwiftSetting] =
    fuzzBuild ? [.unsafeFlags(["-sanitize=fuzzer,address"]), .define("SATCHEL_LIBFUZZER")] : []
/// What an executable built from such modules links: AddressSanitizer's runtime.
let fuzzLinkerSettings: [LinkerSetting] = fuzzBuild ? [.unsafeFlags(["-sanitize=address"])] : []

/// Settings shared by every target: Swift 6 language mode comes from the tools version;
/// `any` is spelled out for existentials everywhere.
let swiftSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        // A file sees only the members of modules it imports itself, and its imports are internal unless marked
        // `public import` (what a module's public API shows of another).
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ] + fuzzSettings

let package = Package(
    name: "Satchel",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SatchelText", targets: ["SatchelText"]),
        .library(name: "SatchelJSON", targets: ["SatchelJSON"]),
        .library(name: "SatchelHTTP", targets: ["SatchelHTTP"]),
        .library(name: "SatchelXML", targets: ["SatchelXML"]),
        .library(name: "SatchelCMISCore", targets: ["SatchelCMISCore"]),
        .library(name: "SatchelCMIS", targets: ["SatchelCMIS"]),
        .library(name: "SatchelOData", targets: ["SatchelOData"]),
        .library(name: "SatchelODataGen", targets: ["SatchelODataGen"]),
        .library(name: "SatchelCMISQL", targets: ["SatchelCMISQL"]),
        .library(name: "SatchelRepository", targets: ["SatchelRepository"]),
        .library(name: "SatchelGateway", targets: ["SatchelGateway"]),
        .library(name: "SatchelObjectStore", targets: ["SatchelObjectStore"]),
        .library(name: "SatchelServer", targets: ["SatchelServer"]),
        .library(name: "SatchelStore", targets: ["SatchelStore"]),
        .library(name: "SatchelOffline", targets: ["SatchelOffline"]),
        .library(name: "SatchelOfflineServer", targets: ["SatchelOfflineServer"]),
        .library(name: "SatchelNuxeo", targets: ["SatchelNuxeo"]),
        .library(name: "SatchelCache", targets: ["SatchelCache"]),
        .library(name: "SatchelCacheNuxeo", targets: ["SatchelCacheNuxeo"]),
        .library(name: "SatchelCacheCMIS", targets: ["SatchelCacheCMIS"]),
        .executable(name: "satchel", targets: ["satchel"]),
        .executable(name: "satchel-odata-gen", targets: ["satchel-odata-gen"]),
        .plugin(name: "SatchelODataGenPlugin", targets: ["SatchelODataGenPlugin"]),
        .plugin(name: "SatchelODataGenCommand", targets: ["SatchelODataGenCommand"]),
    ],
    traits: [
        // `satchel serve --postgres`: the server keeps its metadata in PostgreSQL, through PostgresNIO. On by
        // default; an app that embeds SatchelServer without PostgreSQL turns it off (`traits: []` on its
        // `.package` line) and links no PostgresNIO.
        .trait(
            name: "PostgreSQL", description: "SatchelServer can keep its metadata in PostgreSQL (links PostgresNIO)"),
        .default(enabledTraits: ["PostgreSQL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Hummingbird's own vocabulary, declared because the server names it: HTTP types, NIO buffers and its
        // HTTP-types channel parts, the service lifecycle and its signals.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The client's transport on Linux: HTTP/1.1 and TLS over SwiftNIO (docs/https.md).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // `swift package generate-documentation` (scripts/docs): the DocC catalogs beside each library.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // MARK: Libraries
        // Percent and form encoding, ISO 8601 timestamps, civil dates: what every wire format shares.
        .target(name: "SatchelText", swiftSettings: swiftSettings),
        .target(name: "SatchelJSON", dependencies: ["SatchelText"], swiftSettings: swiftSettings),
        .target(
            name: "SatchelHTTP",
            dependencies: [
                "SatchelText",
                "SatchelJSON",
                // Linux only: Apple platforms keep URLSession and link no NIO.
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOFoundationCompat", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
                .product(
                    name: "NIOHTTPCompression", package: "swift-nio-extras", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        .target(name: "SatchelXML", dependencies: ["SatchelText"], swiftSettings: swiftSettings),
        // The CMIS vocabulary: the model, errors, query statements and both wire formats, both ways. What the
        // client, CMIS QL, the repository engine and the server share; no HTTP.
        .target(
            name: "SatchelCMISCore",
            dependencies: ["SatchelText", "SatchelJSON", "SatchelXML"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SatchelCMIS",
            dependencies: ["SatchelText", "SatchelCMISCore", "SatchelHTTP", "SatchelJSON", "SatchelXML"],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "SatchelOData",
            dependencies: ["SatchelText", "SatchelHTTP", "SatchelJSON", "SatchelXML"],
            swiftSettings: swiftSettings
        ),

        // Typed proxies from $metadata (satchel odata generate, satchel-odata-gen, the plugins).
        .target(name: "SatchelODataGen", dependencies: ["SatchelOData"], swiftSettings: swiftSettings),

        // MARK: Local storage
        // The page-encrypting SQLite VFS (C, over the platform's default VFS); the cipher comes from SatchelStore.
        .target(name: "CSatchelStoreVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Encrypted SQLite under GRDB: keys, the page format, open/rekey/export/check (docs/store.md).
        .target(
            name: "SatchelStore",
            dependencies: [
                "CSatchelStoreVFS", "SatchelText",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The offline OData store over SatchelStore (docs/offline.md).
        .target(
            name: "SatchelOffline",
            dependencies: [
                "SatchelText",
                "SatchelOData", "SatchelStore", "SatchelJSON", "SatchelHTTP",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),

        // The Nuxeo REST client (docs/nuxeo.md).
        .target(
            name: "SatchelNuxeo", dependencies: ["SatchelText", "SatchelHTTP", "SatchelJSON"],
            swiftSettings: swiftSettings),

        // Content browsable offline: hierarchies and blobs from Nuxeo and CMIS, over SatchelStore (docs/nuxeo.md).
        .target(
            name: "SatchelCache",
            dependencies: [
                "SatchelText", "SatchelStore", "SatchelJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Where a cached tree comes from, one protocol each: an app links only the client it caches from.
        .target(
            name: "SatchelCacheNuxeo",
            dependencies: ["SatchelCache", "SatchelNuxeo", "SatchelJSON", "SatchelText"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SatchelCacheCMIS",
            dependencies: ["SatchelCache", "SatchelCMIS", "SatchelCMISCore"],
            swiftSettings: swiftSettings
        ),

        // The offline middle tier: SAP's application configuration, shared data, deltas, the upload ledger
        // (docs/offline-server.md).
        .target(
            name: "SatchelOfflineServer",
            dependencies: [
                "SatchelText", "SatchelJSON", "SatchelHTTP", "SatchelOData", "SatchelOffline", "SatchelRepository",
                "SatchelStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Repository server (satchel serve)
        // CMIS QL: parser and evaluator, no I/O.
        .target(
            name: "SatchelCMISQL", dependencies: ["SatchelText", "SatchelCMISCore", "SatchelJSON"],
            swiftSettings: swiftSettings),
        // NXQL translated into CMIS QL: the server's Nuxeo searches (and the nxql fuzz target) only, so no client
        // product carries it.
        .target(name: "SatchelNXQL", dependencies: ["SatchelText", "SatchelCMISCore"], swiftSettings: swiftSettings),
        // The repository engine: CMIS semantics over a metadata store and a content-addressed blob store.
        .target(
            name: "SatchelRepository",
            dependencies: [
                "SatchelText",
                "SatchelCMISCore", "SatchelCMISQL", "SatchelJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // PostgreSQL metadata store (kept apart so the engine builds without NIO).
        .target(
            name: "SatchelRepositoryPostgres",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                "SatchelRepository", "SatchelCMISCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Blobs in S3-compatible object storage: Signature Version 4 and the few S3 calls, on the HTTP core.
        .target(
            name: "SatchelObjectStore",
            dependencies: [
                "SatchelText", "SatchelHTTP", "SatchelRepository", "SatchelXML",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Back-end CMIS repositories served as local ones: CMISService over the CMIS client.
        .target(
            name: "SatchelGateway",
            dependencies: [
                "SatchelCMISCore", "SatchelCMIS", "SatchelHTTP", "SatchelJSON", "SatchelRepository",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // HTTP: Browser and AtomPub bindings, users, sessions, XSRF, the application.
        .target(
            name: "SatchelServer",
            dependencies: [
                "SatchelText",
                "SatchelRepository", "SatchelCMISCore", "SatchelCMISQL", "SatchelNXQL",
                .target(name: "SatchelRepositoryPostgres", condition: .when(traits: ["PostgreSQL"])),
                "SatchelJSON", "SatchelXML",
                "SatchelGateway",
                "SatchelObjectStore",
                "SatchelOfflineServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Command-line tool
        .executableTarget(
            name: "satchel",
            dependencies: [
                "SatchelJSON",
                "SatchelText",
                "SatchelHTTP",
                "SatchelCMIS",
                "SatchelCMISCore",
                "SatchelServer",
                "SatchelGateway",
                "SatchelObjectStore",
                "SatchelOfflineServer",
                "SatchelOData",
                "SatchelODataGen",
                "SatchelOffline",
                "SatchelNuxeo",
                "SatchelCache", "SatchelCacheNuxeo", "SatchelCacheCMIS",
                "SatchelStore",
                "SatchelRepository",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Fuzz targets for every parser of untrusted bytes (docs/fuzzing.md): the checks, and `satchel-fuzz`, which
        // replays inputs through them; the build scripts/fuzz makes (libFuzzer, AddressSanitizer) is the fuzzer.
        .target(
            name: "SatchelFuzzing",
            dependencies: [
                "SatchelJSON", "SatchelXML", "SatchelCMISQL", "SatchelOData", "SatchelHTTP", "SatchelCMISCore",
                "SatchelNuxeo", "SatchelStore", "SatchelNXQL", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        .target(name: "CSatchelFuzzer"),
        .executableTarget(
            name: "satchel-fuzz", dependencies: ["SatchelFuzzing", "CSatchelFuzzer"], swiftSettings: swiftSettings,
            // libFuzzer itself (its library without `main`) comes from scripts/fuzz, which knows the toolchain.
            linkerSettings: fuzzLinkerSettings),
        // The generator alone, for the build-tool plugin (so plugins never build the server).
        .executableTarget(
            name: "satchel-odata-gen", dependencies: ["SatchelOData", "SatchelODataGen"], swiftSettings: swiftSettings,
            linkerSettings: fuzzLinkerSettings),
        .plugin(
            name: "SatchelODataGenPlugin",
            capability: .buildTool(),
            dependencies: ["satchel-odata-gen"]
        ),
        .plugin(
            name: "SatchelODataGenCommand",
            capability: .command(
                intent: .custom(verb: "generate-odata-proxies", description: "Generate Swift proxies from $metadata"),
                permissions: [.writeToPackageDirectory(reason: "Writes the generated Swift files")]
            ),
            dependencies: ["satchel-odata-gen"]
        ),

        // MARK: Test support and tests
        .target(
            name: "SatchelTestSupport",
            dependencies: [
                "SatchelText",
                .product(name: "Logging", package: "swift-log"),
                "SatchelHTTP", "SatchelJSON", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // A satchel serve in the test process, for the tests of what talks to it (the CMIS client, the CLI).
        .target(
            name: "SatchelServerTestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log"), "SatchelServer", "SatchelGateway"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SatchelOfflineServerTests",
            dependencies: [
                "SatchelOfflineServer", "SatchelOffline", "SatchelOData", "SatchelRepository", "SatchelHTTP",
                "SatchelTestSupport", "SatchelServer", "SatchelStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The code of the README and the DocC articles, compiled with the suite; DocExamplesTests checks that
        // every Swift block of those documents is here word for word.
        .testTarget(
            name: "SatchelDocExamplesTests",
            dependencies: [
                "SatchelText", "SatchelJSON", "SatchelXML", "SatchelHTTP", "SatchelCMISCore", "SatchelCMIS",
                "SatchelCMISQL", "SatchelOData", "SatchelODataGen", "SatchelStore", "SatchelOffline", "SatchelNuxeo",
                "SatchelCache", "SatchelCacheNuxeo", "SatchelCacheCMIS", "SatchelRepository", "SatchelGateway",
                "SatchelServer", "SatchelOfflineServer", "SatchelObjectStore",
                "SatchelTestSupport", "SatchelServerTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SatchelTextTests", dependencies: ["SatchelText"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SatchelJSONTests",
            dependencies: ["SatchelJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelHTTPTests",
            dependencies: ["SatchelJSON", "SatchelText", "SatchelHTTP", "SatchelTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelXMLTests",
            dependencies: ["SatchelXML"],
            swiftSettings: swiftSettings
        ),
        // The CMIS vocabulary on its own: the model, errors, query statements, the Browser JSON and AtomPub codecs
        // against the reference server's captured answers (Fixtures/cmis-opencmis).
        .testTarget(
            name: "SatchelCMISCoreTests",
            dependencies: ["SatchelCMISCore", "SatchelXML"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        // Back-end repositories mounted through the gateway: a second satchel serve as the back-end.
        .testTarget(
            name: "SatchelGatewayTests",
            dependencies: [
                "SatchelGateway", "SatchelCMIS", "SatchelCMISCore", "SatchelHTTP", "SatchelJSON",
                "SatchelServerTestSupport", "SatchelTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Content browsable offline: hierarchies from satchel serve's Nuxeo API and CMIS, the blob cache.
        .testTarget(
            name: "SatchelCacheTests",
            dependencies: [
                "SatchelCache", "SatchelCMIS", "SatchelCMISCore", "SatchelHTTP", "SatchelNuxeo", "SatchelStore",
                "SatchelCacheNuxeo", "SatchelCacheCMIS",
                "SatchelServerTestSupport", "SatchelTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelCMISTests",
            dependencies: [
                "SatchelServer",
                "SatchelHTTP", "SatchelXML",
                "SatchelServerTestSupport", "SatchelCMISCore", "SatchelCMIS", "SatchelTestSupport", "SatchelGateway",
                "SatchelRepository", "SatchelJSON",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelODataTests",
            dependencies: [
                "SatchelHTTP", "SatchelJSON", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), "SatchelOData", "SatchelTestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelODataGenTests",
            dependencies: ["SatchelJSON", "SatchelODataGen", "SatchelOData"],
            exclude: ["Expected"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelODataGenConsumerTests",
            dependencies: [
                "SatchelOData", "SatchelJSON", "SatchelHTTP", "SatchelOffline", "SatchelStore", "SatchelTestSupport",
            ],
            swiftSettings: swiftSettings,
            plugins: ["SatchelODataGenPlugin"]
        ),
        .testTarget(
            name: "SatchelFuzzingTests", dependencies: ["SatchelFuzzing"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SatchelCMISQLTests",
            dependencies: ["SatchelCMISCore", "SatchelCMISQL", "SatchelNXQL"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelOfflineTests",
            dependencies: [
                "SatchelJSON",
                "SatchelOffline", "SatchelOData", "SatchelStore", "SatchelHTTP", "SatchelTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelNuxeoTests",
            dependencies: [
                "SatchelHTTP", "SatchelText", "SatchelNuxeo", "SatchelJSON", "SatchelTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelStoreTests",
            dependencies: ["SatchelStore", "SatchelTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // The child process SatchelOfflineTests kills while it changes and uploads.
        .executableTarget(
            name: "satchel-offline-crash-writer",
            dependencies: ["SatchelOffline", "SatchelOData", "SatchelStore", "SatchelHTTP"],
            path: "Tests/OfflineCrashWriter",
            swiftSettings: swiftSettings
        ),
        // The child process SatchelStoreTests kills while it writes.
        .executableTarget(
            name: "satchel-store-crash-writer",
            dependencies: ["SatchelStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/StoreCrashWriter",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelRepositoryTests",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "SatchelCMISCore",
                "SatchelRepository", "SatchelRepositoryPostgres", "SatchelTestSupport", "SatchelObjectStore",
                "SatchelHTTP",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelServerTests",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "SatchelHTTP", "SatchelRepository", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                "SatchelCMISCore",
                "SatchelServer", "SatchelCMIS", "SatchelNuxeo", "SatchelCache", "SatchelStore", "SatchelTestSupport",
                "SatchelGateway", "SatchelJSON", "SatchelObjectStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelCLITests",
            dependencies: [
                "SatchelText", .product(name: "GRDB", package: "GRDB.swift"),
                "SatchelHTTP",
                "SatchelServerTestSupport",
                "SatchelCMISCore",
                "satchel", "SatchelServer", "SatchelStore", "SatchelOData", "SatchelCMIS", "SatchelCache",
                "SatchelTestSupport", "SatchelRepository", .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Benchmarks (release builds; each prints its baselines beside it)
        .target(name: "BenchmarkSupport", path: "Benchmarks/Support", swiftSettings: swiftSettings),
        .executableTarget(
            name: "JSONBenchmark",
            dependencies: ["SatchelJSON"],
            path: "Benchmarks/JSONBenchmark",
            exclude: ["baseline.py"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "XMLBenchmark",
            dependencies: ["BenchmarkSupport", "SatchelXML"],
            path: "Benchmarks/XMLBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CMISClientBenchmark",
            dependencies: ["SatchelText", "SatchelCMISCore", "SatchelCMIS", "SatchelHTTP"],
            path: "Benchmarks/CMISClientBenchmark",
            exclude: ["cmislib_bench.py"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "GatewayBenchmark",
            dependencies: ["BenchmarkSupport", "SatchelCMISCore", "SatchelCMIS", "SatchelHTTP"],
            path: "Benchmarks/GatewayBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CacheBenchmark",
            dependencies: [
                "BenchmarkSupport",
                "SatchelCMISCore", "SatchelCache", "SatchelCMIS", "SatchelNuxeo", "SatchelHTTP", "SatchelStore",
                "SatchelCacheNuxeo", "SatchelCacheCMIS",
            ],
            path: "Benchmarks/CacheBenchmark",
            exclude: ["nuxeo_tree_bench.py"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["BenchmarkSupport", "SatchelStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/StoreBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ODataBenchmark",
            dependencies: [
                "SatchelText",
                .product(name: "GRDB", package: "GRDB.swift"), "SatchelOData", "SatchelHTTP", "SatchelJSON",
                "SatchelOffline", "SatchelStore",
            ],
            path: "Benchmarks/ODataBenchmark",
            exclude: ["baseline.py"],
            swiftSettings: swiftSettings,
            plugins: ["SatchelODataGenPlugin"]
        ),
        .executableTarget(
            name: "OfflineTierBenchmark",
            dependencies: [
                "BenchmarkSupport", "SatchelOData", "SatchelHTTP", "SatchelOffline", "SatchelOfflineServer",
                "SatchelServer", "SatchelStore", "SatchelTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/OfflineTierBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "TransferBenchmark",
            dependencies: ["SatchelHTTP", "SatchelTestSupport"],
            path: "Benchmarks/TransferBenchmark",
            swiftSettings: swiftSettings
        ),
    ]
)
