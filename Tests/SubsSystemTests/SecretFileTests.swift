// The secret-file rule (SPEC section 7 rev. 4) on file statuses made up here, for every owner and
// mode a real file system would need root to produce; the end-to-end tests run the binary on real
// files of other users (SecretFileEndToEndTests).

#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import SubsSystem

final class SecretFileTests: XCTestCase {
    private let me: uid_t = 4321
    private let path = "/home/me/.config/subs/key"

    private func status(_ type: mode_t = S_IFREG, mode: mode_t, owner: uid_t) -> stat {
        var info = stat()
        info.st_mode = type | mode
        info.st_uid = owner
        return info
    }

    private func problem(_ kind: SecretFileKind, mode: mode_t, owner: uid_t? = nil, type: mode_t = S_IFREG) -> String? {
        SecretFile.problem(status(type, mode: mode, owner: owner ?? me), path: path, kind: kind, euid: me)
    }

    func testASecretFileMustBeTheUsersOrRootsAndHiddenFromOthers() {
        for kind in [SecretFileKind.apiKey, .serverToken, .webhookSecret] {
            XCTAssertNil(problem(kind, mode: 0o600))
            XCTAssertNil(problem(kind, mode: 0o400))
            XCTAssertNil(problem(kind, mode: 0o600, owner: 0), "root's file")
            for mode: mode_t in [0o640, 0o604, 0o644] {
                XCTAssertEqual(problem(kind, mode: mode),
                               "the \(kind.noun) is readable by group or others (mode \(String(mode, radix: 8))); chmod 600 \(path)")
            }
            for mode: mode_t in [0o620, 0o602] {
                XCTAssertEqual(problem(kind, mode: mode),
                               "the \(kind.noun) is writable by group or others (mode \(String(mode, radix: 8))); chmod 600 \(path)")
            }
            XCTAssertEqual(problem(kind, mode: 0o666),
                           "the \(kind.noun) is readable and writable by group or others (mode 666); chmod 600 \(path)")
            // Execute bits let nobody read or write it.
            XCTAssertNil(problem(kind, mode: 0o711))
        }
    }

    func testTheConfigFileMayBeReadByOthersButNotWritten() {
        XCTAssertNil(problem(.config, mode: 0o644))
        XCTAssertNil(problem(.config, mode: 0o600))
        XCTAssertNil(problem(.config, mode: 0o644, owner: 0), "/etc/subs/config, root's")
        XCTAssertEqual(problem(.config, mode: 0o664), "the config file is writable by group or others (mode 664); chmod go-w \(path)")
        XCTAssertEqual(problem(.config, mode: 0o646), "the config file is writable by group or others (mode 646); chmod go-w \(path)")
    }

    func testAnotherUsersFileIsRefusedWithTheChownThatFixesIt() {
        let other: uid_t = 4322
        let name = SecretFile.userName(other), mine = SecretFile.userName(me)
        XCTAssertEqual(problem(.apiKey, mode: 0o600, owner: other),
                       "the API key file is owned by another user (\(name)); chown \(mine) \(path)")
        XCTAssertEqual(problem(.config, mode: 0o666, owner: other),
                       "the config file is owned by another user (\(name)) and writable by group or others (mode 666); "
                       + "chown \(mine) \(path) && chmod go-w \(path)")
        // Root running subs takes root's files and its own only.
        XCTAssertEqual(SecretFile.problem(status(mode: 0o600, owner: other), path: path, kind: .serverToken, euid: 0),
                       "the token file is owned by another user (\(name)); chown root \(path)")
        XCTAssertNil(SecretFile.problem(status(mode: 0o600, owner: 0), path: path, kind: .serverToken, euid: 0))
    }

    func testDevicesAreJudgedByOwnerAndPipesLikeFiles() {
        // /dev/null (root's, 0666) reads as nothing whoever writes to it: `--config /dev/null`.
        XCTAssertNil(problem(.config, mode: 0o666, owner: 0, type: S_IFCHR))
        XCTAssertNil(problem(.apiKey, mode: 0o620, type: S_IFCHR), "the user's terminal")
        XCTAssertNotNil(problem(.apiKey, mode: 0o620, owner: 4322, type: S_IFCHR), "another user's terminal")
        // A named pipe others may write into gives what they write; `<(command)` is a 0600 pipe.
        XCTAssertNotNil(problem(.apiKey, mode: 0o622, type: S_IFIFO))
        XCTAssertNil(problem(.apiKey, mode: 0o600, type: S_IFIFO))
    }

    func testTheFixIsAShellWord() {
        XCTAssertEqual(SecretFile.shellQuoted("/tmp/key"), "/tmp/key")
        XCTAssertEqual(SecretFile.shellQuoted("/tmp/my key"), "'/tmp/my key'")
        XCTAssertEqual(SecretFile.shellQuoted("/tmp/it's"), #"'/tmp/it'\''s'"#)
        XCTAssertEqual(SecretFile.shellQuoted("/tmp/$(rm -rf ~)"), "'/tmp/$(rm -rf ~)'")
        XCTAssertEqual(SecretFile.shellQuoted("~/key"), "'~/key'")
        let spaced = SecretFile.problem(status(mode: 0o644, owner: me), path: "/tmp/my key", kind: .apiKey, euid: me)
        XCTAssertEqual(spaced, "the API key file is readable by group or others (mode 644); chmod 600 '/tmp/my key'")
    }
}
