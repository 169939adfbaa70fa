// swift-tools-version:6.0
import PackageDescription

// The targets, and what each may import (docs/architecture.md says more):
//   MatsiteSupport      files, hashing (SHA-256 from libcrypto, via CLibCrypto), the lock,
//                       subprocesses, ConfigError and exit classes; imports no matsite target
//   MatsiteImaging      tile decode (PNG, JPEG, WebP), PNG encode and band-by-band stitching,
//                       exported loops' frames, labels, GIF and animated WebP
//                       (owns libpng, libdeflate, libjpeg-turbo, libwebp(mux), giflib and
//                       FreeType, via CPNGShim, CJPEGShim, CWebPShim, CGIFShim, CFreeTypeShim)
//   MatsiteCapabilities WMTS/WMS capabilities and ISO 8601 time dimensions (owns libxml2)
//   MatsiteClustering   point clustering, a pure algorithm: imports nothing of matsite
//   MatsiteServe        the preview server and the loopback HTTP server (swift-nio): Support
//   MatsiteDeploy       `matsite deploy` through rclone: Support and Capabilities (TimeInstant);
//                       it knows the site folder and the deploy: section, nothing of the
//                       pipeline (the CLI hands it the build's lock)
//   MatsiteKit          config -> plan -> fetch -> stitch -> publish, pages, cache: imports
//                       Imaging, Capabilities, Clustering, Support (re-exported), and Deploy
//                       for the deploy: section's type and `check`'s probe; never Serve
//   MatsiteCLI          the command line: composes Kit, Serve and Deploy; arguments, exit
//                       codes, the console's bar and the wording of every event
//   matsite             the executable: runs MatsiteCLI
//   MatsiteTestSupport  the tests' servers (fault injection), sites and tiles; tests only
let package = Package(
    name: "matsite",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "matsite", targets: ["matsite"]),
        .library(name: "MatsiteKit", targets: ["MatsiteKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already under async-http-client; named to tell a failed TLS handshake by its type.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        // libdeflate compresses palette frames (cpng_deflate.c); zlib's inflate joins its bands.
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // setjmp/longjmp stays inside these C functions: libpng never unwinds Swift frames.
        .target(name: "CPNGShim", dependencies: ["CPNG", "CDeflate"]),
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        // libjpeg's error_exit longjmps to a setjmp inside this C shim, never through Swift.
        .target(
            name: "CJPEGShim",
            dependencies: ["CJPEG"]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // libwebpmux: the animation encoder of exported loops (WebPAnimEncoder).
        .systemLibrary(
            name: "CWebPMux",
            pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]
        ),
        .target(
            name: "CWebPShim",
            dependencies: ["CWebP", "CWebPMux"]
        ),
        // giflib writes exported GIF loops; FreeType draws their labels.
        .systemLibrary(
            name: "CGIF",
            pkgConfig: "libgif",
            providers: [.apt(["libgif-dev"])]
        ),
        .target(name: "CGIFShim", dependencies: ["CGIF"]),
        .systemLibrary(
            name: "CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]
        ),
        .target(name: "CFreeTypeShim", dependencies: ["CFreeType"]),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // SHA-256 from the system's OpenSSL; only MatsiteSupport/SHA256.swift imports it.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "MatsiteSupport", dependencies: ["CMatsiteSystem", "CLibCrypto"]),
        .target(name: "MatsiteImaging", dependencies: ["CPNGShim", "CJPEGShim", "CWebPShim", "CGIFShim", "CFreeTypeShim"]),
        // Atomic directory exchange (renameat2) for publishing.
        .target(name: "CMatsiteSystem"),
        .target(name: "MatsiteCapabilities", dependencies: ["CLibXML2"]),
        // Parts that need nothing of the pipeline but the site folder, in targets of their own
        // so that the compiler keeps them apart from it.
        .target(name: "MatsiteClustering"),
        .target(
            name: "MatsiteServe",
            dependencies: [
                "MatsiteSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "MatsiteDeploy", dependencies: ["MatsiteSupport", "MatsiteCapabilities"]),
        .target(
            name: "MatsiteKit",
            dependencies: [
                "MatsiteSupport",
                "MatsiteImaging",
                "MatsiteCapabilities",
                "MatsiteClustering",
                "MatsiteDeploy",
                "CMatsiteSystem",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            plugins: ["EmbedTemplates"]
        ),
        // Compiles templates/ into MatsiteKit, so the binary carries its default pages.
        .executableTarget(name: "embed-templates", path: "Sources/EmbedTemplatesTool"),
        .plugin(name: "EmbedTemplates", capability: .buildTool(), dependencies: ["embed-templates"]),
        // The command line: MatsiteKit and MatsiteDeploy report typed events, this words them
        // and maps errors to exit codes; `serve --watch` joins the builder and the server here.
        .target(
            name: "MatsiteCLI",
            dependencies: [
                "MatsiteKit",
                "MatsiteServe",
                "MatsiteDeploy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "matsite", dependencies: ["MatsiteCLI"]),
        // What the tests share: the scriptable test server with its fault injection (delays,
        // resets, requests never answered), test sites and tiles. Used by test targets only,
        // so none of it is in the MatsiteKit library product.
        .target(
            name: "MatsiteTestSupport",
            dependencies: [
                "MatsiteKit", "MatsiteServe", "MatsiteImaging", "MatsiteCapabilities",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "MatsiteImagingTests", dependencies: ["MatsiteImaging"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "MatsiteCapabilitiesTests", dependencies: ["MatsiteCapabilities"],
            resources: [.copy("Fixtures")]),
        // The commands' tests run the real binary against the test servers.
        .testTarget(
            name: "MatsiteCLITests",
            dependencies: [
                "MatsiteCLI", "MatsiteKit", "MatsiteDeploy", "MatsiteTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "MatsiteClusteringTests", dependencies: ["MatsiteClustering"]),
        .testTarget(name: "MatsiteDeployTests", dependencies: ["MatsiteDeploy"]),
        .testTarget(
            name: "MatsiteServeTests",
            dependencies: [
                "MatsiteServe", "MatsiteSupport", "MatsiteTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MatsiteKitTests",
            dependencies: [
                "MatsiteKit", "MatsiteImaging", "MatsiteClustering", "MatsiteTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
