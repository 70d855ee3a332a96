// Issue 30: writes on a fresh machine. With the default store's folder missing (or the store
// alone), every command — reads and writes, dry run or not — is exit 66 with the same words
// (how to name, create or try a store), and a write creates nothing beside a store that is not
// there: no folder, no lock file.

import Foundation
import XCTest

final class FreshMachineTests: XCTestCase {
    static let commands: [[String]] = [
        ["check", "trent"], ["history", "trent"], ["renew-count", "trent"], ["find", "trent"],
        ["grant", "trent", "premium", "--duration", "P7D", "--reason", "ticket 4721", "--actor", "dana"],
        ["grant", "trent", "premium", "--lifetime", "--create"], ["grant", "trent", "premium", "--duration", "P7D", "--dry-run"],
        ["revoke", "trent", "premium"], ["revoke", "trent", "premium", "--dry-run"], ["store", "validate"],
    ]

    func testEveryCommandOnAMissingDefaultStoreIs66WithTheSameWords() throws {
        for folderExists in [false, true] {
            let home = TempDir()
            if folderExists {
                try FileManager.default.createDirectory(atPath: home.path + "/.local/share/subs", withIntermediateDirectories: true)
            }
            let store = home.path + "/.local/share/subs/store.json"
            let expected = "subs: error: \(store): no such store; name one with --store PATH or SUBS_STORE, create one with "
                + "'subs store init', or try the demo customers: 'subs store init --demo' (the same store as examples/store.json)\n"
            for command in Self.commands {
                let result = CLIHarness(env: ["HOME": home.path]).run(command)
                XCTAssertEqual(result.status, .noInput, "\(command) (folder \(folderExists)): \(result.stderr)")
                XCTAssertEqual(result.stderr, expected, "\(command)")
                XCTAssertEqual(result.stdout, "", "\(command)")
            }
            // Nothing was made on the way: no folder, no lock file.
            let made = (try? FileManager.default.subpathsOfDirectory(atPath: home.path)) ?? []
            XCTAssertEqual(made, folderExists ? [".local", ".local/share", ".local/share/subs"] : [], "\(made)")
        }
    }

    /// The README's own example, as the built binary runs it on a fresh machine, then the
    /// guidance followed: `store init`, and the same grant works.
    func testTheREADMEsGrantOnAFreshMachineSaysHowToMakeAStore() throws {
        let home = TempDir()
        let grant = ["grant", "trent", "premium", "--duration", "P7D", "--reason", "ticket 4721", "--actor", "dana"]
        let refused = try Binary.run(grant, env: ["HOME": home.path], removing: ["XDG_DATA_HOME"])
        XCTAssertEqual(refused.status, .noInput, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("no such store") && refused.stderr.contains("'subs store init'"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("lock"), refused.stderr)
        let check = try Binary.run(["check", "trent"], env: ["HOME": home.path], removing: ["XDG_DATA_HOME"])
        XCTAssertEqual(check.stderr, refused.stderr, "same cause, same words")
        XCTAssertEqual(try Binary.run(["store", "init", "--demo"], env: ["HOME": home.path], removing: ["XDG_DATA_HOME"]).status, .success)
        let granted = try Binary.run(grant, env: ["HOME": home.path], removing: ["XDG_DATA_HOME"])
        XCTAssertEqual(granted.status, .success, granted.stderr)
        XCTAssertTrue(granted.stdout.contains("trent: premium is now active"), granted.stdout)
    }

    /// A store path that is a dangling symbolic link names a store that does not exist: 66 too.
    func testADanglingLinkIsAMissingStoreForAWrite() throws {
        let dir = TempDir()
        let link = dir.path + "/store.json"
        XCTAssertEqual(symlink(dir.path + "/gone/store.json", link), 0)
        let result = runCLI(["--store", link, "grant", "trent", "premium", "--duration", "P7D"])
        XCTAssertEqual(result.status, .noInput, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(link): no such store;"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/gone"))
    }
}
