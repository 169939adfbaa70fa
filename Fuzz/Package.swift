// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for matsite's parsers of untrusted bytes. Build and run them with
// scripts/fuzz.sh: it instruments every module from the command line and says where
// libFuzzer is (MATSITE_LIBFUZZER_NO_MAIN); without that, this package still builds.
//
// Each target's fuzz function is a @convention(c) callback handed to libFuzzer's
// LLVMFuzzerRunDriver from the target's own entry point. On Linux SwiftPM renames an
// executable's entry point to <Target>_main and links `--defsym main=<Target>_main`, so
// each target defines that symbol with @_cdecl (there is no Swift main: -parse-as-library),
// and libFuzzer's own main is left out (libclang_rt.fuzzer_no_main, see scripts/fuzz.sh).
//
// SwiftPM's own `--sanitize fuzzer` also adds -parse-as-library to every executable,
// which breaks the root package's embed-templates tool (a top-level-code main.swift). So
// scripts/fuzz.sh instruments everything with `-sanitize=address -sanitize-coverage=...`
// (libFuzzer's coverage, no libFuzzer main) and only these targets link libFuzzer.
let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]
let libFuzzer = Context.environment["MATSITE_LIBFUZZER_NO_MAIN"] ?? ""
let fuzzLink: [LinkerSetting] = [.unsafeFlags(libFuzzer.isEmpty ? ["-sanitize=address"]
                                                               : ["-sanitize=address", "-Xlinker", libFuzzer, "-lstdc++"])]

let package = Package(
    name: "matsite-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "matsite", path: "..")],
    targets: [
        .target(name: "CFuzzDriver"),
        // PNGDecoder: header probe and full decode, indexed and RGBA.
        .executableTarget(name: "FuzzPNG", dependencies: [.product(name: "MatsiteKit", package: "matsite"), "CFuzzDriver"],
                          swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        // JPEGDecoder (libjpeg-turbo): header probe, full decode, strided decode.
        .executableTarget(name: "FuzzJPEG", dependencies: [.product(name: "MatsiteKit", package: "matsite"), "CFuzzDriver"],
                          swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        // WebPDecoder (libwebp): header probe, full decode, strided decode.
        .executableTarget(name: "FuzzWebP", dependencies: [.product(name: "MatsiteKit", package: "matsite"), "CFuzzDriver"],
                          swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        // ConfigLoader.parse: YAML through every key check.
        .executableTarget(name: "FuzzConfig", dependencies: [.product(name: "MatsiteKit", package: "matsite"), "CFuzzDriver"],
                          swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
        // CapabilitiesFuzzing.exercise: WMTS/WMS/exception parsing and resolution.
        .executableTarget(name: "FuzzCapabilities", dependencies: [.product(name: "MatsiteKit", package: "matsite"), "CFuzzDriver"],
                          swiftSettings: fuzzTarget, linkerSettings: fuzzLink),
    ]
)
