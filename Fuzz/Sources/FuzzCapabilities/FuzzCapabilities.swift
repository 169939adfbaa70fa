import CFuzzDriver
import MatsiteCapabilities

/// libFuzzer entry: any bytes as a WMTS/WMS capabilities document or service exception.
@_cdecl("FuzzCapabilities_main")
public func fuzzCapabilitiesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    matsite_fuzz_main(argc, argv, fuzzCapabilities)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapabilities(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    CapabilitiesFuzzing.exercise(bytes)
    if size < 256 {
        CapabilitiesFuzzing.exerciseTime(value: String(decoding: bytes, as: UTF8.self))
    }
    return 0
}
