// "customer 'X' not found" for check, history and renew-count — pointing at `subs find` when X
// looks like something a support agent is handed instead of an id (an email, an order or
// transaction id) and the source can search that kind of term.

import SubsKit

enum FindHint {
    static func notFound(_ customer: ID, source: CustomerSource) -> CommandFailure {
        let id = customer.string
        var message = "customer \(Terminal.quoted(id, escaping: false)) not found"
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
