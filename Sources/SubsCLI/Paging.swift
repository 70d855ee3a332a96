// The terminal's own manners, as git and gh have them: output taller than the screen goes
// through a pager (SUBS_PAGER / --pager / the config file's `pager`, then PAGER, then
// `less -FRX`; `cat` or empty: none; `--no-pager`), never when stdout is not a terminal and
// never with -q; and error lines on a terminal wrap at its width on word boundaries.

import SubsSystem

/// stdout held back while a command runs, to go through the pager or straight out at the end.
final class PagedOutput {
    let command: String
    private let write: (String) -> Void
    private var text = ""

    init(command: String, write: @escaping (String) -> Void) {
        self.command = command
        self.write = write
    }

    func add(_ part: String) { text += part }

    /// Shows what was held back: through the pager when it is taller than `lines` rows of
    /// `columns`, else as it is. The command's exit status is the caller's; what the pager does
    /// (quitting before the end included) never changes it.
    func finish(lines: Int, columns: Int, environment: [String: String], warn: (String) -> Void) {
        guard !text.isEmpty else { return }
        guard Paging.rows(text, columns: columns) > lines else { return write(text) }
        var environment = environment
        // As git does: less quits when the output fits, keeps colours, leaves the screen as it was.
        if EnvironmentSpec.less.value(in: environment) == nil { environment[EnvironmentSpec.less.name] = "FRX" }
        if EnvironmentSpec.lv.value(in: environment) == nil { environment[EnvironmentSpec.lv.name] = "-c" }
        switch PagerProcess.run(command: command, input: Array(text.utf8), environment: environment) {
        case .exited(let status) where status == 126 || status == 127:
            // The shell could not run it (not found, not executable): the output is not lost.
            warn("pager \(Terminal.quoted(command)) could not be run (exit \(status)); printed without it")
            write(text)
        case .exited:
            break
        case .notStarted(let why):
            warn("pager \(Terminal.quoted(command)) could not be started: \(why); printed without it")
            write(text)
        }
    }
}

enum Paging {
    /// The pager command for this run, or nil for none: stdout is not a terminal, -q, a command
    /// whose answer is not paged (`CommandSpec.paged`: never `serve`, which runs until stopped,
    /// the completion scripts or `store init`), a screen height that is not known, or a pager
    /// that is empty or `cat`.
    static func command(for invocation: Invocation, of spec: CommandSpec, context: Context) -> String? {
        guard context.stdoutIsTerminal, !invocation.global.quiet, spec.paged, context.lines != nil else { return nil }
        let chosen = invocation.global.pager ?? EnvironmentSpec.pager.value(in: context.environment) ?? "less -FRX"
        let trimmed = chosen.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return trimmed.isEmpty || trimmed == "cat" ? nil : chosen
    }

    /// Screen rows `text` takes at `columns`: each line at least one, a longer one wrapping.
    static func rows(_ text: String, columns: Int) -> Int {
        var rows = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
            let width = TextLayout.width(String(line))
            rows += max(1, (width + columns - 1) / max(columns, 1))
        }
        return rows
    }

    /// Lines written to stderr on a terminal, each wrapped at `columns` on word boundaries
    /// (continuation lines indented by two), so that no error line runs past the screen's edge.
    static func wrapped(_ text: String, columns: Int) -> String {
        let width = max(columns, TextTable.narrowest)
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
            let line = String(line)
            if TextLayout.width(line) <= width {
                out += line + "\n"
            } else {
                out += TextLayout.wrap(line, columns: width).map { $0 + "\n" }.joined()
            }
        }
        // A part that does not end its line (rare) keeps its lack of a newline.
        if !text.hasSuffix("\n"), out.hasSuffix("\n") { out.removeLast() }
        return out
    }
}
