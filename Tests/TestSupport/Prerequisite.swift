// What a test needs from outside the package (a shell, mandoc, a fixture folder): on a developer's
// machine a missing one skips the test with the reason; under CI=true, where .ci/run installs
// everything, it fails it, so CI never passes by skipping.

import Foundation
import XCTest

public enum Prerequisite {
    /// Thrown under CI=true: the test fails with this reason.
    public struct Missing: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "\(reason) (required under CI=true)" }
    }

    /// Skips the test (XCTSkip), or under CI=true fails it (`Missing`), saying `reason`.
    public static func missing(_ reason: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                               file: StaticString = #filePath, line: UInt = #line) throws -> Never {
        if environment["CI"] == "true" { throw Missing(reason: reason) }
        throw XCTSkip(reason, file: file, line: line)
    }

    /// Skips (under CI=true: fails) a test that needs to run as root (to give a file to another
    /// user): CI runs as root.
    public static func root(_ why: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        if geteuid() != 0 { try missing("needs root \(why): CI runs this test as root", environment: environment, file: file, line: line) }
    }

    /// The path of `name` on PATH; when it is missing, skips (under CI=true: fails) the test with
    /// "fish not installed: CI runs this test".
    public static func tool(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        try missing("\(name) not installed: CI runs this test (apt-get install -y \(name))",
                    environment: environment, file: file, line: line)
    }

    /// Skips a test that needs the IPv6 loopback (::1) when this machine has no IPv6 (no address
    /// in /proc/net/if_inet6), saying so; a machine that has IPv6 yet cannot listen on ::1 is a
    /// missing prerequisite (under CI=true: a failure), never a silent pass.
    /// `listens`: whether something can listen on ::1 here (the tests of this rule pass false).
    public static func ipv6Loopback(environment: [String: String] = ProcessInfo.processInfo.environment,
                                    interfaces: String = "/proc/net/if_inet6",
                                    listens: () -> Bool = canListenOnIPv6Loopback,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        if listens() { return }
        let addresses = (try? String(contentsOfFile: interfaces, encoding: .utf8)) ?? ""
        guard !addresses.split(separator: "\n").isEmpty else {
            throw XCTSkip("this machine has no IPv6 (\(interfaces) lists no address): the ::1 part cannot run here",
                          file: file, line: line)
        }
        try missing("this machine has IPv6 but nothing can listen on ::1 (loopback down or IPv6 disabled on lo?)",
                    environment: environment, file: file, line: line)
    }

    public static func canListenOnIPv6Loopback() -> Bool {
        guard let (fd, _) = LoopbackSocket.listen(ipv6: true) else { return false }
        close(fd)
        return true
    }
}
