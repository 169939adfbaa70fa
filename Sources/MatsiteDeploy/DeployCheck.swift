import Foundation
import MatsiteSupport

/// What `matsite check` says about `deploy:`: which rclone a deploy will run (and its
/// version), whether the target is there, and how a viewer fares while a deploy replaces a
/// file on it. Writes nothing.
package struct DeployCheck: Sendable {
    let deploy: DeployConfig

    /// A check of `deploy`.
    package init(deploy: DeployConfig) {
        self.deploy = deploy
    }

    /// Lines to show, and problems with the exit class a deploy would end with (a target
    /// or an rclone that is not there is the config's to mend, exit 2, as `deploy` says).
    package func run() -> (lines: [String], problems: [(String, ExitClass)]) {
        let mask = SecretMask(target: deploy.target, flags: deploy.rcloneFlags)
        var lines = ["target: \(mask.shownTarget)"]
        guard let binary = RcloneBinary.find(configured: deploy.rclone) else {
            return (lines, [(Deployer.rcloneMissing(deploy.rclone), .config)])
        }
        let version = binary.version()
        lines.append("rclone: \(version ?? "(version unknown)") at \(binary.url.path) (\(binary.originText))")
        let output = RcloneOutput(mask: mask)
        let rclone = Rclone(
            executable: binary.url, flags: RcloneArguments.common(create: deploy.create) + deploy.rcloneFlags, redact: { output($0) })
        var problems: [(String, ExitClass)] = []
        do {
            let listing = try rclone.run(RcloneArguments.probeFolder(deploy.target) + rclone.flags)
            switch listing.status {
            case 0: lines[0] += " (reachable)"
            case 3 where deploy.create: lines[0] += " (does not exist yet: deploy.create makes it)"
            case 3: problems.append(("deploy.target does not exist: create it, or set deploy.create: true", .config))
            default: problems.append((Self.unreachable(listing), .failed))
            }
            let features = try rclone.run(RcloneArguments.features(deploy.target) + rclone.flags)
            if features.status == 0, let known = TargetFeatures.decode(features.output) {
                let note = known.readerNote
                lines.append((note.tears ? "warning: " : "readers: ") + note.text)
                if let version, !known.bucketBased, !RcloneBinary.renamesUploads(version) {
                    lines.append(
                        "warning: rclone \(version) writes files on file servers in place (1.63 and later upload to a temporary "
                            + "name and rename): python3 -m pip install \(RcloneBinary.packageName), or point deploy.rclone at a newer rclone")
                }
            }
        } catch {
            problems.append(("\(error)", ExitClass.of(error)))
        }
        return (lines, problems)
    }

    static func unreachable(_ result: Rclone.Result) -> String {
        let said = result.errors.filter { !$0.hasPrefix("note: ") }.suffix(3)
        return "deploy.target could not be listed (rclone exit \(result.status))" + (said.isEmpty ? "" : ": " + said.joined(separator: "; "))
    }
}
