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
