// Validation of one option value or argument by its kind. The same check serves flags (exit 64),
// environment variables and the config file (exit 78); only the wording around it differs.

import SubsModel
import SubsRemote

struct ValueProblem: Error, Equatable {
    /// What is wrong, without saying where: "'xml' is not one of table, json, jsonl, tsv".
    var reason: String
    var suggestion: String?
}

enum ValueCheck {
    static let dateForms = "use 2026-03-01T12:00:00Z, 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 or now"
    static let durationForms = "use ISO 8601: P7D, P2W, P3M, P1Y, PT12H"

    /// The typed value of `text` as `kind`; throws a ValueProblem when it is not acceptable.
    /// Paths are taken as given (`~` is expanded by whoever knows the environment).
    @discardableResult
    static func value(_ text: String, kind: ValueKind, now: Instant) throws -> OptionValue {
        let shown = Terminal.quoted(text)
        switch kind {
        case .text:
            return .text(text)
        case .file, .customer, .entitlement, .command, .nonEmptyText:
            if text.isEmpty { throw ValueProblem(reason: "must not be empty") }
            return .text(text)
        case .url:
            if text.isEmpty { throw ValueProblem(reason: "must not be empty") }
            // A remote base URL is checked where it is given: as a flag 64, elsewhere 78.
            do {
                _ = try RemoteURL(text)
            } catch {
                // Reasons are printed as they are: whatever the URL held is escaped here.
                throw ValueProblem(reason: Terminal.escape("\(error)"))
            }
            return .text(text)
        case .date:
            return .instant(try date(text, now: now))
        case .duration:
            return .duration(try duration(text))
        case .count:
            guard text.allSatisfy(\.isASCIIDigit), let n = Int(text) else {
                throw ValueProblem(reason: "\(shown) is not a non-negative integer")
            }
            return .count(n)
        case .seconds:
            guard let seconds = seconds(text) else {
                throw ValueProblem(reason: "\(shown) is not a positive number of seconds")
            }
            return .seconds(seconds)
        case .bytes:
            guard let bytes = bytes(text) else {
                throw ValueProblem(reason: "\(shown) is not a size in bytes (e.g. 134217728, 128M, 64K, 1G or 0)")
            }
            return .count(bytes)
        case .choice(let words):
            guard words.contains(text) else {
                throw ValueProblem(reason: "\(shown) is not one of \(words.joined(separator: ", "))",
                                   suggestion: EditDistance.closest(to: text, among: words))
            }
            return .text(text)
        case .hostPort:
            guard let (host, port) = hostPort(text) else {
                throw ValueProblem(reason: "\(shown) is not HOST:PORT (e.g. 127.0.0.1:8787 or [::1]:8787)")
            }
            return .hostPort(host: host, port: port)
        }
    }

    /// A DATE (`--at`, `--until`, `--since`): an ISO 8601 date-time, a day or `now`, in years
    /// 0001–9999 once its offset is applied.
    static func date(_ value: String, now: Instant) throws -> Instant {
        do {
            return try ISODate.readInput(value, now: now)
        } catch ISODateProblem.outOfRange {
            throw ValueProblem(reason: "\(Terminal.quoted(value)) is outside years 0001-9999")
        } catch {
            throw ValueProblem(reason: "\(Terminal.quoted(value)) is not a date (\(dateForms))")
        }
    }

    /// A DURATION, with the precise reason for a near miss ("fractional seconds are not supported").
    static func duration(_ value: String) throws -> ISODuration {
        let shown = Terminal.quoted(value)
        do {
            return try ISODuration.read(value)
        } catch let problem as ISODurationProblem where problem != .malformed {
            // The reason carries its own example where one helps.
            throw ValueProblem(reason: "\(shown): \(problem)")
        } catch {
            throw ValueProblem(reason: "\(shown) is not a duration (\(durationForms))")
        }
    }

    /// A positive (or, `allowingZero`, zero), finite number written in plain decimal (`10`, `0.5`, `.25`).
    static func seconds(_ text: String, allowingZero: Bool = false) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              parts.contains(where: { !$0.isEmpty }),
              let value = Double(text), value.isFinite, value > 0 || (allowingZero && value == 0) else { return nil }
        return value
    }

    /// A size: digits, then nothing (bytes) or K, M, G (× 1024, 1024², 1024³), which may be
    /// followed by `i`, then `B` (`64K`, `128MiB`, `1GB`); at most 2^62 bytes.
    static func bytes(_ text: String) -> Int? {
        let digits = text.prefix { $0.isASCIIDigit }
        guard !digits.isEmpty, digits.count <= 19, let number = Int(digits) else { return nil }
        var unit = text.dropFirst(digits.count).uppercased()
        if unit.hasSuffix("B") && unit.count > 1 { unit.removeLast() }
        if unit.hasSuffix("I") && unit.count > 1 { unit.removeLast() }
        let shift: Int
        switch unit {
        case "": shift = 0
        case "K": shift = 10
        case "M": shift = 20
        case "G": shift = 30
        default: return nil
        }
        guard number <= (1 << 62) >> shift else { return nil }
        return number << shift
    }

    /// `HOST:PORT` split in two; an IPv6 host comes in brackets. Port 0 asks the system for one.
    static func hostPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
              let port = Int(portText), port <= 65535 else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        return (host, port)
    }

    /// `~` or `~/…` at the start of a path means the home directory.
    static func expandingTilde(_ path: String, environment: [String: String]) -> String {
        guard let home = EnvironmentSpec.home.value(in: environment) else { return path }
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        return path
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
