import CFuzzDriver
import MatsiteImaging

/// libFuzzer entry: any bytes through the PNG decode wrapper, as a tile server might send.
/// Limits as the stitcher uses them, so a header claiming a huge image is refused, not allocated.
@_cdecl("FuzzPNG_main")
public func fuzzPNGMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    matsite_fuzz_main(argc, argv, fuzzPNG)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let decoder = PNGDecoder(maxWidth: 1024, maxHeight: 1024, maxChunkBytes: 1 << 20)
    guard let info = try? decoder.info(of: bytes) else { return 0 }
    let indexed = try? decoder.decode(bytes, keepIndices: true)
    let rgba = try? decoder.decode(bytes, keepIndices: false)
    // Facts the decoder promises: the pixel buffer matches the header.
    if let image = indexed, image.pixels.count != image.width * image.height * image.bytesPerPixel { trap("indexed size") }
    if let image = rgba, image.pixels.count != info.width * info.height * 4 { trap("rgba size") }
    // Into caller memory with a stride wider than a row.
    let stride = info.width * 4 + 3
    var buffer = [UInt8](repeating: 0, count: stride * info.height)
    buffer.withUnsafeMutableBytes { raw in
        _ = try? decoder.decode(bytes, keepIndices: false, into: raw, stride: stride)
    }
    return 0
}

private func trap(_ what: String) -> Never {
    preconditionFailure("PNGDecoder broke a promise: \(what)")
}
