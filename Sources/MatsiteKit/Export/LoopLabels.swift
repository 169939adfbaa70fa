import Foundation
import MatsiteImaging

/// The labels burned into every exported picture, each on a dark band so that it reads on
/// any map: the frame's time at the top left, the legend's stops at the top right (on a
/// second row when they would cover the time), the attribution at the bottom right.
struct LoopLabels: Sendable {
    /// The legend drawn, if any.
    let legend: LegendConfig?
    /// The attribution as plain text (`LoopExportNames.plainText`); empty draws none.
    let credit: String

    static let white = RGB(255, 255, 255)
    static let dark = RGB(0, 0, 0)
    /// The bands' opacity, of 255.
    static let bandAlpha = 160

    /// Draws the time, the legend and the credit on `canvas` in `font`.
    func draw(on canvas: inout LoopCanvas, time: String, font: LabelFont) throws {
        let px = max(11, min(40, canvas.height / 28))
        let pad = max(3, px / 3)
        let t = try font.measure(time, px: px)
        let band = (width: t.width + 2 * pad, height: t.ascent + t.descent + 2 * pad)
        canvas.shade(x: 0, y: 0, width: band.width, height: band.height, color: Self.dark, alpha: Self.bandAlpha)
        try canvas.text(time, font: font, px: px, x: pad, baseline: pad + t.ascent, color: Self.white)
        let small = max(10, px * 3 / 4)
        if let legend {
            try Self.drawLegend(legend, on: &canvas, font: font, px: small, pad: pad, below: band)
        }
        guard !credit.isEmpty else { return }
        let c = try font.measure(credit, px: small)
        let bandWidth = min(canvas.width, c.width + 2 * pad)
        let bandHeight = c.ascent + c.descent + 2 * pad
        canvas.shade(
            x: canvas.width - bandWidth, y: canvas.height - bandHeight, width: bandWidth, height: bandHeight, color: Self.dark,
            alpha: Self.bandAlpha)
        try canvas.text(
            credit, font: font, px: small, x: canvas.width - bandWidth + pad, baseline: canvas.height - pad - c.descent, color: Self.white)
    }

    /// The legend's stops at the top right: a swatch of each colour with its label (or
    /// value), then the unit; on a second row when it would cover the time's band.
    static func drawLegend(
        _ legend: LegendConfig, on canvas: inout LoopCanvas, font: LabelFont, px: Int, pad: Int, below time: (width: Int, height: Int)
    ) throws {
        let items = legend.stops.map { stop in
            (color: RGB(hex: String(stop.color.prefix(7))) ?? RGB(hex: stop.color) ?? RGB(0, 0, 0), text: stop.label ?? number(stop.value))
        }
        let metrics = try font.measure("0", px: px)
        let swatch = metrics.ascent
        let widths = try items.map { try font.measure($0.text, px: px).width }
        let unit = legend.unit.isEmpty ? 0 : try font.measure(legend.unit, px: px).width + pad
        let width = pad + widths.reduce(0) { $0 + swatch + pad / 2 + $1 + pad } + unit
        let height = metrics.ascent + metrics.descent + 2 * pad
        let x0 = max(0, canvas.width - width)
        let y0 = x0 < time.width ? time.height : 0
        canvas.shade(x: x0, y: y0, width: width, height: height, color: dark, alpha: bandAlpha)
        let baseline = y0 + pad + metrics.ascent
        var x = x0 + pad
        for (item, w) in zip(items, widths) {
            canvas.shade(x: x, y: baseline - swatch, width: swatch, height: swatch, color: item.color, alpha: 255)
            x += swatch + pad / 2
            try canvas.text(item.text, font: font, px: px, x: x, baseline: baseline, color: white)
            x += w + pad
        }
        if unit > 0 { try canvas.text(legend.unit, font: font, px: px, x: x, baseline: baseline, color: white) }
    }

    /// A stop's value as the legend writes it: whole numbers without a decimal point.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%g", value)
    }
}
