import Foundation
import MatsiteCapabilities
import MatsiteSupport
import Testing

@testable import MatsiteKit

/// A WMS 1.3.0 server on 127.0.0.1 in the style of MSC GeoMet's model layers: its
/// capabilities advertise `reference_time` (the runs out so far, the newest the default)
/// beside `time` (the default run's valid times out so far). A run starts every hour; lead
/// `L` (0 to 6 hours) of run `R` comes out at `R + 50 min + 5 min × L`, as the test's
/// simulated clock (`--at`) passes it. A GetMap must name its run (`DIM_REFERENCE_TIME`,
/// else HTTP 400); a run or a valid time not out yet gets the exception GeoMet sends
/// (`InvalidDimensionValue`). Tiles say their valid time in red and their run in blue.
final class ModelRunWMS: Sendable {
    let server: TestServer
    private let clock = LockedBox(TimeInstant(millisecondsSinceEpoch: 0))
    /// When set, the capabilities list the valid times (0, 1 and 3 hours after the run) with
    /// no period: a window over them must say its step.
    let irregular = LockedBox(false)
    static let hour: Int64 = 3_600_000

    init(_ server: TestServer) {
        self.server = server
        let base = server.baseURL
        server.route(
            "/wms",
            .dynamic { [self] request in
                let query = OGCSourcesTests.query(request.query ?? "")
                if query["REQUEST"] == "GetCapabilities" {
                    return .ok(Array(self.capabilities(base: base).utf8), contentType: "text/xml", cacheControl: "no-cache")
                }
                guard query["REQUEST"] == "GetMap", query["CRS"] == "EPSG:3857", let timeText = query["TIME"],
                    let runText = query["DIM_REFERENCE_TIME"], let time = try? TimeInstant.parse(timeText),
                    let run = try? TimeInstant.parse(runText)
                else { return .status(400) }
                guard self.isOut(run: run, valid: time) else {
                    let report = """
                        <?xml version="1.0" encoding="UTF-8"?>
                        <ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc">
                          <ServiceException code="InvalidDimensionValue">TIME=\(timeText) is not a valid time of reference_time \(runText)</ServiceException>
                        </ServiceExceptionReport>
                        """
                    return .ok(Array(report.utf8), contentType: "text/xml", cacheControl: "no-cache")
                }
                return .ok(ForecastFeed.png(red: FeedServer.red(for: time), green: 200, blue: ForecastFeed.blue(run: run)), contentType: "image/png")
            })
    }

    /// The same model over WMTS (RESTful): `/wmts/tiles/<run>/<time>/<z>/<col>/<row>.png`,
    /// 404 for a frame not out yet.
    func routeWMTS() {
        let base = server.baseURL
        server.route(
            "/wmts/caps.xml",
            .dynamic { [self] _ in .ok(Array(self.wmtsCapabilities(base: base).utf8), contentType: "application/xml", cacheControl: "no-cache") })
        server.route(
            prefix: "/wmts/tiles/",
            .dynamic { [self] request in
                let parts = request.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
                guard parts.count == 7, let run = try? TimeInstant.parse(parts[2]), let time = try? TimeInstant.parse(parts[3]) else { return .status(400) }
                guard self.isOut(run: run, valid: time) else { return .status(404) }
                return .ok(ForecastFeed.png(red: FeedServer.red(for: time), green: 200, blue: ForecastFeed.blue(run: run)), contentType: "image/png")
            })
    }

    func wmtsCapabilities(base: String) -> String {
        let runs = self.runs
        let newest = runs[runs.count - 1]
        let leads = (0...6).filter { isOut(run: newest, valid: newest.adding(ISODuration(milliseconds: Self.hour), times: Int64($0))) }
        let last = newest.adding(ISODuration(milliseconds: Self.hour), times: Int64(leads.last ?? 0))
        let matrices = (0...5).map { z in
            """
            <TileMatrix><ows:Identifier>\(z)</ows:Identifier><ScaleDenominator>\(559_082_264.0287178 / Double(1 << z))</ScaleDenominator>
              <TopLeftCorner>-20037508.3427892 20037508.3427892</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight>
              <MatrixWidth>\(1 << z)</MatrixWidth><MatrixHeight>\(1 << z)</MatrixHeight></TileMatrix>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0">
              <Contents>
                <Layer><ows:Identifier>MODEL.PR</ows:Identifier>
                  <Style isDefault="true"><ows:Identifier>default</ows:Identifier></Style><Format>image/png</Format>
                  <Dimension><ows:Identifier>time</ows:Identifier><Default>\(newest.iso8601)</Default><Value>\(newest.iso8601)/\(last.iso8601)/PT1H</Value></Dimension>
                  <Dimension><ows:Identifier>reference_time</ows:Identifier><Default>\(newest.iso8601)</Default><Value>\(runs.map(\.iso8601).joined(separator: ","))</Value></Dimension>
                  <TileMatrixSetLink><TileMatrixSet>GoogleMapsCompatible</TileMatrixSet></TileMatrixSetLink>
                  <ResourceURL format="image/png" resourceType="tile" template="\(base)/wmts/tiles/{reference_time}/{Time}/{TileMatrix}/{TileCol}/{TileRow}.png"/>
                </Layer>
                <TileMatrixSet><ows:Identifier>GoogleMapsCompatible</ows:Identifier><ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>
                  \(matrices.joined(separator: "\n"))
                </TileMatrixSet>
              </Contents>
            </Capabilities>
            """
    }

    func set(_ iso: String) {
        let instant = (try? TimeInstant.parse(iso)) ?? TimeInstant(millisecondsSinceEpoch: 0)
        clock.withLock { $0 = instant }
    }

    var now: TimeInstant { clock.withLock { $0 } }

    /// When lead `lead` of `run` comes out.
    static func arrival(run: TimeInstant, lead: Int64) -> TimeInstant {
        TimeInstant(millisecondsSinceEpoch: run.millisecondsSinceEpoch + (50 + 5 * lead) * 60_000)
    }

    func isOut(run: TimeInstant, valid: TimeInstant) -> Bool {
        let offset = valid.millisecondsSinceEpoch - run.millisecondsSinceEpoch
        guard offset >= 0, offset % Self.hour == 0, offset / Self.hour <= 6 else { return false }
        return Self.arrival(run: run, lead: offset / Self.hour) <= now
    }

    /// The runs whose first lead is out, oldest first (the last four).
    var runs: [TimeInstant] {
        let newest = TimeInstant(millisecondsSinceEpoch: now.millisecondsSinceEpoch - 50 * 60_000).floored(toMultipleOf: ISODuration(milliseconds: Self.hour))
        return (0..<4).reversed().map { newest.adding(ISODuration(milliseconds: Self.hour), times: -Int64($0)) }
    }

    func capabilities(base: String) -> String {
        let runs = self.runs
        let newest = runs[runs.count - 1]
        let leads = (0...6).filter { isOut(run: newest, valid: newest.adding(ISODuration(milliseconds: Self.hour), times: Int64($0))) }
        let last = newest.adding(ISODuration(milliseconds: Self.hour), times: Int64(leads.last ?? 0))
        let times =
            irregular.withLock { $0 }
            ? [0, 1, 3].map { newest.adding(ISODuration(milliseconds: Self.hour), times: $0).iso8601 }.joined(separator: ",")
            : "\(newest.iso8601)/\(last.iso8601)/PT1H"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <WMS_Capabilities version="1.3.0" xmlns="http://www.opengis.net/wms" xmlns:xlink="http://www.w3.org/1999/xlink">
              <Service><Name>WMS</Name><Title>Model runs</Title></Service>
              <Capability>
                <Request>
                  <GetMap><Format>image/png</Format><DCPType><HTTP><Get>
                    <OnlineResource xlink:type="simple" xlink:href="\(base)/wms?"/></Get></HTTP></DCPType></GetMap>
                </Request>
                <Layer><Title>Model</Title><CRS>EPSG:3857</CRS>
                  <Layer queryable="1"><Name>MODEL.PR</Name><Title>Precipitation</Title>
                    <Dimension name="time" units="ISO8601" default="\(newest.iso8601)" nearestValue="0">\(times)</Dimension>
                    <Dimension name="reference_time" units="ISO8601" default="\(newest.iso8601)" nearestValue="0">\(runs.map(\.iso8601).joined(separator: ","))</Dimension>
                  </Layer>
                </Layer>
              </Capability>
            </WMS_Capabilities>
            """
    }

    /// Builds as cron would at `at`, the server's clock set to the same time.
    @discardableResult
    func build(_ site: TestSite, _ yaml: String, at: String, reporter: any BuildReporter = SilentReporter()) async throws -> BuildSummary {
        set(at)
        return try await ForecastFeed.build(site, yaml, at: at, reporter: reporter)
    }

    func yaml(_ site: TestSite, frames: String = "{ last: PT1H, next: PT3H }") -> String {
        site.yaml(
            ForecastFeed.animation(source: "{ wms: { url: \"\(server.baseURL)/wms\", layers: MODEL.PR, version: 1.3.0 } }", frames: frames))
    }
}

@Suite("Forecast: WMS model runs (reference_time)")
struct ModelRunWMSTests {
    @Test(
        "a WMS layer advertising reference_time: every GetMap names its run, an incomplete run is never published, a complete one replaces the previous in one build"
    )
    func runsArrive() async throws {
        try await withTestServer { server in
            let wms = ModelRunWMS(server)
            let site = try TestSite()
            defer { site.remove() }
            let yaml = wms.yaml(site)

            // 11:55: run 11:00 is out to +1 h (its 14:00 comes at 12:05): run 10:00 it is.
            let reporter = RecordingReporter()
            try await wms.build(site, yaml, at: "2026-11-21T11:55:00Z", reporter: reporter)
            #expect(try ModelRunTests.published(site) == ["10:00 run 10:00", "11:00 run 10:00", "12:00 run 10:00", "13:00 run 10:00", "14:00 run 10:00"])
            let warning = try #require(reporter.warnings.first { $0.contains("run 2026-11-21T11:00:00Z") })
            #expect(warning.contains("lacks its frame for 2026-11-21T14:00:00Z") && warning.contains("DIM_REFERENCE_TIME=2026-11-21T11:00:00Z"), "\(warning)")
            let getMaps = server.allRequests.filter { ($0.query ?? "").contains("REQUEST=GetMap") }
            #expect(!getMaps.isEmpty && getMaps.allSatisfy { ($0.query ?? "").contains("&DIM_REFERENCE_TIME=2026-11-21T1") })
            #expect(!getMaps.contains { ($0.query ?? "").contains("DIM_REFERENCE_TIME=2026-11-21T09") }, "the newest run complete ends the look")

            // check names the runs it found and the run a build would publish.
            wms.set("2026-11-21T11:55:00Z")
            let lines = LockedBox<[Checker.Line]>([])
            _ = await Checker(config: try site.config(yaml), at: try TimeInstant.parse("2026-11-21T11:55:00Z")).run { line in
                lines.withLock { $0.append(line) }
            }
            let said = lines.withLock { $0 }
            #expect(
                said.contains {
                    if case .fact(let text) = $0 {
                        text.contains(
                            "model runs (reference_time): 2026-11-21T08:00:00Z to 2026-11-21T11:00:00Z, 4 times every PT1H, default 2026-11-21T11:00:00Z; newest first: 2026-11-21T11:00:00Z, 2026-11-21T10:00:00Z, 2026-11-21T09:00:00Z"
                        )
                    } else {
                        false
                    }
                }, "\(said)")
            let runs = said.compactMap { if case .runs(let report) = $0 { report } else { nil } }
            #expect(runs.map(\.used.manifestText) == ["2026-11-21T10:00:00Z"] && runs.first?.newest.manifestText == "2026-11-21T11:00:00Z")

            // 12:06: the window is 11:00..15:00; run 11:00's 15:00 comes at 12:10.
            try await wms.build(site, yaml, at: "2026-11-21T12:06:00Z")
            #expect(try ModelRunTests.published(site) == ["11:00 run 10:00", "12:00 run 10:00", "13:00 run 10:00", "14:00 run 10:00", "15:00 run 10:00"])

            // 12:11: run 11:00 is whole: all its frames in one build, run 10:00's files gone.
            try await wms.build(site, yaml, at: "2026-11-21T12:11:00Z")
            #expect(try ModelRunTests.published(site) == ["11:00 run 11:00", "12:00 run 11:00", "13:00 run 11:00", "14:00 run 11:00", "15:00 run 11:00"])
            #expect(try ModelRunTests.frameFiles(site) == Set(try site.frames("radar").compactMap { $0["url"] as? String }))
            #expect(try site.manifest("radar")["now"] as? String == "2026-11-21T12:11:00Z")
        }
    }

    @Test("a WMTS layer advertising reference_time: the run goes into its placeholder, and a run still arriving (404) is passed over")
    func wmtsRuns() async throws {
        try await withTestServer { server in
            let wms = ModelRunWMS(server)
            wms.routeWMTS()
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                ForecastFeed.animation(
                    source: "{ wmts: { capabilities: \"\(server.baseURL)/wmts/caps.xml\", layer: MODEL.PR } }", frames: "{ last: PT1H, next: PT3H }"))
            try await wms.build(site, yaml, at: "2026-11-21T11:55:00Z")
            #expect(try ModelRunTests.published(site) == ["10:00 run 10:00", "11:00 run 10:00", "12:00 run 10:00", "13:00 run 10:00", "14:00 run 10:00"])
            #expect(server.requestCount(prefix: "/wmts/tiles/2026-11-21T11:00:00Z/2026-11-21T14:00:00Z/") > 0, "the newest run was asked first")
            try await wms.build(site, yaml, at: "2026-11-21T12:11:00Z")
            #expect(try ModelRunTests.published(site) == ["11:00 run 11:00", "12:00 run 11:00", "13:00 run 11:00", "14:00 run 11:00", "15:00 run 11:00"])
        }
    }

    @Test("a WMS layer without runs: with next:, its advertised times after now are forecast frames after the observed ones")
    func advertisedFuture() async throws {
        try await withTestServer { server in
            // Advertised: 10:00 to 11:00 every 10 minutes; the build's now is 10:35.
            server.route(
                "/wms",
                .dynamic { request in
                    let query = OGCSourcesTests.query(request.query ?? "")
                    if query["REQUEST"] == "GetCapabilities" {
                        return .ok(Array(OGCSourcesTests.wmsCapabilities(base: server.baseURL).utf8), contentType: "text/xml")
                    }
                    guard query["REQUEST"] == "GetMap", query["DIM_REFERENCE_TIME"] == nil, let time = query["TIME"] else { return .status(400) }
                    return .ok(OGCSourcesTests.tile(minutes: OGCSourcesTests.minutesAfterTen(time)), contentType: "image/png")
                })
            let site = try TestSite()
            defer { site.remove() }
            let yaml = site.yaml(
                ForecastFeed.animation(
                    source: "{ wms: { url: \"\(server.baseURL)/wms\", layers: precip, version: 1.3.0 } }", frames: "{ last: PT30M, next: PT20M }"))
            var options = BuildOptions()
            options.lockWait = TestSite.lockWait
            options.at = TimeFormat.instant("2026-11-21T10:35:00Z")
            _ = try await Builder(config: site.config(yaml), options: options, reporter: SilentReporter()).run()
            let frames = try site.frames("radar")
            let listed = frames.map { "\(($0["time"] as? String ?? "").dropFirst(11).prefix(5)) \($0["kind"] as? String ?? "observed")" }
            #expect(listed == ["10:00 observed", "10:10 observed", "10:20 observed", "10:30 observed", "10:40 forecast", "10:50 forecast"])
            #expect(frames.allSatisfy { $0["run"] == nil })
            for (index, frame) in frames.enumerated() {
                let minutes = OGCSourcesTests.minutesAfterTen(frame["time"] as? String ?? "")
                #expect(try site.frameRGBA("radar", index: index).pixels[0] == UInt8(minutes), "each frame drawn from its own time")
            }
        }
    }

    @Test("a live window over a layer with runs must reach past now: frames.latest and last: without next: are config errors naming the fix")
    func badCombinations() async throws {
        try await withTestServer { server in
            let wms = ModelRunWMS(server)
            let site = try TestSite()
            defer { site.remove() }
            for frames in ["{ latest: 3 }", "{ last: PT2H }"] {
                do {
                    try await wms.build(site, wms.yaml(site, frames: frames), at: "2026-11-21T11:55:00Z")
                    Issue.record("frames \(frames) over a layer with runs built")
                } catch let error as ConfigError {
                    #expect(error.keyPath == "animations[0].frames" && error.line != nil, "\(error)")
                    #expect(error.message.contains("advertises model runs (reference_time") && error.message.contains("next:"), "\(error.message)")
                }
            }
            // Valid times listed without a period: the window must say their spacing.
            wms.irregular.withLock { $0 = true }
            do {
                try await wms.build(site, wms.yaml(site, frames: "{ last: PT1H, next: PT6H }"), at: "2026-11-21T11:55:00Z")
                Issue.record("a window without step over irregular valid times built")
            } catch let error as ConfigError {
                #expect(error.keyPath == "animations[0].frames.step" && error.line != nil, "\(error)")
                #expect(error.message.contains("at irregular times") && error.message.contains("step: PT1H"), "\(error.message)")
            }
        }
    }
}
