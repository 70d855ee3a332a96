// A route's query string, checked against the parameters the route takes: an unknown one, one
// given twice, or a value that is not what the parameter takes is refused (400) naming it —
// never ignored. `at` and `environment` mean one thing on every route that takes them (SPEC
// section 6 rev. 4): the instant the answer is evaluated at, in `--at`'s forms, and the
// transactions counted, in `check --environment`'s words.

import SubsHTTP
import SubsModel

struct QueryParameters {
    /// Each parameter given, with its value (a few at most: looked up by a scan).
    private var values: [(name: String, value: String)] = []

    struct Refusal: Error {
        var message: String
    }

    /// `allowed`: the names the route takes; `route`: how a refusal names the route.
    static func parse(_ query: String?, allowed: [String], route: String) -> Result<QueryParameters, Refusal> {
        var parsed = QueryParameters()
        guard let query, !query.isEmpty else { return .success(parsed) }
        for parameter in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = HTTPRequest.percentDecode(parts[0]),
                  let value = parts.count == 2 ? HTTPRequest.percentDecode(parts[1]) : "" else {
                return .failure(Refusal(message: "the query string is not valid percent-encoded UTF-8"))
            }
            guard allowed.contains(name) else {
                return .failure(Refusal(message: unknown(name, allowed: allowed, route: route)))
            }
            guard parsed.text(name) == nil else { return .failure(Refusal(message: "\(name): give it once")) }
            parsed.values.append((name, value))
        }
        return .success(parsed)
    }

    /// Why a parameter is refused on a route that does not take it: `at` and `environment` say
    /// why the route cannot use them, so that nobody reads an answer as evaluated where it was not.
    static func unknown(_ name: String, allowed: [String], route: String) -> String {
        let takes = allowed.isEmpty ? "this route takes no query parameters" : "this route takes \(allowed.joined(separator: ", "))"
        switch name {
        case "at":
            return "at: \(route) cannot answer at another instant (\(takes)); the entitlements, history and renew-count routes take at"
        case "environment":
            return "environment: \(route) does not count transactions by environment (\(takes)); the entitlements route takes environment"
        default:
            return "unknown query parameter '\(name)' (\(takes))"
        }
    }

    func text(_ name: String) -> String? { values.first { $0.name == name }?.value }

    /// A DATE in the forms `--at` takes (`now` is the server's clock).
    func instant(_ name: String, now: Instant) -> Result<Instant?, Refusal> {
        guard let text = text(name) else { return .success(nil) }
        return Self.instant(text, name: name, now: now).map { $0 }
    }

    static func instant(_ text: String, name: String, now: Instant) -> Result<Instant, Refusal> {
        // A `+` stays a plus in a query (an offset is `+02:00`), but where the day meets the
        // time it can only be the space of `2026-03-01 12:00Z` as a form encodes it.
        var text = text
        var bytes = Array(text.utf8)
        if bytes.count > 10, bytes[10] == UInt8(ascii: "+") {
            bytes[10] = UInt8(ascii: " ")
            text = String(decoding: bytes, as: UTF8.self)
        }
        guard let instant = ISODate.parseInput(text, now: now) else {
            return .failure(Refusal(message: "\(name): '\(text)' is not a date: give 2026-03-01T12:00:00Z (fractional seconds "
                                    + "and +hh:mm offsets too), 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 or now, "
                                    + "in years 0001-9999"))
        }
        return .success(instant)
    }

    func environment() -> Result<EnvironmentFilter, Refusal> {
        guard let text = text("environment") else { return .success(.any) }
        guard let filter = EnvironmentFilter(rawValue: text) else {
            let words = EnvironmentFilter.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(Refusal(message: "environment: '\(text)' is not one of \(words)"))
        }
        return .success(filter)
    }

    /// An id parameter (`entitlement`): its bytes, never empty.
    func id(_ name: String) -> Result<ID?, Refusal> {
        guard let text = text(name) else { return .success(nil) }
        guard !text.isEmpty else { return .failure(Refusal(message: "\(name): must not be empty")) }
        return .success(ID(text))
    }
}
