import Foundation
import Testing

@testable import MatsiteKit

/// The `deploy:` section as the config loader reads it (MatsiteDeploy carries it out).
@Suite("Deploy config")
struct DeployConfigTests {
    @Test("deploy: is read with its defaults, and a bad key names its line")
    func config() throws {
        let base = ConfigLoaderTests.yaml()
        let config = try ConfigLoader.parse(Data((base + "deploy:\n  target: \"s3site:bucket/www\"\n").utf8), file: "site.yml")
        #expect(config.deploy?.target == "s3site:bucket/www")
        #expect(config.deploy?.graceSeconds == 86400 && config.deploy?.maxDeletes == 1000)
        let tuned = try ConfigLoader.parse(
            Data((base + "deploy: { target: \"w:/srv\", grace: PT0S, max_deletes: 5, rclone_flags: [--bwlimit=1M] }\n").utf8), file: "site.yml")
        #expect(tuned.deploy?.graceSeconds == 0 && tuned.deploy?.maxDeletes == 5 && tuned.deploy?.rcloneFlags == ["--bwlimit=1M"])
        let error = #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(Data((base + "deploy:\n  target: w:/srv\n  grace: 2 days\n").utf8), file: "site.yml")
        }
        #expect(error?.keyPath == "deploy.grace" && error?.line == ConfigLoaderTests.lines.count + 3)
        let missing = #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(Data((base + "deploy:\n  grace: PT1H\n").utf8), file: "site.yml")
        }
        #expect(missing?.keyPath == "deploy.target")
        #expect(config.deploy?.create == false && config.deploy?.rclone == nil)
        let create = try ConfigLoader.parse(Data((base + "deploy: { target: \"w:/srv\", create: true, rclone: /opt/rclone }\n").utf8), file: "site.yml")
        #expect(create.deploy?.create == true && create.deploy?.rclone == "/opt/rclone")
    }

    @Test("the config refuses a misread target, naming the line, showing the quoted form masked")
    func configRefuses() {
        let base = ConfigLoaderTests.yaml()
        let yaml =
            base
            + "deploy:\n  target: \":s3,provider=Other,endpoint=http://127.0.0.1:39555,access_key_id=AKIAEXAMPLE,secret_access_key=S3CRETKEY:site/err\"\n"
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(Data(yaml.utf8), file: "site.yml") }
        #expect(error?.keyPath == "deploy.target" && error?.line == ConfigLoaderTests.lines.count + 2)
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("endpoint='http://127.0.0.1:39555',access_key_id=***,secret_access_key=***:site/err"), "\(text)")
        #expect(!text.contains("S3CRETKEY") && !text.contains("AKIAEXAMPLE"))
    }
}
