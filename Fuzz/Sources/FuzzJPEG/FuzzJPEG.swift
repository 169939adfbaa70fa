import CFuzzDriver
import MatsiteImaging

/// libFuzzer entry: any bytes through the JPEG decode wrapper (libjpeg-turbo behind its C
/// shim), as a tile server might send. Limits as the stitcher uses them, so a header
/// claiming a huge image is refused, not allocated.
@_cdecl("FuzzJPEG_main")
public func fuzzJPEGMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    matsite_fuzz_main(argc, argv, fuzzJPEG)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let decoder = JPEGDecoder(maxWidth: 1024, maxHeight: 1024)
    guard let info = try? decoder.info(of: bytes) else { return 0 }
    let image = try? decoder.decode(bytes)
    // Facts the decoder promises: the pixel buffer matches the header, alpha is opaque.
    if let image {
        if image.pixels.count != info.width * info.height * 4 { trap("rgba size") }
        var i = 3
        while i < image.pixels.count { if image.pixels[i] != 255 { trap("alpha") }; i += 4 }
    }
    // Into caller memory with a stride wider than a row, and through the format sniffer.
    let stride = info.width * 4 + 3
    var buffer = [UInt8](repeating: 0, count: stride * info.height)
    buffer.withUnsafeMutableBytes { raw in
        _ = try? decoder.decode(bytes, into: raw, stride: stride)
    }
    _ = try? TileDecoder(maxWidth: 1024, maxHeight: 1024).info(of: bytes)
    return 0
}

private func trap(_ what: String) -> Never {
    preconditionFailure("JPEGDecoder broke a promise: \(what)")
}
