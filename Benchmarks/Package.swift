// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "VinyardBenchmarks",
    dependencies: [
        .package(name: "Vinyard", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "bench-vin",
            dependencies: [.product(name: "VinyardKit", package: "Vinyard")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
