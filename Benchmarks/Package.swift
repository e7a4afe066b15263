// swift-tools-version: 6.0
import PackageDescription

// Per-stage benchmarks, kept out of the main package so its dependency graph stays small. The main
// package is named "Vinyard" here because a path dependency is otherwise named after its folder.
let package = Package(
    name: "VinyardBenchmarks",
    dependencies: [
        .package(name: "Vinyard", path: ".."),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "bench-vin",
            dependencies: [.product(name: "VinyardKit", package: "Vinyard")]
        ),
        .executableTarget(
            name: "bench-store",
            dependencies: [.product(name: "VinyardKit", package: "Vinyard")]
        ),
        .executableTarget(
            name: "bench-mapper",
            dependencies: [.product(name: "VinyardKit", package: "Vinyard")]
        ),
        .executableTarget(
            name: "bench-export",
            dependencies: [.product(name: "VinyardKit", package: "Vinyard")]
        ),
        .executableTarget(
            name: "bench-readers",
            dependencies: [
                .product(name: "VinyardKit", package: "Vinyard"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
