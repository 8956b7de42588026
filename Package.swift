// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: Swift 6 language mode comes from the tools version;
/// `any` is spelled out for existentials everywhere.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Satchel",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SatchelJSON", targets: ["SatchelJSON"]),
        .library(name: "SatchelHTTP", targets: ["SatchelHTTP"]),
        .library(name: "SatchelXML", targets: ["SatchelXML"]),
        .library(name: "SatchelCMIS", targets: ["SatchelCMIS"]),
        .executable(name: "satchel", targets: ["satchel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        // MARK: Libraries
        .target(name: "SatchelJSON", swiftSettings: swiftSettings),
        .target(
            name: "SatchelHTTP",
            dependencies: [
                "SatchelJSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        .target(name: "SatchelXML", swiftSettings: swiftSettings),
        .target(
            name: "SatchelCMIS",
            dependencies: ["SatchelHTTP", "SatchelJSON", "SatchelXML"],
            swiftSettings: swiftSettings
        ),

        // MARK: Command-line tool
        .executableTarget(
            name: "satchel",
            dependencies: [
                "SatchelHTTP",
                "SatchelCMIS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Test support and tests
        .target(
            name: "SatchelTestSupport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird")
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelJSONTests",
            dependencies: ["SatchelJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelHTTPTests",
            dependencies: ["SatchelHTTP", "SatchelTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelXMLTests",
            dependencies: ["SatchelXML"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelCMISTests",
            dependencies: ["SatchelCMIS", "SatchelTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SatchelCLITests",
            dependencies: ["satchel", "SatchelTestSupport"],
            swiftSettings: swiftSettings
        ),

        // MARK: Benchmarks (release builds; each prints its baselines beside it)
        .executableTarget(
            name: "JSONBenchmark",
            dependencies: ["SatchelJSON"],
            path: "Benchmarks/JSONBenchmark",
            exclude: ["baseline.py"],
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
