// libFuzzer harness for SubsCLI's config-file reader: the input is the file's content, read
// from an in-memory file, then resolved into global options as `--config FILE` would.
// Built against the SubsCLI module (compiled
// with -enable-testing, scripts/fuzz). A broken invariant traps.

#if canImport(Glibc)
import Glibc
#endif
import SubsModel
@testable import SubsCLI

private let configFD: Int32 = {
    // An unlinked temporary file, still reachable through /proc/self/fd/N.
    var template = Array("/tmp/subs-fuzz-config-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(fd >= 0, "mkstemp failed")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
}()
private let configPath = "/proc/self/fd/\(configFD)"
private let environment = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]
private let now = Instant(seconds: 1_796_126_400)

private func checkMessage(_ text: String) {
    precondition(text.hasPrefix(configPath + ":"), "config error without its path: \(text.debugDescription)")
    for scalar in text.unicodeScalars {
        let v = scalar.value
        precondition(!(v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v)),
                     "config error carries control character U+\(String(v, radix: 16)): \(text.debugDescription)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    precondition(ftruncate(configFD, 0) == 0)
    var written = 0
    while written < size {
        let n = pwrite(configFD, data! + written, size - written, off_t(written))
        precondition(n > 0, "pwrite failed")
        written += n
    }

    let file: ConfigFile?
    do {
        file = try ConfigFile.load(path: configPath, explicit: true, environment: environment)
    } catch let error as ConfigError {
        checkMessage(error.message)
        return 0
    } catch {
        fatalError("ConfigFile.load threw \(type(of: error)): \(error)")
    }
    guard let file else { fatalError("an explicit config file that exists gave no ConfigFile") }
    for (key, entry) in file.entries {
        precondition(ConfigFile.keys.contains(key), "unknown key \(key) accepted")
        precondition(entry.line >= 1, "line numbers are 1-based")
    }

    // What the file holds resolves into options without an error: every value was checked.
    do {
        let options = try GlobalOptionsResolver.resolve(flags: ["config": .text(configPath)], environment: environment, now: now)
        precondition(options.configPath == configPath, "the config file read is not the one named")
        if let store = file.entries["store"] { precondition(store.value == options.store.map { .text($0) }, "store from the file lost") }
        if file.entries["timeout"] != nil { precondition(options.timeout > 0, "a timeout that is not positive") }
    } catch {
        fatalError("a config file that loaded failed to resolve: \(error)")
    }
    return 0
}
