import Foundation
import MatsiteCapabilities

/// `--at TIME`: the time a build or check takes as now. Strict, because a time silently
/// read as another (a dropped time of day) builds the wrong window: a full ISO 8601 date
/// and time, with or without seconds (and a fraction), `T` or a space between, and `Z`, an
/// offset, or no zone (then UTC, and the command says so).
public struct AtTime: Sendable, Equatable {
    /// The instant.
    public let instant: TimeInstant
    /// The text as given.
    public let text: String
    /// False when the text named no zone and was taken as UTC.
    public let zoneGiven: Bool

    /// The accepted forms, for the usage error.
    public static let acceptedForms =
        "2026-11-25T12:13:00Z, 2026-11-25T12:13Z, 2026-11-25T12:13:00+01:00, 2026-11-25T12:13:00.5Z, 2026-11-25 12:13 (no zone: UTC)"

    /// Parses `text`; nil when it is not one of the accepted forms or names no real time.
    public init?(_ text: String) {
        let shape = #/(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}([.,]\d+)?)?(?<zone>[Zz]|[+-]\d{2}(:?\d{2})?)?/#
        guard let match = text.wholeMatch(of: shape), let instant = try? TimeInstant.parse(text) else { return nil }
        self.instant = instant
        self.text = text
        zoneGiven = match.output.zone != nil
    }

    /// What the command says when the text named no zone.
    public var utcNote: String? {
        zoneGiven ? nil : "--at \(text) names no zone: taken as UTC (\(TimeFormat.iso(instant)))"
    }
}
