// "customer 'X' not found" for check, history, renew-count, grant and revoke — with the nearest
// ids and aliases the source knows ("did you mean 'alice'?"), and pointing at `subs find` when X
// looks like something a support agent is handed instead of an id (an email, an order or
// transaction id) and the source can search that kind of term.

import SubsModel
import SubsSource

enum FindHint {
    static func notFound(_ customer: ID, source: CustomerSource, nearby: NearbyCustomers? = nil) -> CommandFailure {
        let id = customer.string
        var message = "customer \(Terminal.quoted(id, escaping: false)) not found"
        message += nearby?.suggestion(for: customer) ?? ""
        let shape = TermShape(of: id)
        if shape != .id, source.whyNotSearchable(term: id) == nil, FindQuery.problem(with: id) == nil {
            message += "; it looks like \(shape.description): subs find \(shellWord(id))"
        }
        return CommandFailure(.notFound, message)
    }

    /// `id` as one shell word: as is when it holds only characters no shell treats specially,
    /// else quoted.
    static func shellWord(_ id: String) -> String {
        let plain = id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "@%+=:,./_-".utf8.contains(byte)
        }
        if plain { return id }
        if !id.contains("'") { return "'" + id + "'" }
        // Error lines show a backslash doubled: double quotes keep the word copyable.
        if !id.contains(where: { "\"$`\\!".contains($0) }) { return "\"" + id + "\"" }
        return "'" + id.replacingAll("'", with: "'\\''") + "'"
    }
}

/// The ids and aliases a USER not found may have meant, as commands, options and entitlements
/// get a "did you mean": read from the source once per command, and only when a USER is missing
/// (a local store: one scan on the error path). A source that cannot list its customers (a
/// platform, subs serve) gives no suggestion.
final class NearbyCustomers {
    private let source: CustomerSource
    private var names: [ID]?
    private var asked = 0
    /// A did-you-mean is for a person's typo: the first USERs not found of a command get one, a
    /// batch of ten thousand unknown ids (`check - < ids`) does not cost ten thousand passes.
    static let limit = 10

    init(_ source: CustomerSource) { self.source = source }

    /// ` (did you mean 'alice'?)`, ` (did you mean 'alice' or 'alice-android'?)`, or nil; a
    /// suggestion that is the same text in another Unicode form says so, as they look alike.
    func suggestion(for id: ID) -> String? {
        asked += 1
        guard asked <= Self.limit else { return nil }
        if names == nil { names = (try? source.customerNames()) ?? [] }
        let near = EditDistance.nearest(to: id, among: names ?? [])
        guard !near.isEmpty else { return nil }
        let quoted = near.map { Terminal.quoted($0, escaping: false) }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        let spelling = near.count == 1 ? ChangeError.otherSpelling(near[0], id) : ""
        return " (did you mean \(list)?\(spelling))"
    }
}
