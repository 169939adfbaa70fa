import MatsiteCapabilities

extension TimeInstant {
    /// The instant to the whole second (a fraction dropped): manifests give times to the
    /// second, `2026-11-21T10:00:00Z`.
    var wholeSeconds: TimeInstant {
        let ms = millisecondsSinceEpoch
        return TimeInstant(millisecondsSinceEpoch: (ms >= 0 ? ms / 1000 : (ms - 999) / 1000) * 1000)
    }

    /// The time as manifests and messages write it, `2026-11-21T10:00:00Z` (UTC, whole
    /// seconds). Times are values everywhere else; they become text only here and in the
    /// manifests' JSON.
    var manifestText: String {
        wholeSeconds.iso8601
    }
}
