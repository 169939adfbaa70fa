import Foundation
import Testing

@testable import MatsiteDeploy

/// Secrets in a deploy target, however spelled, never reach the output; a target rclone
/// would read otherwise than meant is refused, showing the quoted spelling; rclone's noise
/// is dropped and its errors kept. Tests/deploy checks the same through the binary.
@Suite("Deploy secrets and rclone's words")
struct SecretMaskTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCY"

    /// Targets a user might write, each holding `secret` (or `hunter2secret`) somewhere.
    static let hostile = [
        ":s3,provider=Other,endpoint=http://127.0.0.1:39555,access_key_id=AKIAEXAMPLE,secret_access_key=\(secret):site/err",
        ":s3,provider=Other,endpoint='http://127.0.0.1:39555',access_key_id=AKIAEXAMPLE,secret_access_key=\(secret):site/www",
        ":s3,secret_access_key=\"\(secret),x\":bucket/www",
        ":s3,SECRET_ACCESS_KEY=\(secret):bucket",
        ":sftp,host=example.org,user=web,pass='it''s \(secret)':/srv/www",
        "remote,session_token=\(secret):bucket/path",
        ":webdav,url='https://web:\(secret)@dav.example.org/dav',vendor=other:www",
        ":webdav,url=https://web:\(secret)@dav.example.org/dav:www",
        ":azureblob,account=acct,key=\(secret):container",
        ":s3,sse_customer_key=\(secret),provider=AWS:b",
    ]

    @Test("a secret in the target never shows, in the target as shown or in rclone's lines quoting it")
    func hostileSpellings() {
        for target in Self.hostile {
            let mask = SecretMask(target: target)
            #expect(!mask.shownTarget.contains(Self.secret), "\(mask.shownTarget)")
            let lines = [
                "2026/11/25 19:09:13 CRITICAL: Failed to create file system for \"\(target)\": couldn't connect",
                "Failed to create file system for '\(target)'",
                "DEBUG : Setting secret_access_key=\"\(Self.secret)\" for \"S\" from environment variable RCLONE_CONFIG_S_SECRET_ACCESS_KEY",
                "dial tcp: lookup \(Self.secret): no such host",
                "Get \"http://127.0.0.1:39555/site?X-Amz-Credential=AKIAEXAMPLE%2F2026&X-Amz-Signature=\(Self.secret)\"",
                "Authorization: AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20261125, Signature=\(Self.secret)",
                "starting with parameters [\"rclone\" \"copy\" \"\(SecretMask.goQuoted(target + "/"))\"]",
                "Setting pass=\\\"\(Self.secret)\\\" from RCLONE_CONFIG_T_PASS",
            ]
            for line in lines {
                #expect(!mask(line).contains(Self.secret), "\(target): \(mask(line))")
            }
        }
    }

    @Test("what is no secret still shows: the host, the bucket, the path")
    func keepsTheRest() {
        let mask = SecretMask(target: ":sftp,host=example.org,user=web,pass=hunter2secret:/srv/www")
        #expect(mask.shownTarget == ":sftp,host=example.org,user=web,pass=***:/srv/www")
        #expect(SecretMask(target: "web:/srv/www").shownTarget == "web:/srv/www")
        #expect(mask("ERROR : radar/index.html: Failed to copy: connection refused") == "ERROR : radar/index.html: Failed to copy: connection refused")
        #expect(SecretMask(target: "w:").shownTarget == "w:")
    }

    @Test("secrets in deploy.rclone_flags are masked too, written --name=value or as two flags")
    func flagSecrets() {
        let mask = SecretMask(target: "s3site:bucket", flags: ["--s3-secret-access-key=flagsecret1", "--sftp-pass", "flagsecret2", "--bwlimit=1M"])
        let shown = mask("using flagsecret1 and flagsecret2 at 1M")
        #expect(!shown.contains("flagsecret1") && !shown.contains("flagsecret2") && shown.contains("1M"))
    }

    @Test("secret headers in flags (two items or one) and in the target's headers= never show; harmless values do")
    func headerSecrets() {
        let token = "eyJhbGciOiJIUzI1NiJ9.tokentokentoken"
        let cases: [(String, [String])] = [
            ("w:www", ["--header", "Authorization: Bearer \(token)", "--transfers", "8"]),
            ("w:www", ["--header-upload=Cookie: session=\(token)"]),
            ("w:www", ["--webdav-headers", "Authorization,Bearer \(token)"]),
            ("w:www", ["--webdav-headers=X-Api-Key,\(token),X-Trace,visible-trace-id"]),
            ("w:www", ["--s3-secret-access-key", token]),
            (":webdav,url='http://127.0.0.1:8080/',vendor=other,headers='Authorization,Bearer \(token)':www", []),
            (":webdav,url='http://127.0.0.1:8080/',headers='\"Cookie\",\"a=1; b=\(token)\"':www", []),
        ]
        for (target, flags) in cases {
            let mask = SecretMask(target: target, flags: flags)
            #expect(!mask.shownTarget.contains(token), "\(mask.shownTarget)")
            let lines = [
                "DEBUG : webdav root 'www': found headers: [Authorization Bearer \(token)]",
                "DEBUG : rclone: Version \"v1.75.2\" starting with parameters [\"rclone\" \"copy\" \(flags.map { "\"\($0)\"" }.joined(separator: " "))]",
                "deploy: 40 site files in /x -> \(target)",
                "token alone: \(token)",
            ]
            for line in lines { #expect(!mask(line).contains(token), "\(flags): \(mask(line))") }
        }
        let mask = SecretMask(target: "w:www", flags: ["--transfers", "8", "--webdav-headers=X-Trace,visible-trace-id"])
        #expect(mask("using 8 transfers, X-Trace visible-trace-id") == "using 8 transfers, X-Trace visible-trace-id")
        // A credential header in rclone's argument list: hidden to its closing quote, the flags after it kept.
        #expect(
            SecretMask.maskHeaders("parameters [\"--header\" \"Authorization: Bearer unknown-value\" \"--transfers\" \"8\"]")
                == "parameters [\"--header\" \"Authorization: ***\" \"--transfers\" \"8\"]")
        #expect(SecretMask.flagValues(["--transfers", "8", "-vv", "--bwlimit=1M"]).map { "\($0.name)=\($0.value)" } == ["transfers=8", "bwlimit=1M"])
    }

    @Test("what the server refused is named, with the fix; an HTML error page is reduced to its title")
    func refusals() {
        #expect(Deployer.refusal(in: ["sftp: \"Failure\" (SSH_FX_FAILURE)"])?.contains("disk is full") == true)
        #expect(Deployer.refusal(in: ["the server's error page: 500 Internal Server Error"])?.contains("may not write") == true)
        #expect(Deployer.refusal(in: ["Failed to copy: 404 Not Found"])?.contains("--read-only") == true)
        #expect(Deployer.refusal(in: ["permission denied"]) == nil)
        let shown = Deployer.shownLines([
            "ERROR : a.html: Failed to copy: unchunked simple update failed: <html>", "<head><title>500 Internal Server Error</title></head>",
            "<body>", "note: x",
        ])
        #expect(shown == ["ERROR : a.html: Failed to copy: unchunked simple update failed: <html>", "the server's error page: 500 Internal Server Error"])
        #expect(Rclone.losesConnection("ERROR : a.png: Failed to copy: Put \"http://127.0.0.1:1/a.png\": dial tcp 127.0.0.1:1: connect: connection refused"))
        #expect(Rclone.losesConnection("Failed to copy: read tcp 127.0.0.1:5->127.0.0.1:6: i/o timeout"))
        #expect(!Rclone.losesConnection("ERROR : a.png: Failed to copy: permission denied"))
    }

    @Test("a connection string rclone would cut at an unquoted URL's colon is found, and spelled quoted")
    func misreading() {
        let target = ":s3,provider=Other,endpoint=http://127.0.0.1:39555,access_key_id=AKIAEXAMPLE,secret_access_key=S3CRET:site/err"
        let misread = DeployTarget.misreading(target)
        #expect(misread?.key == "endpoint")
        #expect(
            misread?.quoted
                == ":s3,provider=Other,endpoint='http://127.0.0.1:39555',access_key_id=AKIAEXAMPLE,secret_access_key=S3CRET:site/err")
        // Quoted, it reads as meant: the remote part ends after the secret.
        if let quoted = misread?.quoted, let end = DeployTarget.remoteEnd(quoted) {
            #expect(quoted[quoted.index(after: end)...] == "site/err")
            #expect(DeployTarget.misreading(quoted) == nil)
        }
        #expect(DeployTarget.misreading(":sftp,host=h,user=u:/srv/www") == nil)
        #expect(DeployTarget.misreading("s3site:bucket/www") == nil)
        #expect(DeployTarget.misreading("/srv/www") == nil)
        #expect(DeployTarget.misreading("remote,region=x:bucket/a,b:c") == nil)
        // A key written unquoted after a URL with a port: the port's colon cuts too.
        #expect(DeployTarget.misreading(":webdav,url=https://dav.example.org:8443/dav,pass=abc:www")?.key == "url")
    }

    @Test("remote parts: quoted colons, local paths, joins")
    func parsing() {
        let quoted = ":webdav,url='http://h:1/x',vendor=other:www"
        #expect(DeployTarget.remoteEnd(quoted).map { String(quoted[$0...]) } == ":www")
        #expect(DeployTarget.remoteEnd("/srv/www") == nil)
        #expect(DeployTarget.remoteEnd("./site:copy") == nil)
        #expect(DeployTarget.join("web:", "x") == "web:x" && DeployTarget.join("web:/srv", "x") == "web:/srv/x")
        #expect(DeployTarget.folder("s3:bucket/www") == "s3:bucket/www/" && DeployTarget.folder("s3:") == "s3:")
        #expect(DeployTarget.unquote("'it''s'") == "it's")
    }

    @Test("rclone's notices for on-the-fly remotes go; the host-key notice is said once, in matsite's words; errors stay")
    func output() {
        let output = RcloneOutput(mask: SecretMask(target: ":sftp,host=h,pass=hunter2secret:/srv"))
        #expect(output("2026/11/25 19:08:04 NOTICE: Config file \"/root/.config/rclone/rclone.conf\" not found - using defaults") == "")
        #expect(output("2026/11/25 19:08:04 NOTICE: Can't save config \"shell_type\" for on the fly backend \":sftp\"") == "")
        let hostKey = "2026/11/25 19:08:04 NOTICE: T: No host key validation is being performed. Set known_hosts_file (to \"none\" to silence this notice)"
        #expect(output(hostKey).hasPrefix("note: rclone does not check this SFTP server's host key"))
        #expect(output(hostKey) == "")
        #expect(
            output("2026/11/25 19:08:09 NOTICE:    47.282 KiB / 1.083 MiB, 4%, 40.004 KiB/s, ETA 26s") == "47.282 KiB / 1.083 MiB, 4%, 40.004 KiB/s, ETA 26s")
        #expect(output("2026/11/25 19:08:12 NOTICE:    1.083 MiB / 1.083 MiB, 100%, 40.004 KiB/s, ETA 0s") == "")
        let error = output("2026/11/25 19:09:13 CRITICAL: Failed to create file system for \":sftp,host=h,pass=hunter2secret:/srv\": refused")
        #expect(error == "CRITICAL: Failed to create file system for \":sftp,host=h,pass=***:/srv\": refused")
    }

    @Test("rclone's version, and whether it renames uploads into place")
    func versions() {
        #expect(RcloneBinary.version(in: "rclone v1.75.2\n- os/version: debian 12.11 (64 bit)\n") == "v1.75.2")
        #expect(RcloneBinary.version(in: "rclone v1.60.1-DEV\n") == "v1.60.1-DEV")
        #expect(RcloneBinary.version(in: "garbage") == nil)
        #expect(RcloneBinary.renamesUploads("v1.75.2") && RcloneBinary.renamesUploads("v1.63.0"))
        #expect(!RcloneBinary.renamesUploads("v1.60.1-DEV") && !RcloneBinary.renamesUploads("v1.62.2"))
    }

    @Test("backend features decide how a replaced file reaches readers whole")
    func features() {
        func features(_ description: String, _ flags: [String: Bool]) -> TargetFeatures? {
            let json = try? JSONSerialization.data(withJSONObject: ["String": description, "Features": flags])
            return json.flatMap(TargetFeatures.decode)
        }
        let s3 = features("S3 bucket site path www", ["BucketBased": true, "Copy": true])
        #expect(s3?.kind == "s3" && s3?.replace == .objectStore)
        let sftp = features("sftp://web@127.0.0.1:2222//srv", ["PartialUploads": true, "Move": true])
        #expect(sftp?.kind == "sftp" && sftp?.replace == .rcloneRenames)
        // rclone 1.60 has no temporary names, and its SFTP move does not replace a file.
        let oldSFTP = features("sftp://web@127.0.0.1:2222//srv", ["Move": true])
        #expect(oldSFTP?.replace == .inPlace && oldSFTP?.readerNote.tears == true)
        let webdav = features("webdav root 'www'", ["Copy": true, "Move": true, "PartialUploads": false])
        #expect(webdav?.kind == "webdav" && webdav?.replace == .stageAndMove)
        // rclone 1.60 moves with Overwrite: F: the staging move would fail.
        #expect(features("webdav root 'www'", ["Copy": true, "Move": true])?.replace == .inPlace)
        let local = features("Local file system at /srv/www", ["Move": true])
        #expect(local?.kind == "local" && local?.replace == .inPlace && local?.readerNote.tears == true)
        #expect(features("FTP Connection to ftp://web@example.org:21/www", ["PartialUploads": true])?.kind == "ftp")
        let drive = features("Google drive root 'www'", ["Move": true, "Copy": true])
        #expect(drive?.replace == .oneUpload && drive?.readerNote.tears == false)
        #expect(TargetFeatures.decode(Data("[".utf8)) == nil)
    }
}
