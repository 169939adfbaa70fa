import Foundation
import MatsiteImaging
import MatsiteSupport

/// Tiles and documents the tests' servers answer with.
package enum TestTiles {
    /// Times the WMTS capabilities advertise: 10:00 to 11:00 every 10 minutes (7 instants).
    package static let advertised = "2026-11-21T10:00:00Z/2026-11-21T11:00:00Z/PT10M"

    /// A 256 px opaque tile of one colour drawn from `seed`.
    package static func solid(seed: String) -> [UInt8] {
        let digest = SHA256.hex(of: Array(seed.utf8))
        let bytes = stride(from: 0, to: 6, by: 2).map { UInt8(digest.dropFirst($0).prefix(2), radix: 16) ?? 0 }
        var pixels = [UInt8](repeating: 255, count: 256 * 256 * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = bytes[0]; pixels[i + 1] = bytes[1]; pixels[i + 2] = bytes[2]
        }
        return (try? PNGWriter.encode(width: 256, height: 256, format: .rgba, pixels: pixels, level: 1)) ?? []
    }

    /// A tile of one colour whose red is `minutes`: tells a frame's time by its pixels.
    package static func minutes(_ minutes: Int, size: Int = 256) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = UInt8(clamping: minutes)
            pixels[i + 1] = 40
            pixels[i + 2] = 90
            pixels[i + 3] = 255
        }
        return (try? PNGWriter.encode(width: size, height: size, format: .rgba, pixels: pixels)) ?? []
    }

    /// WMTS capabilities of a Web Mercator layer `radar` at `base`, zooms 0 to 6.
    package static func wmtsCapabilities(base: String, tileSize: Int = 256) -> String {
        let matrices = (0...6).map { z -> String in
            let n = 1 << z
            return """
                      <TileMatrix><ows:Identifier>z\(z)</ows:Identifier>
                        <ScaleDenominator>\(559082264.0287178 * 256 / Double(tileSize) / Double(n))</ScaleDenominator>
                        <TopLeftCorner>-20037508.3427892 20037508.3427892</TopLeftCorner>
                        <TileWidth>\(tileSize)</TileWidth><TileHeight>\(tileSize)</TileHeight>
                        <MatrixWidth>\(n)</MatrixWidth><MatrixHeight>\(n)</MatrixHeight></TileMatrix>
                """
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1"
                          xmlns:xlink="http://www.w3.org/1999/xlink" version="1.0.0">
              <ows:ServiceIdentification><ows:Title>Test WMTS</ows:Title>
                <ows:ServiceType>OGC WMTS</ows:ServiceType><ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>
              </ows:ServiceIdentification>
              <Contents>
                <Layer>
                  <ows:Title>Radar</ows:Title><ows:Identifier>radar</ows:Identifier>
                  <Style isDefault="true"><ows:Identifier>default</ows:Identifier></Style>
                  <Format>image/png</Format>
                  <Dimension><ows:Identifier>Time</ows:Identifier><Default>2026-11-21T11:00:00Z</Default>
                    <Value>\(advertised)</Value></Dimension>
                  <TileMatrixSetLink><TileMatrixSet>quad</TileMatrixSet></TileMatrixSetLink>
                  <ResourceURL format="image/png" resourceType="tile"
                    template="\(base)/wmts/tiles/{Time}/{TileMatrix}/{TileCol}/{TileRow}.png"/>
                </Layer>
                <TileMatrixSet>
                  <ows:Identifier>quad</ows:Identifier>
                  <ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>
            \(matrices)
                </TileMatrixSet>
              </Contents>
            </Capabilities>
            """
    }
}
