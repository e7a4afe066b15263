/// The tool version, stored in `import_runs` and printed by `vinyard --version`.
public enum VinyardVersion {
    public static let string = "0.1.0"
}
