// Dispatch from a parsed invocation to its command, and what commands share: where the data
// comes from, the users named on the command line or stdin, and failures turned into statuses.

import SubsKit

public enum Commands {
    public static func run(_ invocation: Invocation, context: Context) -> ExitCode {
        do {
            switch invocation.command {
            case .check: return try CheckCommand.run(invocation, context)
            case .history: return try HistoryCommand.run(invocation, context)
            case .renewCount: return try RenewCountCommand.run(invocation, context)
            case .find: return try FindCommand.run(invocation, context)
            case .storeInit: return try StoreCommands.initialize(invocation, context)
            case .storeValidate: return try StoreCommands.validate(invocation, context)
            case .grant, .revoke: return try GrantCommand.run(invocation, context)
            case .complete: return CompleteCommand.run(invocation, context)
            case .serve: return try ServeCommand.run(invocation, context)
            case .completion: return CompletionCommand.run(invocation, context: context)
            case .help:
                // Answered by CLI before commands run.
                throw CommandFailure(.internalError, "no runner for command '\(invocation.command.rawValue)'")
            }
        } catch {
            return report(error, context)
        }
    }

    /// One `subs: error:` line on stderr, and the status it stands for.
    static func report(_ error: Error, _ context: Context) -> ExitCode {
        let (code, message) = describe(error)
        context.writeErr("subs: error: \(Terminal.message(message))\n")
        return code
    }

    static func describe(_ error: Error) -> (ExitCode, String) {
        switch error {
        case let failure as CommandFailure:
            return (failure.code, failure.message)
        case let store as StoreError:
            return (exitCode(for: store), store.description)
        case let change as ChangeError:
            if case .expirationNotInFuture = change { return (.usage, change.description) }
            return (.notFound, change.description)
        case let usage as UsageError:
            return (.usage, usage.message)
        case let notOffered as NotOffered:
            return (.unavailable, notOffered.reason)
        case let remote as RemoteError:
            return (exitCode(for: remote), remote.description)
        case let revenueCat as RevenueCatError:
            return (revenueCat.isNotFound ? .notFound : .dataError, revenueCat.description)
        case let qonversion as QonversionError:
            switch qonversion {
            case .writeNeedsSecretKey: return (.permissionDenied, qonversion.description)
            case .refused: return (.dataError, qonversion.description)
            case .userNotFound: return (.notFound, qonversion.description)
            }
        default:
            return (.internalError, "internal error: \(error)")
        }
    }

    static func exitCode(for error: RemoteError) -> ExitCode {
        switch error {
        case .unavailable, .timeout, .notCached, .libcurlMissing: return .unavailable
        case .rateLimited: return .temporaryFailure
        case .protocolError: return .protocolError
        case .unauthorized: return .permissionDenied
        case .notFound: return .notFound
        case .insecureURL, .invalidURL, .apiKeyEmpty, .apiKeyInvalid, .cache: return .configError
        case .apiKeyUnreadable: return .permissionDenied
        }
    }

    static func exitCode(for error: StoreError) -> ExitCode {
        switch error {
        case .missing, .unreadable: return .noInput
        case .permissionDenied: return .permissionDenied
        case .syntax, .invalid: return .dataError
        case .cannotWrite, .alreadyExists: return .cannotWrite
        case .lockTimeout: return .temporaryFailure
        }
    }

    // MARK: shared by commands

    /// `--store`, else `$XDG_DATA_HOME/subs/store.json`, else `~/.local/share/subs/store.json`.
    static func storePath(_ invocation: Invocation, _ context: Context) -> String {
        if let store = invocation.global.store { return store }
        let env = context.environment
        if let data = env["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/subs/store.json" }
        return (env["HOME"] ?? "") + "/.local/share/subs/store.json"
    }

    static func source(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        try SourceFactory.make(invocation, context)
    }

    /// Notes of an answer, on stderr.
    static func say(_ notes: [String], _ context: Context) {
        for note in notes { context.writeErr(Terminal.message("subs: note: \(note)") + "\n") }
    }

    /// The USER arguments with `-` replaced by the ids read from stdin (one per line; blank lines
    /// and `#` comments skipped). Stdin is read once, so `-` may appear once. `requiringIds`: a
    /// `-` that reads no id is a usage error (a write or a gate must not pass on an empty list,
    /// say when the program feeding the ids failed).
    static func users(_ arguments: [String], _ context: Context, requiringIds: Bool = false,
                      command: CommandName? = nil) throws -> [String] {
        guard arguments.contains("-") else { return arguments }
        guard arguments.filter({ $0 == "-" }).count == 1 else {
            throw UsageError("'-' (ids from standard input) may appear only once")
        }
        guard let bytes = context.readIn() else {
            throw CommandFailure(.dataError, "cannot read customer ids from standard input")
        }
        let fromStdin = try StdinIds.parse(bytes)
        if requiringIds && fromStdin.isEmpty {
            throw UsageError("'-' read no customer ids from standard input", command: command)
        }
        return arguments.flatMap { $0 == "-" ? fromStdin : [$0] }
    }

    static func style(_ invocation: Invocation, _ context: Context) -> OutputStyle {
        OutputStyle(invocation.global, context: context)
    }
}

/// A failure a command reports with a given status.
struct CommandFailure: Error {
    var code: ExitCode
    var message: String
    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Customer ids on standard input: UTF-8, one per line.
enum StdinIds {
    static func parse(_ bytes: [UInt8]) throws -> [String] {
        // Split on bytes: as a String, "\r\n" is one Character and would not split on "\n".
        var ids: [String] = []
        for (number, rawLine) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            var line = rawLine[...]
            if line.last == 0x0D { line = line.dropLast() }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw CommandFailure(.dataError, "standard input:\(number + 1): not valid UTF-8")
            }
            let trimmed = text.trimmingBlanks()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw CommandFailure(.dataError, "standard input:\(number + 1): control character in customer id")
            }
            ids.append(trimmed)
        }
        return ids
    }
}
