// Parsing and printing of ISO 8601 date-times, without Foundation's formatters.
// STUB — to be implemented (rules/time helper).

// Contract:
//   ISODate.parse(_ text: String) -> Instant?
//       Accepts "2026-03-01T12:00:00Z", fractional seconds ("…:00.123Z", any number of digits,
//       kept to the nanosecond), an offset "+hh:mm"/"-hh:mm" instead of Z. Rejects anything else
//       (no lowercase t/z? accept only 'T' and 'Z'), invalid calendar dates (2026-02-30), hour 24.
//   ISODate.parseInput(_ text: String, now: Instant) -> Instant?
//       Command-line DATE: the above, or "2026-03-01" (midnight UTC), or "now".
//   ISODate.format(_ i: Instant) -> String            "2026-03-01T12:00:00Z" (UTC, whole seconds, truncated)
//   ISODate.formatShort(_ i: Instant) -> String       "2026-03-01 12:00Z" (tables)
//   ISODate.formatDay(_ i: Instant) -> String         "2026-03-01" (sentences)
//   ISODate.relative(_ i: Instant, now: Instant) -> String   "in 9d", "3d ago", "in 5h", "2m ago", "now"

public enum ISODate {
    public static func parse(_ text: String) -> Instant? { fatalError("stub") }
    public static func parseInput(_ text: String, now: Instant) -> Instant? { fatalError("stub") }
    public static func format(_ i: Instant) -> String { fatalError("stub") }
    public static func formatShort(_ i: Instant) -> String { fatalError("stub") }
    public static func formatDay(_ i: Instant) -> String { fatalError("stub") }
    public static func relative(_ i: Instant, now: Instant) -> String { fatalError("stub") }
}
