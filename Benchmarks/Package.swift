// swift-tools-version: 6.0
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (`main`, `wt-x`, a CI checkout), not `Vinyard`.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "VinyardBenchmarks",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "MapperBench",
            dependencies: [.product(name: "VinyardKit", package: root)],
            swiftSettings: [.unsafeFlags(["-Onone"], .when(configuration: .debug))]
        )
    ],
    swiftLanguageModes: [.v6]
)
