import Foundation

/// What the target's rclone backend can do (`rclone backend features`), and from that how
/// a file that replaces another reaches readers whole.
package struct TargetFeatures: Sendable, Equatable {
    /// The backend's kind in words (`sftp`, `webdav`, `s3`, `local`...), for messages.
    var kind: String
    /// An object store (S3, GCS, Azure...): each upload replaces its object in one request.
    var bucketBased = false
    /// rclone uploads to a temporary name and renames it (rclone 1.63 and later, on file
    /// servers: local, SFTP, FTP, SMB).
    var partialUploads = false
    /// The server moves its own files (SFTP's rename, WebDAV's MOVE).
    var move = false
    /// rclone knows partial uploads at all (1.63 and later list the feature, true or false):
    /// older ones also move without replacing (WebDAV `Overwrite: F`, SFTP's plain rename).
    var movesOver = true

    /// How a file replacing another is written, so no reader gets part of it.
    enum Replace: Sendable, Equatable {
        /// An object store's upload, whole or not at all.
        case objectStore
        /// rclone's own temporary name and rename.
        case rcloneRenames
        /// matsite uploads under a temporary name in a staging folder on the target and
        /// moves it into place (WebDAV: rclone writes its files in place).
        case stageAndMove
        /// Written in place: a reader can get part of it.
        case inPlace
        /// One upload per file to a service (Drive, Dropbox, OneDrive...), which decides
        /// what a reader sees meanwhile.
        case oneUpload
    }

    /// Backends that write into a file a reader can see while it grows.
    static let fileServers: Set<String> = ["local", "sftp", "ftp", "smb", "hdfs"]

    var replace: Replace {
        if bucketBased { return .objectStore }
        if partialUploads { return .rcloneRenames }
        // WebDAV's MOVE replaces its destination; an rclone too old for temporary names
        // (before 1.63) cannot rename over an existing file on SFTP either.
        if kind == "webdav" { return move && movesOver ? .stageAndMove : .inPlace }
        return Self.fileServers.contains(kind) ? .inPlace : .oneUpload
    }

    /// Reads `rclone backend features`' JSON; nil for anything else.
    static func decode(_ data: Data) -> TargetFeatures? {
        struct Answer: Decodable {
            var string: String
            var features: [String: Bool]
            enum CodingKeys: String, CodingKey {
                case string = "String", features = "Features"
            }
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else { return nil }
        let f = answer.features
        return TargetFeatures(
            kind: kind(of: answer.string), bucketBased: f["BucketBased"] ?? false, partialUploads: f["PartialUploads"] ?? false,
            move: f["Move"] ?? false, movesOver: f["PartialUploads"] != nil)
    }

    /// The backend's kind from its description: `sftp://user@host:22//srv` is sftp,
    /// `webdav root 'www'` webdav, `S3 bucket site path www` s3, `Local file system at /x` local.
    static func kind(of description: String) -> String {
        // `FTP Connection to ftp://host`: the word before `://`.
        if let scheme = description.range(of: "://") {
            return description[..<scheme.lowerBound].split(separator: " ").last.map { $0.lowercased() } ?? "unknown"
        }
        let first = description.split(separator: " ").first.map { $0.lowercased() } ?? "unknown"
        return first
    }

    /// How a reader fares while a deploy replaces files here, in a sentence for `check`
    /// and the docs; `tears` when a reader can get part of a file.
    package var readerNote: (text: String, tears: Bool) {
        switch replace {
        case .objectStore:
            return ("\(kind): each upload replaces its object whole: readers get the old file or the new one", false)
        case .rcloneRenames:
            let rename =
                kind == "sftp"
                ? " (atomic on servers with OpenSSH's posix-rename extension; others delete the old file first, a moment of 404)" : ""
            return ("\(kind): rclone uploads to a temporary name and renames it into place\(rename)", false)
        case .stageAndMove:
            return (
                "\(kind): rclone writes files in place here, so matsite uploads a file that replaces another to a staging folder "
                    + "and moves it into place: atomic where the server's MOVE is a rename (nginx's WebDAV module); where it deletes "
                    + "the old file first (rclone serve webdav) a reader can get a 404 or a cut-short file in that instant",
                false
            )
        case .inPlace:
            return (
                "\(kind): rclone writes its files in place here: a reader can get part of a page or manifest while it is "
                    + "replaced (rclone 1.63 and later upload to a temporary name and rename)",
                true
            )
        case .oneUpload:
            return ("\(kind): one upload per file; what a reader sees meanwhile is the service's", false)
        }
    }
}
