// swift-tools-version: 6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Vinyard",
    products: [
        .library(name: "VinyardKit", targets: ["VinyardKit"]),
        .executable(name: "vinyard", targets: ["vinyard"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(
            name: "VinyardKit",
            dependencies: ["CSQLite", "CZlib"],
            // Release builds skip the run-time exclusivity checks (about 2k instructions per
            // imported row, measured with callgrind); debug builds and tests keep them.
            swiftSettings: swiftSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "vinyard",
            dependencies: [
                "VinyardKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VinyardKitTests",
            dependencies: ["VinyardKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "vinyardTests",
            dependencies: ["VinyardKit", "vinyard"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
