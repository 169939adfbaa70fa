import Foundation
import MatsiteDeploy
import Yams

/// The `deploy:` section: where and how `matsite deploy` publishes the built site.
extension ConfigLoader {
    static func deploy(_ node: Node, _ r: inout YAMLReader) throws -> DeployConfig {
        let f = try r.fields(
            node, "deploy", allowed: ["target", "grace", "max_deletes", "rclone", "rclone_flags", "create", "timeout_s"])
        guard let targetNode = f["target"] else {
            throw r.error(node, "deploy.target", "missing: the rclone remote path to publish to, like \"remote:bucket/path\"")
        }
        let target = try nonEmpty(r.string(targetNode, "deploy.target"), targetNode, "deploy.target", r)
        guard !target.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw r.error(targetNode, "deploy.target", "must be one line without control characters")
        }
        if let misread = DeployTarget.misreading(target) {
            // Shown masked: the point of refusing is that the secrets would have leaked.
            throw r.error(
                targetNode, "deploy.target",
                "rclone would end this connection string at the \":\" inside the value of \(misread.key) and read the rest, "
                    + "secrets included, as the path: quote values that hold a colon, as in \(SecretMask(target: misread.quoted).shownTarget)")
        }
        var config = DeployConfig(target: target)
        config.line = targetNode.mark?.line
        if let n = f["grace"] {
            let duration = try ConfigLoader.duration(n, "deploy.grace", r: &r, zero: true)
            // A month counts as 30.436875 days: a grace period needs no calendar precision.
            config.graceSeconds = Double(duration.months) * 2_629_746 + Double(duration.milliseconds) / 1000
            config.graceText = duration.text
        }
        if let n = f["max_deletes"] { config.maxDeletes = try r.int(n, "deploy.max_deletes", in: 0...1_000_000) }
        if let n = f["timeout_s"] { config.timeoutSeconds = Int(try r.double(n, "deploy.timeout_s", in: 1...604_800).rounded(.up)) }
        if let n = f["create"] { config.create = try r.bool(n, "deploy.create") }
        if let n = f["rclone"] { config.rclone = try nonEmpty(r.string(n, "deploy.rclone"), n, "deploy.rclone", r) }
        if let n = f["rclone_flags"] { config.rcloneFlags = try rcloneFlags(n, &r) }
        return config
    }

    /// `deploy.rclone_flags`: each item a flag (`--name=value`, `--name`), or the value of
    /// the flag before it (`["--transfers", "8"]`). No error shows an item: a flag's value
    /// may be a secret (`--s3-secret-access-key`, `--header "Authorization: ..."`).
    static func rcloneFlags(_ node: Node, _ r: inout YAMLReader) throws -> [String] {
        let key = "deploy.rclone_flags"
        guard case .sequence = node else {
            throw r.error(
                node, key,
                "expected a list of flags, like [\"--transfers=8\"] or [\"--transfers\", \"8\"] (what was written is not shown: "
                    + "it may hold a secret)")
        }
        let flags = try r.strings(node, key)
        var takesValue = false
        for (index, flag) in flags.enumerated() {
            if flag.hasPrefix("-") {
                takesValue = !flag.contains("=")
                continue
            }
            guard takesValue else {
                throw r.error(
                    node, "\(key)[\(index)]",
                    "item \(index + 1) is neither a flag (--name or --name=value) nor the value of the flag before it "
                        + "(not shown: it may hold a secret): write each flag as --name=value, or as --name then its value")
            }
            takesValue = false
        }
        return flags
    }
}
