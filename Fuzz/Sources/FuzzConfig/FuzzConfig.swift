import CFuzzDriver
import Foundation
import MatsiteKit

/// libFuzzer entry: any bytes as matsite.yml. Must end in a SiteConfig or a ConfigError,
/// never a crash, a hang or another error type.
@_cdecl("FuzzConfig_main")
public func fuzzConfigMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    matsite_fuzz_main(argc, argv, fuzzConfig)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    do {
        _ = try ConfigLoader.parse(bytes, file: "fuzz.yml")
    } catch is ConfigError {
    } catch {
        preconditionFailure("ConfigLoader.parse threw a non-ConfigError: \(error)")
    }
    return 0
}
