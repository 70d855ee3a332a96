// The Makefile: `make install` puts every file where packagers expect it, and `make uninstall`
// removes exactly those. A stand-in binary (SUBS_BIN) spares the test a release build.

import XCTest

final class InstallTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "subs-install-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/root", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func make(_ arguments: [String]) throws -> ProcessResult {
        let result = try runProcess(try requireTool("make"), ["--no-print-directory", "-C", repositoryRoot] + arguments)
        XCTAssertEqual(result.status, 0, "make \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    /// Every regular file under `root`, relative to it.
    func files(under root: String) -> Set<String> {
        var out: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out.insert(path)
            }
        }
        return out
    }

    func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testInstallPutsEveryFileInPlaceAndUninstallRemovesExactlyThose() throws {
        let fakeBinary = directory + "/fake-subs"
        try "#!/bin/sh\necho fake subs\n".write(toFile: fakeBinary, atomically: true, encoding: .utf8)
        let root = directory + "/root"
        // Something of the user's that uninstall must leave alone.
        try FileManager.default.createDirectory(atPath: root + "/usr/bin", withIntermediateDirectories: true)
        try "keep".write(toFile: root + "/usr/bin/other", atomically: true, encoding: .utf8)

        let install = try make(["install", "DESTDIR=\(root)", "prefix=/usr", "SUBS_BIN=\(fakeBinary)"])
        XCTAssertFalse(install.stdout.contains("swift build"), "install with SUBS_BIN must not build")
        let expected: [String: String] = [
            "usr/bin/subs": fakeBinary,
            "usr/share/man/man1/subs.1": repositoryRoot + "/man/subs.1",
            "usr/share/man/man5/subs-store.5": repositoryRoot + "/man/subs-store.5",
            "usr/share/bash-completion/completions/subs": repositoryRoot + "/completions/subs.bash",
            "usr/share/zsh/site-functions/_subs": repositoryRoot + "/completions/_subs",
            "usr/share/fish/vendor_completions.d/subs.fish": repositoryRoot + "/completions/subs.fish",
        ]
        XCTAssertEqual(files(under: root), Set(expected.keys).union(["usr/bin/other"]))
        for (installed, source) in expected {
            XCTAssertEqual(FileManager.default.contents(atPath: root + "/" + installed),
                           FileManager.default.contents(atPath: source), installed)
            XCTAssertEqual(try mode(root + "/" + installed), installed == "usr/bin/subs" ? 0o755 : 0o644, installed)
        }

        _ = try make(["uninstall", "DESTDIR=\(root)", "prefix=/usr"])
        XCTAssertEqual(files(under: root), ["usr/bin/other"])
    }

    func testDirectoriesCanBeChosenOneByOne() throws {
        let fakeBinary = directory + "/fake-subs"
        try "x".write(toFile: fakeBinary, atomically: true, encoding: .utf8)
        let root = directory + "/root"
        let options = ["DESTDIR=\(root)", "prefix=/opt/subs", "mandir=/opt/man", "bindir=/opt/bin"]
        _ = try make(["install", "SUBS_BIN=\(fakeBinary)"] + options)
        XCTAssertEqual(files(under: root), ["opt/bin/subs", "opt/man/man1/subs.1", "opt/man/man5/subs-store.5",
                                            "opt/subs/share/bash-completion/completions/subs",
                                            "opt/subs/share/zsh/site-functions/_subs",
                                            "opt/subs/share/fish/vendor_completions.d/subs.fish"])
        _ = try make(["uninstall"] + options)
        XCTAssertEqual(files(under: root), [])
    }

    func testPlainInstallBuildsAReleaseBinaryFirst() throws {
        let plan = try make(["-n", "install", "DESTDIR=\(directory)/root"])
        let lines = plan.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "swift build -c release --product subs")
        XCTAssertTrue(lines.contains("install -Dm755 .build/release/subs \(directory)/root/usr/local/bin/subs"), plan.stdout)
    }
}
