import Foundation

/// Reads test fixtures from the bundled `Fixtures` folder.
enum Fixtures {
    static let folder: URL? = Bundle.module.url(forResource: "Fixtures", withExtension: nil)

    /// The bytes of `Fixtures/<name>`, or nil when it is missing.
    static func bytes(_ name: String) -> [UInt8]? {
        guard let url = folder?.appendingPathComponent(name),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return [UInt8](data)
    }

    /// True when the OWSLib real-world documents are present.
    static var haveRealWorld: Bool {
        bytes("owslib/PROVENANCE.md") != nil
    }
}

extension String {
    /// The UTF-8 bytes.
    var bytes: [UInt8] { Array(utf8) }
}

/// Milliseconds spent running `body`.
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}
