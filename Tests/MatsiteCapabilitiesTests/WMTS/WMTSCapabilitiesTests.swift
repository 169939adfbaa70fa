import Testing

@testable import MatsiteCapabilities

@Suite("WMTS capabilities")
struct WMTSCapabilitiesTests {
    static let realWorld = Fixtures.haveRealWorld

    private func load(_ name: String, url: String) throws -> WMTSCapabilities {
        let bytes = try #require(Fixtures.bytes(name))
        return try WMTSCapabilities.parse(bytes, url: url)
    }

    @Test("NASA GIBS (EOSDIS): every layer is read and none is in Web Mercator", .enabled(if: realWorld))
    func eosdis() throws {
        let caps = try load("owslib/eosdis-wmts-cap.xml", url: "https://gibs.example/wmts.cgi")
        #expect(caps.title == "NASA Global Image Browse Services for EOSDIS")
        #expect(caps.layers.count == 55)
        #expect(caps.tileMatrixSets.map(\.identifier).contains("EPSG4326_2km"))
        let layer = try #require(caps.layer("AIRS_CO_Total_Column_Day"))
        #expect(layer.defaultStyle?.identifier == "default")
        #expect(layer.formats == ["image/png"])
        #expect(layer.tileMatrixSetLinks == ["EPSG4326_2km"])
        #expect(caps.getTileKVPURL == "http://map1b.vis.earthdata.nasa.gov/wmts-geo/wmts.cgi?")
        #expect(caps.summary.allSatisfy { !$0.webMercator })
    }

    @Test("a layer with only EPSG:4326 sets is refused, listing its sets", .enabled(if: realWorld))
    func eosdisRefused() throws {
        let caps = try load("owslib/eosdis-wmts-cap.xml", url: "https://gibs.example/wmts.cgi")
        let error = #expect(throws: CapabilitiesError.self) {
            try caps.tileSource(layer: "AIRS_CO_Total_Column_Day")
        }
        #expect(error?.reason == .noWebMercatorSet(layer: "AIRS_CO_Total_Column_Day", sets: ["EPSG4326_2km"]))
        #expect(
            error?.description
                == "capabilities at https://gibs.example/wmts.cgi: layer \"AIRS_CO_Total_Column_Day\" has no tile matrix set in Web Mercator (it has: EPSG4326_2km)"
        )
    }

    @Test("an unknown layer is refused, listing layers that exist", .enabled(if: realWorld))
    func unknownLayer() throws {
        let caps = try load("owslib/sfs-wmts-cap-world.xml", url: "https://sfs.example/WMTSCapabilities.xml")
        let error = #expect(throws: CapabilitiesError.self) { try caps.tileSource(layer: "Moon") }
        #expect(error?.description == "capabilities at https://sfs.example/WMTSCapabilities.xml: no layer \"Moon\" (layers include: World, Ocean)")
    }

    @Test("ERDAS: the googlemapscompatible set is found and tiles go through KVP GetTile", .enabled(if: realWorld))
    func erdas() throws {
        let caps = try load("owslib/erdas-iws-wmts-cap.xml", url: "http://iws2.erdas.com/ImageX/ecw_wmts.dll?service=WMTS&request=GetCapabilities")
        #expect(
            caps.layers.map(\.identifier) == [
                "franklin.ecw", "images_charlestoncosids-mosaic.ecw", "images_edinburgh_edinburgh.ecw", "landsat742.ecw",
            ])
        // googlecrs84quad has Web Mercator-like scales but is in CRS84: it must not be picked.
        let source = try caps.tileSource(layer: "franklin.ecw")
        #expect(source.tileMatrixSet == "ogc:1.0:googlemapscompatible")
        #expect(source.minZoom == 0)
        #expect(source.maxZoom == 18)
        #expect(source.tileSize == 256)
        #expect(source.format == "image/png")
        #expect(source.request == .kvp("http://iws2.erdas.com/ImageX/ecw_wmts.dll?"))
        #expect(
            source.tileURL(z: 3, x: 2, y: 5, time: nil)
                == "http://iws2.erdas.com/ImageX/ecw_wmts.dll?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=franklin.ecw&STYLE=default&FORMAT=image%2Fpng&TILEMATRIXSET=ogc:1.0:googlemapscompatible&TILEMATRIX=3&TILEROW=5&TILECOL=2"
        )
        #expect(source.tileURL(z: 19, x: 0, y: 0, time: nil) == nil)
        let jpeg = try caps.tileSource(layer: "franklin.ecw", format: "image/jpeg")
        #expect(jpeg.tileURL(z: 0, x: 0, y: 0, time: nil)?.contains("FORMAT=image%2Fjpeg") == true)
    }

    @Test("asking ERDAS for a CRS84 set explains why it is not Web Mercator", .enabled(if: realWorld))
    func erdasWrongSet() throws {
        let caps = try load("owslib/erdas-iws-wmts-cap.xml", url: "http://iws2.erdas.com/wmts")
        let error = #expect(throws: CapabilitiesError.self) {
            try caps.tileSource(layer: "franklin.ecw", tileMatrixSet: "ogc:1.0:googlecrs84quad")
        }
        #expect(
            error?.reason
                == .tileMatrixSetNotWebMercator(
                    layer: "franklin.ecw", set: "ogc:1.0:googlecrs84quad", why: "its CRS is urn:ogc:def:crs:OGC:1.3:CRS84"))
        let missing = #expect(throws: CapabilitiesError.self) {
            try caps.tileSource(layer: "images_charlestoncosids-mosaic.ecw", tileMatrixSet: "ogc:1.0:globalcrs84scale")
        }
        #expect(
            missing?.reason
                == .unknownTileMatrixSet(
                    layer: "images_charlestoncosids-mosaic.ecw", set: "ogc:1.0:globalcrs84scale",
                    known: ["ogc:1.0:googlecrs84quad", "ogc:1.0:googlemapscompatible"]))
    }

    @Test("SFS: a GoogleMapsCompatible set is trusted by name and tiles use the ResourceURL template", .enabled(if: realWorld))
    func sfs() throws {
        let caps = try load("owslib/sfs-wmts-cap-world.xml", url: "http://server.caris.com/spatialfusionserver/services/ows/wmts/World")
        #expect(caps.layers.map(\.identifier) == ["World", "Ocean"])
        #expect(caps.layer("World")?.tileMatrixSetLinks == ["GlobalCRS84Scale", "GoogleMapsCompatible"])
        let source = try caps.tileSource(layer: "World")
        #expect(source.tileMatrixSet == "GoogleMapsCompatible")
        #expect(source.minZoom == 0)
        #expect(source.maxZoom == 17)
        #expect(
            source.tileURL(z: 2, x: 1, y: 3, time: nil)
                == "http://server.caris.com/spatialfusionserver/services/ows/wmts/World/World/default/GoogleMapsCompatible/2/3/1.png")
        let set = try #require(caps.tileMatrixSet("GoogleMapsCompatible"))
        #expect(set.supportedCRS == "urn:ogc:def:crs:EPSG:6.18:3:3857")
        #expect(set.matrices.first?.scaleDenominator == 559_082_264.0287178)
        #expect(set.matrices.first?.matrixWidth == 1)
    }

    @Test("a layer with a time dimension: values, default, current and URLs per time")
    func timeLayer() throws {
        let caps = try load("matsite-wmts-time.xml", url: "https://tiles.example.org/wmts/1.0.0/WMTSCapabilities.xml")
        #expect(caps.title == "matsite test radar")
        let layer = try #require(caps.layer("radar"))
        #expect(layer.defaultStyle?.identifier == "dbz")
        let time = try #require(layer.timeDimension)
        #expect(time.defaultValue == "2026-11-21T11:50:00Z")
        #expect(time.current)
        #expect(time.values.count == 2)

        let now = TimeInstant(year: 2026, month: 11, day: 23)!
        let source = try caps.tileSource(layer: "radar", now: now)
        #expect(source.style == "dbz")
        #expect(source.tileMatrixSet == "merc-custom")
        #expect(source.matrixIdentifiers == [0: "L00", 1: "L01", 2: "L02", 3: "L03", 4: "L04"])
        #expect(source.maxZoom == 4)
        let dimension = try #require(source.time)
        #expect(dimension.count == 18)
        let latest = try dimension.latest(2)
        #expect(latest.map(\.iso8601) == ["2026-11-21T11:45:00Z", "2026-11-21T11:50:00Z"])
        #expect(
            source.tileURL(z: 3, x: 4, y: 2, instant: latest[1])
                == "https://tiles.example.org/wmts/1.0.0/tiles/2026-11-21T11:50:00Z/dbz/merc-custom/L03/2/4.png?elev=500")
        #expect(
            source.tileURL(z: 0, x: 0, y: 0, time: nil)
                == "https://tiles.example.org/wmts/1.0.0/tiles/2026-11-21T11:50:00Z/dbz/merc-custom/L00/0/0.png?elev=500")
        #expect(
            source.tileURL(z: 1, x: 1, y: 0, time: "2026-11-21 10:00/x")
                == "https://tiles.example.org/wmts/1.0.0/tiles/2026-11-21%2010:00%2Fx/dbz/merc-custom/L01/0/1.png?elev=500")
        let plain = try caps.tileSource(layer: "radar", style: "plain", now: now)
        #expect(plain.tileURL(z: 0, x: 0, y: 0, time: "t")?.contains("/plain/") == true)
    }

    @Test("a KVP layer on a 512-pixel set with named matrices maps zooms by scale")
    func kvp512() throws {
        let caps = try load("matsite-wmts-time.xml", url: "https://tiles.example.org/wmts/1.0.0/WMTSCapabilities.xml")
        // The RESTful Get comes first in the document; the KVP one must be chosen.
        #expect(caps.getTileKVPURL == "https://tiles.example.org/wmts?map=radar")
        let source = try caps.tileSource(layer: "satellite")
        #expect(source.tileSize == 512)
        #expect(source.minZoom == 2)
        #expect(source.maxZoom == 4)
        #expect(source.format == "image/jpeg")
        let time = try #require(source.time)
        let newest = try #require(try time.latest(1).first)
        #expect(
            source.tileURL(z: 3, x: 5, y: 1, instant: newest)
                == "https://tiles.example.org/wmts?map=radar&SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=satellite&STYLE=default&FORMAT=image%2Fjpeg&TILEMATRIXSET=merc-512&TILEMATRIX=z3&TILEROW=1&TILECOL=5&TIME=2026-11-22"
        )
        #expect(source.tileURL(z: 1, x: 0, y: 0, time: nil) == nil)
    }

    @Test("a layer whose sets are UTM, WGS 84 and a fake Mercator is refused with all three")
    func noMercator() throws {
        let caps = try load("matsite-wmts-time.xml", url: "https://x/wmts.xml")
        let error = #expect(throws: CapabilitiesError.self) { try caps.tileSource(layer: "cadastre") }
        #expect(
            error?.description
                == "capabilities at https://x/wmts.xml: layer \"cadastre\" has no tile matrix set in Web Mercator (it has: UTM32, WGS84, fake-merc)")
        let fake = #expect(throws: CapabilitiesError.self) {
            try caps.tileSource(layer: "cadastre", tileMatrixSet: "fake-merc")
        }
        #expect(
            fake?.reason
                == .tileMatrixSetNotWebMercator(
                    layer: "cadastre", set: "fake-merc",
                    why: "matrix 0 has scale 500000000.0, not a Web Mercator zoom level's"))
    }

    @Test("unknown styles and formats are refused with what the layer offers")
    func unknownStyleAndFormat() throws {
        let caps = try load("matsite-wmts-time.xml", url: "https://x/wmts.xml")
        let style = #expect(throws: CapabilitiesError.self) { try caps.tileSource(layer: "radar", style: "rainbow") }
        #expect(style?.reason == .unknownStyle(layer: "radar", style: "rainbow", known: ["plain", "dbz"]))
        let format = #expect(throws: CapabilitiesError.self) { try caps.tileSource(layer: "radar", format: "image/webp") }
        #expect(format?.reason == .unknownFormat(layer: "radar", format: "image/webp", known: ["image/png"]))
    }

    @Test("the summary lists layers with their time extent")
    func summary() throws {
        let caps = try load("matsite-wmts-time.xml", url: "https://x/wmts.xml")
        let summary = caps.summary
        #expect(summary.map(\.identifier) == ["radar", "satellite", "cadastre"])
        #expect(summary.map(\.webMercator) == [true, true, false])
        #expect(summary[0].time?.count == 18)
        #expect(summary[0].time?.last?.iso8601 == "2026-11-21T11:50:00Z")
        #expect(summary[1].time?.period == "P1D")
        #expect(
            summary[1].description == "satellite (Daily satellite mosaic): 2026-11-01T00:00:00Z to 2026-11-22T00:00:00Z, 22 times every P1D, default 2026-11-22"
        )
        #expect(summary[2].time == nil)
    }

    @Test("WMS documents, HTML pages and exception reports are told apart")
    func wrongDocuments() throws {
        let wms = "<WMS_Capabilities xmlns=\"http://www.opengis.net/wms\" version=\"1.3.0\"/>"
        let error = #expect(throws: CapabilitiesError.self) { try WMTSCapabilities.parse(wms.bytes, url: "https://x/c") }
        #expect(
            error?.description
                == "capabilities at https://x/c: expected a WMTS 1.0.0 Capabilities document, found <WMS_Capabilities> in namespace http://www.opengis.net/wms (a WMS document: use source.wms)"
        )
        let html = "<!DOCTYPE html><html><body>Sign in</body></html>"
        #expect(throws: CapabilitiesError(url: "https://x/c", reason: .html)) { try WMTSCapabilities.parse(html.bytes, url: "https://x/c") }
        let exception = """
            <ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" version="1.1.0">
              <ows:Exception exceptionCode="InvalidParameterValue" locator="request">
                <ows:ExceptionText>Unknown request
                   GetCapabilitiez</ows:ExceptionText>
              </ows:Exception>
            </ows:ExceptionReport>
            """
        #expect(throws: CapabilitiesError(url: "https://x/c", reason: .serviceException("InvalidParameterValue (request): Unknown request GetCapabilitiez"))) {
            try WMTSCapabilities.parse(exception.bytes, url: "https://x/c")
        }
        let wmsStyle = """
            <?xml version="1.0"?>
            <!DOCTYPE ServiceExceptionReport SYSTEM "http://schemas.opengis.net/wms/1.1.1/exception_1_1_1.dtd">
            <ServiceExceptionReport version="1.1.1"><ServiceException code="LayerNotDefined">no such layer</ServiceException></ServiceExceptionReport>
            """
        #expect(throws: CapabilitiesError(url: "https://x/c", reason: .serviceException("LayerNotDefined: no such layer"))) {
            try WMTSCapabilities.parse(wmsStyle.bytes, url: "https://x/c")
        }
    }

    @Test("a template placeholder that matches nothing is refused up front")
    func unknownPlaceholder() throws {
        let text = """
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0">
              <Contents>
                <Layer><ows:Identifier>a</ows:Identifier><Format>image/png</Format>
                  <TileMatrixSetLink><TileMatrixSet>WebMercatorQuad</TileMatrixSet></TileMatrixSetLink>
                  <ResourceURL format="image/png" resourceType="tile" template="https://t/{Time}/{TileMatrix}/{TileRow}/{TileCol}.png"/>
                </Layer>
                <TileMatrixSet><ows:Identifier>WebMercatorQuad</ows:Identifier>
                  <ows:SupportedCRS>http://www.opengis.net/def/crs/EPSG/0/3857</ows:SupportedCRS>
                  <TileMatrix><ows:Identifier>0</ows:Identifier><ScaleDenominator>559082264.028717</ScaleDenominator>
                    <TopLeftCorner>-20037508.3427892 20037508.3427892</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight>
                    <MatrixWidth>1</MatrixWidth><MatrixHeight>1</MatrixHeight></TileMatrix>
                </TileMatrixSet>
              </Contents>
            </Capabilities>
            """
        let caps = try WMTSCapabilities.parse(text.bytes, url: "https://t/caps.xml")
        let error = #expect(throws: CapabilitiesError.self) { try caps.tileSource(layer: "a") }
        #expect(
            error?.reason
                == .noRequestURL(
                    layer: "a",
                    detail:
                        "the ResourceURL template https://t/{Time}/{TileMatrix}/{TileRow}/{TileCol}.png has placeholders that match nothing the layer advertises: {time}"
                ))
    }

    @Test("a GIBS-style layer: daily times written as dates in a RESTful template, deepest Level set chosen")
    func gibsStyle() throws {
        // Written for matsite in the shape of NASA GIBS's EPSG:3857 endpoint (abridged).
        func matrices(_ count: Int) -> String {
            (0..<count).map { z in
                let scale = 559_082_264.028_717_8 / Double(1 << z)
                return
                    "<TileMatrix><ows:Identifier>\(z)</ows:Identifier><ScaleDenominator>\(scale)</ScaleDenominator><TopLeftCorner>-20037508.34278925 20037508.34278925</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight><MatrixWidth>\(1 << z)</MatrixWidth><MatrixHeight>\(1 << z)</MatrixHeight></TileMatrix>"
            }.joined()
        }
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0">
              <Contents>
                <Layer>
                  <ows:Title>Corrected Reflectance (True Color)</ows:Title>
                  <ows:Identifier>MODIS_Terra_CorrectedReflectance_TrueColor</ows:Identifier>
                  <Style isDefault="true"><ows:Title>default</ows:Title><ows:Identifier>default</ows:Identifier></Style>
                  <Format>image/jpeg</Format>
                  <Dimension>
                    <ows:Identifier>Time</ows:Identifier><ows:UOM>ISO8601</ows:UOM>
                    <Default>2026-11-22</Default><Current>false</Current>
                    <Value>2000-02-24/2002-07-03/P1D</Value>
                    <Value>2002-07-05/2026-11-22/P1D</Value>
                  </Dimension>
                  <TileMatrixSetLink><TileMatrixSet>GoogleMapsCompatible_Level6</TileMatrixSet></TileMatrixSetLink>
                  <TileMatrixSetLink><TileMatrixSet>GoogleMapsCompatible_Level9</TileMatrixSet></TileMatrixSetLink>
                  <ResourceURL format="image/jpeg" resourceType="tile" template="https://gibs.example/wmts/epsg3857/best/MODIS_Terra_CorrectedReflectance_TrueColor/default/{Time}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.jpg"/>
                </Layer>
                <TileMatrixSet><ows:Identifier>GoogleMapsCompatible_Level6</ows:Identifier><ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>\(matrices(7))</TileMatrixSet>
                <TileMatrixSet><ows:Identifier>GoogleMapsCompatible_Level9</ows:Identifier><ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>\(matrices(10))</TileMatrixSet>
              </Contents>
            </Capabilities>
            """
        let caps = try WMTSCapabilities.parse(text.bytes, url: "https://gibs.example/wmts/epsg3857/best/1.0.0/WMTSCapabilities.xml")
        let source = try caps.tileSource(layer: "MODIS_Terra_CorrectedReflectance_TrueColor")
        #expect(source.tileMatrixSet == "GoogleMapsCompatible_Level9")
        #expect(source.maxZoom == 9)
        let time = try #require(source.time)
        #expect(!time.contains(try TimeInstant.parse("2002-07-04")))
        let days = try time.latest(3)
        #expect(days.map { time.format($0) } == ["2026-11-20", "2026-11-21", "2026-11-22"])
        #expect(
            source.tileURL(z: 5, x: 17, y: 10, instant: days[2])
                == "https://gibs.example/wmts/epsg3857/best/MODIS_Terra_CorrectedReflectance_TrueColor/default/2026-11-22/GoogleMapsCompatible_Level9/5/10/17.jpg"
        )
        let week = try time.inRange(
            start: TimeInstant.parse("2002-07-01"), end: TimeInstant.parse("2002-07-08"),
            step: ISODuration.parse("P1D"))
        #expect(week.map { time.format($0) } == ["2002-07-01", "2002-07-02", "2002-07-03", "2002-07-05", "2002-07-06", "2002-07-07", "2002-07-08"])
    }
}
