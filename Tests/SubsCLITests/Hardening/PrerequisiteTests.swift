// A missing tool skips a test on a developer's machine, with the reason, and fails it under CI.

import TestSupport
import XCTest

final class PrerequisiteTests: XCTestCase {
    func testMissingToolSkipsWithTheReasonOutsideCI() {
        for environment in [["PATH": "/nonexistent"], ["PATH": "/nonexistent", "CI": "false"], ["PATH": "", "CI": "1"]] {
            XCTAssertThrowsError(try Prerequisite.tool("fish", environment: environment)) { error in
                let skip = error as? XCTSkip
                XCTAssertNotNil(skip, "\(environment): \(error)")
                XCTAssertTrue("\(error)".contains("fish not installed: CI runs this test"), "\(error)")
            }
        }
    }

    func testMissingToolFailsUnderCI() {
        XCTAssertThrowsError(try Prerequisite.tool("fish", environment: ["PATH": "/nonexistent", "CI": "true"])) { error in
            XCTAssertFalse(error is XCTSkip)
            XCTAssertEqual("\(error)", "fish not installed: CI runs this test (apt-get install -y fish) (required under CI=true)")
        }
        XCTAssertThrowsError(try Prerequisite.missing("fixture gone", environment: ["CI": "true"])) { error in
            XCTAssertTrue(error is Prerequisite.Missing)
        }
    }

    func testNoIPv6LoopbackSkipsWithTheReasonOnlyWithoutIPv6() throws {
        let dir = TempDir()
        let none = dir.write("if_inet6-none", "")
        let some = dir.write("if_inet6-some", "00000000000000000000000000000001 01 80 10 80       lo\n")
        for environment in [[:], ["CI": "true"]] {
            XCTAssertThrowsError(try Prerequisite.ipv6Loopback(environment: environment, interfaces: none, listens: { false })) { error in
                XCTAssertTrue(error is XCTSkip, "\(environment): \(error)")
                XCTAssertTrue("\(error)".contains("this machine has no IPv6"), "\(error)")
            }
            XCTAssertThrowsError(try Prerequisite.ipv6Loopback(environment: environment, interfaces: dir.path + "/absent",
                                                               listens: { false })) { error in
                XCTAssertTrue(error is XCTSkip, "\(environment): \(error)")
            }
        }
        XCTAssertThrowsError(try Prerequisite.ipv6Loopback(environment: [:], interfaces: some, listens: { false })) { error in
            XCTAssertTrue(error is XCTSkip, "\(error)")
            XCTAssertTrue("\(error)".contains("nothing can listen on ::1"), "\(error)")
        }
        XCTAssertThrowsError(try Prerequisite.ipv6Loopback(environment: ["CI": "true"], interfaces: some, listens: { false })) { error in
            XCTAssertTrue(error is Prerequisite.Missing, "\(error)")
        }
        XCTAssertNoThrow(try Prerequisite.ipv6Loopback(environment: ["CI": "true"], interfaces: none, listens: { true }))
    }

    func testPresentToolIsFoundOnPath() throws {
        XCTAssertEqual(try Prerequisite.tool("sh", environment: ["PATH": "/nonexistent:/bin", "CI": "true"]), "/bin/sh")
    }
}

/// The suite on a machine without zsh, fish and mandoc: every test class that looks a tool up is
/// run again, in a child test process whose PATH holds everything of this machine's PATH but
/// those three. Outside CI the tests that need them report skips and nothing fails; under
/// CI=true exactly those tests fail, saying CI requires the tool.
final class MissingToolsTests: XCTestCase {
    static let stripped: Set<String> = ["zsh", "fish", "mandoc"]

    /// A directory of links to every program on PATH except `stripped` (first one of a name wins,
    /// as the shell would find it).
    func pathWithout(_ stripped: Set<String>) throws -> String {
        let farm = NSTemporaryDirectory() + "subs-path-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: farm, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: farm) }
        var linked: Set<String> = []
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: String(directory))) ?? [] {
                let target = "\(directory)/\(name)"
                guard !stripped.contains(name), !linked.contains(name),
                      FileManager.default.isExecutableFile(atPath: target) else { continue }
                try FileManager.default.createSymbolicLink(atPath: farm + "/" + name, withDestinationPath: target)
                linked.insert(name)
            }
        }
        return farm
    }

    /// The classes of every test file that resolves a tool (`requireTool`, `Prerequisite.tool`),
    /// this file aside.
    func classesThatNeedTools() throws -> [String] {
        let folder = repositoryRoot + "/Tests/SubsCLITests"
        var classes: [String] = []
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }
        for name in files.sorted() where name.hasSuffix(".swift") {
            guard !name.hasSuffix("PrerequisiteTests.swift") else { continue }
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            guard text.contains("requireTool(") || text.contains("Prerequisite.tool(") else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("final class ") && line.contains(": XCTestCase") {
                classes.append("SubsCLITests." + line.dropFirst("final class ".count).prefix { $0 != ":" })
            }
        }
        return classes
    }

    struct Outcome {
        var skipped: [String: String] = [:]
        var failed: [String: [String]] = [:]
        var summary = ""
    }

    /// Runs `classes` in this test binary (the XCTest runner takes them as a filter) with `environment`.
    func run(_ classes: [String], environment: [String: String]) throws -> Outcome {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let result = try runProcess(binary, [classes.joined(separator: ",")], environment: environment)
        var outcome = Outcome()
        for line in (result.stdout + "\n" + result.stderr).split(separator: "\n").map(String.init) {
            // "<file>:<line>: Class.test : Test skipped - reason" / ": error: Class.test : message"
            if let range = line.range(of: " : Test skipped - ") {
                let test = line[..<range.lowerBound].split(separator: " ").last.map(String.init) ?? line
                outcome.skipped[test] = String(line[range.upperBound...])
            } else if let range = line.range(of: ": error: ") {
                let rest = line[range.upperBound...]
                let test = rest.split(separator: " ").first.map(String.init) ?? line
                outcome.failed[test, default: []].append(String(rest))
            } else if line.contains("Executed "), line.contains(" tests, with ") {
                outcome.summary = line
            }
        }
        XCTAssertFalse(outcome.summary.isEmpty, "no summary from the child run: \(result.stdout.suffix(2000)) \(result.stderr.suffix(2000))")
        return outcome
    }

    func testTheSuiteWithoutZshFishAndMandocSkipsOutsideCIAndFailsUnderCI() throws {
        let classes = try classesThatNeedTools()
        XCTAssertTrue(classes.contains("SubsCLITests.CompletionTests") && classes.contains("SubsCLITests.ManPageTests"), "\(classes)")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = try pathWithout(Self.stripped)
        environment.removeValue(forKey: "CI")

        let outside = try run(classes, environment: environment)
        XCTAssertEqual(outside.failed.keys.sorted(), [], "outside CI a missing tool is a skip, not a failure (\(outside.summary))")
        XCTAssertTrue(outside.summary.contains(" 0 failures"), outside.summary)
        if let first = outside.failed.values.first?.first { XCTFail("first failure outside CI: \(first.prefix(300))") }
        XCTAssertNotNil(outside.skipped["CompletionTests.testFishCompletesCommandsOptionsAndValues"], "\(outside.skipped)")
        XCTAssertNotNil(outside.skipped["CompletionTests.testZshOffersCommandsOptionsAndValues"], "\(outside.skipped)")
        XCTAssertNotNil(outside.skipped["ManPageTests.testMandocLintFindsNothing"], "\(outside.skipped)")
        for (test, reason) in outside.skipped {
            XCTAssertTrue(Self.stripped.contains { reason.hasPrefix("\($0) not installed: CI runs this test") }, "\(test): \(reason)")
        }

        environment["CI"] = "true"
        let underCI = try run(classes, environment: environment)
        XCTAssertEqual(underCI.skipped.keys.sorted(), [], "under CI=true nothing is skipped")
        XCTAssertEqual(Set(underCI.failed.keys), Set(outside.skipped.keys), "the tests that skip outside CI fail under it, and only they")
        for (test, messages) in underCI.failed {
            XCTAssertTrue(messages.allSatisfy { $0.contains("(required under CI=true)") }, "\(test): \(messages)")
        }
    }
}
