// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so the main package graph stays small.
// Build: swift build -c release --package-path Benchmarks --scratch-path .build-bench
let package = Package(
    name: "VinyardBenchmarks",
    dependencies: [
        .package(name: "Vinyard", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "bench-store",
            dependencies: [.product(name: "VinyardKit", package: "Vinyard")],
        ),
    ],
    swiftLanguageModes: [.v6]
)
