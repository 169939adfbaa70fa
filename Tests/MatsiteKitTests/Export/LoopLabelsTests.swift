import Foundation
import MatsiteImaging
import Testing

@testable import MatsiteKit

/// The labels burned into exported pictures (`LoopLabels`), drawn in the real label font:
/// the time's band at the top left, the legend's at the top right (below the time when the
/// picture is too narrow for both), the credit's at the bottom right.
@Suite("LoopLabels")
struct LoopLabelsTests {
    static let white = RGB(255, 255, 255)
    /// White under a black band at 160/255.
    static let shaded = RGB(95, 95, 95)
    static let legend = LegendConfig(unit: "dBZ", stops: [.init(value: 5, color: "#04e9e7"), .init(value: 65, color: "#f800fdcc", label: "hail")])

    static func drawn(width: Int, height: Int, labels: LoopLabels) throws -> LoopCanvas {
        var canvas = LoopCanvas(width: width, height: height, color: white)
        try labels.draw(on: &canvas, time: "2026-11-21 10:00 UTC", font: LabelFont(path: LoopExportTools.fontPath()))
        return canvas
    }

    /// The rows in which `color` appears.
    static func rows(of color: RGB, in canvas: LoopCanvas) -> Set<Int> {
        Set((0..<canvas.height).filter { y in (0..<canvas.width).contains { canvas.pixel(x: $0, y: y) == color } })
    }

    @Test("the time and the credit sit on dark bands at the top left and bottom right; the middle is untouched")
    func timeAndCredit() throws {
        let canvas = try Self.drawn(width: 400, height: 300, labels: LoopLabels(legend: nil, credit: "Radar: test"))
        #expect(canvas.pixel(x: 0, y: 0) == Self.shaded)
        #expect(canvas.pixel(x: 399, y: 299) == Self.shaded)
        #expect(canvas.pixel(x: 399, y: 0) == Self.white, "no legend, no band at the top right")
        #expect(canvas.pixel(x: 0, y: 299) == Self.white)
        #expect(canvas.pixel(x: 200, y: 150) == Self.white)
        // The text itself is white on the band.
        let band = (0..<40).flatMap { x in (0..<12).map { canvas.pixel(x: x, y: $0) } }
        #expect(band.contains(Self.white) && band.contains(Self.shaded))
    }

    @Test("a forecast step's label is drawn whole on its band, wider than the time alone")
    func forecastLabel() throws {
        let font = try LabelFont(path: LoopExportTools.fontPath())
        let labels = LoopLabels(legend: nil, credit: "")
        var observed = LoopCanvas(width: 600, height: 300, color: Self.white)
        var forecast = observed
        try labels.draw(on: &observed, time: "2026-11-21 10:00 UTC", font: font)
        try labels.draw(on: &forecast, time: "2026-11-21 13:00 UTC, forecast +3 h, run 10:00 UTC", font: font)
        func bandWidth(_ canvas: LoopCanvas) -> Int { (0..<canvas.width).first { canvas.pixel(x: $0, y: 0) != Self.shaded } ?? canvas.width }
        #expect(bandWidth(forecast) > bandWidth(observed) * 2, "\(bandWidth(forecast)) vs \(bandWidth(observed))")
        #expect(bandWidth(forecast) < 600)
    }

    @Test("without a credit there is no band at the bottom right")
    func noCredit() throws {
        let canvas = try Self.drawn(width: 400, height: 300, labels: LoopLabels(legend: nil, credit: ""))
        #expect(canvas.pixel(x: 399, y: 299) == Self.white)
    }

    @Test("the legend's swatches sit at the top right, beside the time, each in its stop's colour without alpha")
    func legendBesideTheTime() throws {
        let canvas = try Self.drawn(width: 600, height: 300, labels: LoopLabels(legend: Self.legend, credit: ""))
        #expect(canvas.pixel(x: 599, y: 0) == Self.shaded)
        let cyan = Self.rows(of: RGB(0x04, 0xe9, 0xe7), in: canvas), magenta = Self.rows(of: RGB(0xf8, 0x00, 0xfd), in: canvas)
        #expect(!cyan.isEmpty && cyan == magenta)
        #expect(cyan.min().map { $0 < 12 } == true, "\(cyan)")
    }

    @Test("a picture too narrow for both puts the legend on a second row, below the time's band")
    func legendBelowTheTime() throws {
        let wide = try Self.drawn(width: 600, height: 300, labels: LoopLabels(legend: Self.legend, credit: ""))
        let narrow = try Self.drawn(width: 180, height: 300, labels: LoopLabels(legend: Self.legend, credit: ""))
        let timeBand = (0..<300).first { narrow.pixel(x: 0, y: $0) != Self.shaded } ?? 0
        let cyan = Self.rows(of: RGB(0x04, 0xe9, 0xe7), in: narrow)
        #expect(timeBand > 0 && cyan.min().map { $0 >= timeBand } == true, "band \(timeBand), swatch rows \(cyan)")
        #expect(cyan.count == Self.rows(of: RGB(0x04, 0xe9, 0xe7), in: wide).count, "the same swatch, lower")
    }

    @Test("a stop's value is written without a decimal point when whole")
    func numbers() {
        #expect(LoopLabels.number(5) == "5")
        #expect(LoopLabels.number(-10) == "-10")
        #expect(LoopLabels.number(35.5) == "35.5")
        #expect(LoopLabels.number(0.25) == "0.25")
    }
}
