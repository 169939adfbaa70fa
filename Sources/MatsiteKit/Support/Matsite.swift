/// Facts about this build of matsite.
public enum Matsite {
    /// The version, as printed by `--version` and in manifests' `generator`.
    public static let version = "0.1.0"
}
