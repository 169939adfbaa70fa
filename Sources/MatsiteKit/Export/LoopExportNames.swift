import Foundation
import MatsiteCapabilities
import MatsiteImaging

/// The names of an export's files and pictures: a file is named for the hash of everything
/// it is made from (frames, durations, labels, legend, size, background, font, encoder
/// settings), so that an unchanged loop is linked from the previous site; a composed
/// picture is named for its composition, frame and label, so that the cache folder
/// (`LoopFrameCache`) knows the frames it has encoded.
struct LoopExportNames: Sendable {
    let animation: AnimationConfig
    let settings: ExportConfig
    /// The loop's size.
    let size: (width: Int, height: Int)
    /// The labels and legend drawn on every picture.
    let labels: LoopLabels
    let background: LoopBackground
    /// Each frame's time label, in order.
    let times: [String]

    /// The file of `format` for `frames`: `loop-<hash>.<ext>`.
    func fileName(_ format: ExportConfig.Format, frames: [LoopExporter.Frame]) -> String {
        "loop-\(fileKey(format, frames: frames).prefix(16)).\(format.ext)"
    }

    /// The hash a file of `format` is named for.
    func fileKey(_ format: ExportConfig.Format, frames: [LoopExporter.Frame]) -> String {
        var text = "\(LoopExporter.version)\n\(format.rawValue)\n" + composition
        if format == .webp { text += "quality \(settings.webpQuality)\n" }
        for (frame, label) in zip(frames, times) { text += "\(frame.key) \(frame.durationMs) \(label)\n" }
        return SHA256.hex(of: text)
    }

    /// Everything but the frame and its label that a composed picture follows from.
    var composition: String {
        var text = "\(size.width)x\(size.height)\n\(background.description)\n"
        if let legend = labels.legend {
            text += "legend \(legend.unit) " + legend.stops.map { "\($0.value) \($0.color) \($0.label ?? "")" }.joined(separator: "; ") + "\n"
        }
        return text + "opacity \(animation.opacity ?? 1)\ncredit \(labels.credit)\nfont \(LoopExportTools.fontPath()) \(Self.fontSize)\n"
    }

    /// The composed identities of `frames`' pictures, in order.
    func composedKeys(_ frames: [LoopExporter.Frame]) -> [String] {
        let composition = composition
        return zip(frames, times).map { Self.composedKey(composition: composition, frame: $0, label: $1) }
    }

    /// A composed picture's identity: the composition, the frame's bytes and its label.
    static func composedKey(composition: String, frame: LoopExporter.Frame, label: String) -> String {
        SHA256.hex(of: "\(LoopExporter.version)\n\(composition)frame \(frame.key)\nlabel \(label)\n")
    }

    /// The font file's size, recorded in the keys: a changed font file makes new exports.
    static var fontSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: LoopExportTools.fontPath()))?[.size] as? Int) ?? 0
    }

    /// The frame's time as the label shows it: in `timeZone` (an IANA name) with its
    /// abbreviation, else in UTC; `Frame N of M` for a frame without a time. A forecast
    /// step adds how far ahead it is and its run: `2026-11-21 12:30 UTC, forecast +30 min`,
    /// `2026-11-21 14:00 UTC, forecast +3 h, run 11:00 UTC`.
    static func timeLabel(for frame: LoopExporter.Frame, count: Int, timeZone: String?) -> String {
        guard let time = frame.time else { return "Frame \(frame.index + 1) of \(count)" }
        let date = time.date
        let zone = timeZone.flatMap(TimeZone.init(identifier:))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = zone == nil ? "yyyy-MM-dd HH:mm 'UTC'" : "yyyy-MM-dd HH:mm zzz"
        var label = formatter.string(from: date)
        guard let from = frame.forecastFrom else { return label }
        label += ", forecast " + lead(from: from, to: time)
        if let runDate = frame.run?.date {
            // The run's date only when it is not the step's.
            let day = DateFormatter()
            day.locale = formatter.locale
            day.timeZone = formatter.timeZone
            day.dateFormat = "yyyy-MM-dd"
            formatter.dateFormat = (day.string(from: runDate) == day.string(from: date) ? "" : "yyyy-MM-dd ") + (zone == nil ? "HH:mm 'UTC'" : "HH:mm zzz")
            label += ", run " + formatter.string(from: runDate)
        }
        return label
    }

    /// How far `time` is after `from`, as a forecast label says it: `+30 min`, `+3 h`,
    /// `+1 h 30 min` (`-10 min` for a step before it, which a layered timeline can have).
    static func lead(from: TimeInstant, to time: TimeInstant) -> String {
        let minutes = (time.millisecondsSinceEpoch - from.millisecondsSinceEpoch) / 60_000
        let sign = minutes < 0 ? "-" : "+"
        let (hours, rest) = (abs(minutes) / 60, abs(minutes) % 60)
        switch (hours, rest) {
        case (0, _): return "\(sign)\(rest) min"
        case (_, 0): return "\(sign)\(hours) h"
        default: return "\(sign)\(hours) h \(rest) min"
        }
    }

    /// The exported loop's size: `width` (or the frame's) with the frame's aspect ratio,
    /// both edges even for H.264's 4:2:0 chroma.
    static func size(of layout: FrameLayout, width: Int?) -> (width: Int, height: Int) {
        // The frame's own width, or one less: the frame is cut to even edges, not scaled.
        guard let width, width & ~1 != layout.width & ~1 else { return (max(2, layout.width & ~1), max(2, layout.height & ~1)) }
        let height = Int((Double(width) * Double(layout.height) / Double(layout.width)).rounded())
        return (max(2, width & ~1), max(2, height & ~1))
    }

    /// Attribution as plain text: its links' labels kept, the tags dropped.
    static func plainText(_ attribution: String) -> String {
        attribution.replacing(/<a\s[^>]*>/.ignoresCase(), with: "").replacing(/<\/a>/.ignoresCase(), with: "")
    }
}
