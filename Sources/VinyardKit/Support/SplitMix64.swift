/// SplitMix64: a small, fast, deterministic random number generator — the same seed gives the same
/// sequence on every platform (generated data, property tests, benchmarks).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }
    public init(seed: UInt64) { self.state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (n > 0), by modulo: fine for generated data, not for cryptography.
    public mutating func next(below n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A number in `0..<1`.
    public mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
