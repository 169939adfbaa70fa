import Foundation

/// The rclone command lines a deploy runs. Each ends with ``Rclone/flags``: the common
/// flags below, then the user's `deploy.rclone_flags`, which so override any of them
/// (rclone takes a flag's last value).
enum RcloneArguments {
    /// First contact (the listing): a closed port fails at once, a host that does not answer
    /// within about ten seconds (5 s to connect, tried twice), a server that stops talking
    /// within 20 s; rclone's defaults (1 min, 5 min, ten tries) blocked a cron deploy for minutes.
    static let probe = ["--contimeout=5s", "--timeout=20s", "--low-level-retries=1", "--retries=1"]

    /// Transfers, to a target that has answered: the first refused or timed-out connection
    /// ends the call (``Rclone/run(_:line:)`` stops rclone at its first such line), so no
    /// low-level retry and no retry of a whole batch (the next deploy resumes from what is
    /// there); 20 s without a byte is a server that stopped answering.
    static let transfer = ["--contimeout=5s", "--timeout=20s", "--low-level-retries=1", "--retries=1"]

    /// Flags for every call.
    /// - `--sftp-disable-hashcheck`: rclone would run `md5sum` over SSH for every file it
    ///   sends (a slow login shell made a cold deploy 165 s instead of 8 s); matsite's
    ///   ledger knows every file's SHA-256.
    /// - `--sftp-shell-type=none`: no shell command over SSH at all (rclone would probe the
    ///   shell on every call, and fail to save what it found for a remote of environment
    ///   variables, saying so); matsite needs none.
    /// - `--sftp-set-modtime=false`: one request less per file; nothing reads the times.
    /// - `--s3-no-head`: no HEAD after each upload (the upload's answer carries its checksum).
    /// - `--s3-no-check-bucket`: a bucket is never created behind the user's back (unless
    ///   `deploy.create`), and each call saves a request.
    static func common(create: Bool) -> [String] {
        ["--sftp-disable-hashcheck", "--sftp-shell-type=none", "--sftp-set-modtime=false", "--s3-no-head"] + (create ? [] : ["--s3-no-check-bucket"])
    }

    /// Every file below the target, sizes only.
    static func list(_ target: String) -> [String] {
        ["lsjson", "-R", "--files-only", "--no-mimetype", "--no-modtime", "--fast-list"] + probe + [DeployTarget.folder(target)]
    }

    /// The target's first level only: whether it is there and answers (`check`).
    static func probeFolder(_ target: String) -> [String] {
        ["lsjson", "--max-depth=1", "--no-mimetype", "--no-modtime"] + probe + [DeployTarget.folder(target)]
    }

    /// The listed files below the target fetched into a local folder.
    static func fetch(_ target: String, list: String, to folder: String) -> [String] {
        ["copy", DeployTarget.folder(target), folder, "--files-from-raw", list, "--no-traverse", "--no-check-dest"] + transfer
    }

    /// What the target's backend can do (JSON).
    static func features(_ target: String) -> [String] {
        ["backend", "features"] + probe + [DeployTarget.folder(target)]
    }

    /// The files listed in `list` (paths below `site`) sent to the same paths below `to`.
    static func upload(site: String, to: String, list: String, cacheControl: String) -> [String] {
        [
            "copy", site, DeployTarget.folder(to), "--files-from-raw", list, "--no-traverse", "--no-check-dest",
            "--header-upload", "Cache-Control: \(cacheControl)", "--stats", "5s", "--stats-one-line", "--stats-log-level", "NOTICE",
        ] + transfer
    }

    /// The files listed in `list` moved on the target from below `from` to below `to`.
    static func move(from: String, to: String, list: String) -> [String] {
        ["move", DeployTarget.folder(from), DeployTarget.folder(to), "--files-from-raw", list, "--no-traverse", "--no-check-dest"]
            + transfer
    }

    /// One file moved on the target to another name.
    static func moveFile(from: String, to: String) -> [String] {
        ["moveto", from, to, "--no-check-dest"] + transfer
    }

    /// A local file sent to one path of the target (the ledger).
    static func put(_ file: String, to: String, cacheControl: String) -> [String] {
        ["copyto", file, to, "--no-check-dest", "--header-upload", "Cache-Control: \(cacheControl)"] + transfer
    }

    /// The files listed in `list` deleted below the target.
    static func delete(_ target: String, list: String) -> [String] {
        ["delete", DeployTarget.folder(target), "--files-from-raw", list] + transfer
    }

    /// One file deleted.
    static func deleteFile(_ file: String) -> [String] {
        ["deletefile"] + transfer + [file]
    }

    /// Folders below `target` left empty, removed (the target itself kept unless `keepRoot` is false).
    static func removeEmptyFolders(_ target: String, keepRoot: Bool = true) -> [String] {
        ["rmdirs", DeployTarget.folder(target)] + (keepRoot ? ["--leave-root"] : []) + transfer
    }
}
