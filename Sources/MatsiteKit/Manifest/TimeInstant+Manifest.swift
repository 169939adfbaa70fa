import MatsiteCapabilities

extension TimeInstant {
    /// The manifest's form of a time, `2026-11-21T10:00:00Z`: UTC, whole seconds (a
    /// fraction is dropped). Times are values everywhere else; they become text here.
    var manifestText: String {
        let ms = millisecondsSinceEpoch
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        return TimeInstant(millisecondsSinceEpoch: seconds * 1000).iso8601
    }
}
