// The repository's paths, temporary folders, and the check that a secret reached no file.

import Foundation
import XCTest

/// Paths of the repository: fixtures, examples.
public enum Repo {
    /// This file is Tests/TestSupport/Files.swift.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    public static var exampleStore: String { path("examples/store.json") }
}

/// A temporary directory removed when the test ends.
public final class TempDir {
    public let path: String
    public init() {
        path = NSTemporaryDirectory() + "subs-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` in this directory and returns its path. A file written anew is a
    /// new store: the journal of the one it replaces (STORE.journal) goes with it.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        try? FileManager.default.removeItem(atPath: file + ".journal")
        _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        return file
    }

    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let file = path + "/" + name
        try? FileManager.default.removeItem(atPath: file + ".journal")
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }
}

/// Asserts that none of the files below `directory` contains any of `secrets`. A folder that
/// does not exist, or holds no file, fails: a check over nothing would pass whatever was written.
public func assertNoFileContains(_ secrets: [String], under directory: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
        return XCTFail("\(directory) does not exist: nothing was checked", file: file, line: line)
    }
    let files = ((try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []).filter {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory + "/" + $0, isDirectory: &isFolder) && !isFolder.boolValue
    }
    XCTAssertFalse(files.isEmpty, "\(directory) holds no file: nothing was checked", file: file, line: line)
    for name in files {
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            XCTFail("\(name) cannot be read", file: file, line: line)
            continue
        }
        let text = String(decoding: data, as: UTF8.self)
        for secret in secrets {
            XCTAssertFalse(text.contains(secret), "\(name) holds a secret", file: file, line: line)
        }
    }
}
