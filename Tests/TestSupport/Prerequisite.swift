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
}
