// What can go wrong reading or writing a store, with where it went wrong.

import SubsJSON

/// One schema problem at a JSON path ("customers.alice.transactions[3].expirationDate").
public struct StoreProblem: Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

public enum StoreError: Error, Equatable, Sendable {
    /// The store file does not exist.
    case missing(path: String)
    /// The store file exists but cannot be read (errno text).
    case unreadable(path: String, reason: String)
    /// Permission denied reading or writing.
    case permissionDenied(path: String, reason: String)
    /// Not valid JSON: position in the file.
    case syntax(path: String, error: JSONError)
    /// Valid JSON, not a valid store: the problems found (at least one), in document order.
    case invalid(path: String, problems: [StoreProblem])
    /// The store cannot be written (read-only, disk full…); it was left unchanged.
    case cannotWrite(path: String, reason: String)
    /// The write lock stayed busy past the timeout.
    case lockTimeout(path: String, seconds: Double)
    /// A store already exists where `store init` would create one.
    case alreadyExists(path: String)
}

extension StoreError: CustomStringConvertible {
    /// One line, saying what failed and where.
    public var description: String {
        switch self {
        // No hint here: the CLI says how to get a store, and serve's HTTP clients cannot run one.
        case .missing(let path): return "\(path): no such store"
        case .unreadable(let path, let reason): return "\(path): cannot read store: \(reason)"
        case .permissionDenied(let path, let reason): return "\(path): \(reason)"
        case .syntax(let path, let error): return "\(path):\(error.line):\(error.column): \(error.message)"
        case .invalid(let path, let problems):
            let first = problems.first.map(\.description) ?? "invalid store"
            let more = problems.count > 1 ? " (and \(problems.count - 1) more problem\(problems.count == 2 ? "" : "s"); run 'subs store validate')" : ""
            return "\(path): \(first)\(more)"
        case .cannotWrite(let path, let reason): return "\(path): cannot write store: \(reason); store left unchanged"
        case .lockTimeout(let path, let seconds):
            return "\(path): store is locked by another writer (waited \(formatSeconds(seconds)) s)"
        case .alreadyExists(let path): return "\(path): a store already exists; not overwriting it"
        }
    }
}

private func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? String(Int(s)) : String(s)
}

/// Builds JSON paths in the spec's notation: `customers.alice.transactions[3]`.
public enum JSONPath {
    public static func member(_ base: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { s in
            (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "_" || s == "-" || s == "$" || s == ":"
        }
        let part = plain ? key : "[\(JSON.quote(key))]"
        if base.isEmpty { return part }
        return plain ? "\(base).\(part)" : "\(base)\(part)"
    }

    /// The member an id names (a customer, a product): the id as written.
    public static func member(_ base: String, _ key: ID) -> String { member(base, key.string) }

    public static func index(_ base: String, _ i: Int) -> String { "\(base)[\(i)]" }
}
