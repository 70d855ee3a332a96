// libFuzzer harness for SubsCLI's command-line parser: the input is split on NUL bytes into
// argv and parsed; help is rendered for what asks for it. Built against the SubsCLI module
// compiled with -enable-testing (scripts/fuzz). A broken invariant traps: libFuzzer reports it as a crash.

#if canImport(Glibc)
import Glibc
#endif
import SubsModel
@testable import SubsCLI

/// The parser runs in an empty directory with a home that does not exist, so that no argument
/// can make it read a real config file; `--config` values lose their slashes for the same
/// reason (the config reader has its own harness).
private let sandbox: Void = {
    var template = Array("/tmp/subs-fuzz-cli-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(dir != nil && chdir(dir!) == 0, "cannot make the fuzz directory")
}()

private let environment = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config",
                           "SUBS_NOW": "2026-12-01T12:00:00Z"]
private let now = Instant(seconds: 1_796_126_400)

/// Messages are one line and never carry a raw control character from the input.
private func checkMessage(_ text: String, _ what: String) {
    for scalar in text.unicodeScalars {
        let v = scalar.value
        precondition(!(v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v)),
                     "\(what) carries control character U+\(String(v, radix: 16)): \(text.debugDescription)")
    }
}

private func arguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [String] {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var argv = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    if size == 0 { argv = [] }
    for i in argv.indices {
        if argv[i].hasPrefix("--config=") {
            argv[i] = argv[i].replacingSlashes()
        } else if i > 0, argv[i - 1] == "--config" {
            argv[i] = argv[i].replacingSlashes()
        }
    }
    return argv
}

extension String {
    fileprivate func replacingSlashes() -> String { String(map { $0 == "/" ? "_" : $0 }) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = sandbox
    let argv = arguments(data, size)
    var columns = 80
    if size > 0 { columns = Int(data![size - 1]) % 130 }

    let outcome: ParseOutcome
    do {
        outcome = try CommandLineParser.parse(arguments: argv, of: .subs, environment: environment, now: now)
    } catch let error as UsageError {
        checkMessage(error.message, "usage error")
        if let suggestion = error.suggestion { checkMessage(suggestion, "suggestion") }
        checkMessage(HelpRenderer(.subs).usageLine(for: error.command), "usage line")
        return 0
    } catch let error as ConfigError {
        checkMessage(error.message, "config error")
        return 0
    } catch {
        fatalError("the parser threw \(type(of: error)): \(error)")
    }

    switch outcome {
    case .help(let command):
        let text = HelpRenderer(.subs).help(for: command, columns: columns)
        precondition(!text.isEmpty, "empty help")
    case .groupHelp(let group):
        precondition(!HelpRenderer(.subs).help(forGroup: group, columns: columns).isEmpty, "empty group help")
    case .version:
        break
    case .run(let invocation):
        // Every positional and option value came from argv.
        precondition(invocation.positionals.allSatisfy { argv.contains($0) }, "a positional that was not given")
        precondition(invocation.command != .help, "help ran as a command")
    }
    return 0
}
