// Files other users control (SPEC section 7 rev. 4), end to end on the built binary, with real
// files of other users: a test that needs one runs as root (CI does) and has the other user act
// through setpriv (util-linux), as any local user could.
// - Secret files (API key, serve token) and the config file: the user's own or root's, writable by
//   nobody else, and secret files unreadable to others; else exit 77 and one line with the fix.
// - Lock files: created 0600, opened for writing, and another user's is refused.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import XCTest

/// The name the password database gives `uid`, or its number (as subs names it).
private func userName(_ uid: uid_t) -> String {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
    return String(cString: name)
}

/// setpriv's options to act as `uid` with primary group `gid` and no other group.
private func identity(_ uid: uid_t, gid: gid_t? = nil) -> [String] {
    ["--reuid=\(uid)", "--regid=\(gid ?? uid)", "--clear-groups"]
}

/// Runs the built binary as another user.
private func runAs(_ uid: uid_t, gid: gid_t? = nil, _ arguments: [String], env: [String: String] = [:]) throws -> ProcessResult {
    let setpriv = try Prerequisite.tool("setpriv")
    return try runProcess(setpriv, identity(uid, gid: gid) + [Binary.url.path] + arguments, environment: Binary.environment(env))
}

/// Runs a shell command as another user.
private func shellAs(_ uid: uid_t, gid: gid_t? = nil, _ command: String) throws -> ProcessResult {
    let setpriv = try Prerequisite.tool("setpriv")
    return try runProcess(setpriv, identity(uid, gid: gid) + ["/bin/sh", "-c", command])
}

/// Starts a shell command as another user and returns at once.
private func startAs(_ uid: uid_t, _ command: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try Prerequisite.tool("setpriv"))
    process.arguments = identity(uid) + ["/bin/sh", "-c", command]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// Runs the built binary, which must end within `limit` seconds (a serve that does not refuse
/// its token file would run on): its status and stderr, nil status when it had to be stopped.
private func runBriefly(_ arguments: [String], in dir: TempDir, limit: Double = 20) throws -> (status: Int32?, stderr: String) {
    let (process, _, err) = try Binary.startWithOutputFiles(arguments, in: dir.path)
    let giveUp = Date().addingTimeInterval(limit)
    while process.isRunning && Date() < giveUp { usleep(20_000) }
    let ended = !process.isRunning
    if !ended { process.terminate() }
    process.waitUntilExit()
    return (ended ? process.terminationStatus : nil, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
}

private let nobody: uid_t = 65534

final class SecretFileEndToEndTests: XCTestCase {
    private var dir: TempDir!
    override func setUp() { dir = TempDir() }

    private func directory(_ name: String, mode: mode_t) -> String {
        let path = dir.path + "/" + name
        XCTAssertEqual(mkdir(path, 0o700), 0)
        XCTAssertEqual(chmod(path, mode), 0)
        return path
    }

    private func key(_ name: String = "key", mode: mode_t = 0o600) -> String {
        let path = dir.write(name, "sk_victim_TOPsecret42\n")
        chmod(path, mode)
        return path
    }

    /// Issue 29, item 8: another user's config in a shared directory named a port of theirs.
    func testAConfigFileAnotherUserWroteIsRefusedBeforeTheKeyGoesAnywhere() throws {
        try Prerequisite.root("to have another user write the config file")
        let listener = try XCTUnwrap(LoopbackListener())
        let shared = directory("shared", mode: 0o1777)
        let config = shared + "/config"
        let lines = "remote = http://127.0.0.1:\(listener.port)\\nprovider = subs\\n"
        let wrote = try shellAs(nobody, "printf '\(lines)' > '\(config)' && chmod 666 '\(config)' && "
                                + "mkdir -p '\(shared)/xdg/subs' && printf '\(lines)' > '\(shared)/xdg/subs/config'")
        XCTAssertEqual(wrote.status, 0, wrote.stderr)
        let key = key()
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        let expected = "subs: error: \(config): the config file is owned by another user (\(userName(nobody))) and writable by "
            + "group or others (mode 666); chown root \(config) && chmod go-w \(config)\n"
        for (arguments, more) in [(["--config", config], [:]), ([], ["SUBS_CONFIG": config])] {
            let result = try Binary.run(arguments + ["--api-key-file", key, "check", "alice"], env: env.merging(more) { $1 })
            XCTAssertEqual(result.status.rawValue, 77, result.stderr)
            XCTAssertEqual(result.stderr, expected)
        }
        // The default config file is judged alike (0644 here: its owner alone is wrong).
        let byDefault = try Binary.run(["--api-key-file", key, "check", "alice"], env: env.merging(["XDG_CONFIG_HOME": shared + "/xdg"]) { $1 })
        XCTAssertEqual(byDefault.status.rawValue, 77, byDefault.stderr)
        XCTAssertEqual(byDefault.stderr, "subs: error: \(shared)/xdg/subs/config: the config file is owned by another user "
                       + "(\(userName(nobody))); chown root \(shared)/xdg/subs/config\n")
        XCTAssertEqual(listener.connections, 0, "the key went to a port another user chose")
        // Help, the version and the completion scripts work whatever the config file is.
        for arguments in [["--help"], ["--version"], ["completion", "bash"]] {
            XCTAssertEqual(try Binary.run(["--config", config] + arguments).status.rawValue, 0, "\(arguments)")
        }
        // The same lines in a file of root's that nobody else may write are used.
        XCTAssertEqual(chown(config, 0, 0), 0)
        XCTAssertEqual(chmod(config, 0o644), 0)
        let used = try Binary.run(["--config", config, "--api-key-file", key, "check", "alice"], env: env)
        XCTAssertEqual(used.status.rawValue, 3, used.stderr)
        XCTAssertGreaterThan(listener.connections, 0)
    }

    func testAUserIsRefusedAThirdUsersConfigAndTakesRootsOrItsOwn() throws {
        try Prerequisite.root("to run subs as another user")
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let third = dir.write("third", "store = \(store)\n")
        XCTAssertEqual(chown(third, 4242, 4242), 0)
        let refused = try runAs(nobody, ["--config", third, "check", "alice"])
        XCTAssertEqual(refused.status, 77, refused.stderr)
        XCTAssertEqual(refused.stderr, "subs: error: \(third): the config file is owned by another user (\(userName(4242))); "
                       + "chown \(userName(nobody)) \(third)\n")
        let roots = dir.write("roots", "store = \(store)\n")   // root's, 0644
        let fine = try runAs(nobody, ["--config", roots, "check", "alice"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertEqual(chown(third, nobody, nobody), 0)
        XCTAssertEqual(try runAs(nobody, ["--config", third, "check", "alice"]).status, 0)
    }

    func testAConfigFileOthersMayWriteIsRefusedEvenWhenItIsTheUsersOwn() throws {
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let config = dir.write("config", "store = \(store)\n")
        for mode: mode_t in [0o666, 0o664, 0o646, 0o620] {
            chmod(config, mode)
            let result = try Binary.run(["--config", config, "check", "alice"])
            XCTAssertEqual(result.status.rawValue, 77, result.stderr)
            XCTAssertEqual(result.stderr, "subs: error: \(config): the config file is writable by group or others "
                           + "(mode \(String(mode, radix: 8))); chmod go-w \(config)\n")
        }
        for mode: mode_t in [0o644, 0o640, 0o600, 0o400] {
            chmod(config, mode)
            XCTAssertEqual(try Binary.run(["--config", config, "check", "alice"]).status.rawValue, 0, String(mode, radix: 8))
        }
    }

    /// Issue 29, item 9: serve's token file is a secret file.
    func testServeRefusesATokenFileOthersMayReadOrAnotherUserOwns() throws {
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let token = dir.write("token", "s3rv3r-t0ken\n")
        let serve = ["--store", store, "serve", "--listen", "127.0.0.1:0", "--token-file", token]
        for mode: mode_t in [0o644, 0o640, 0o604, 0o660, 0o622] {
            chmod(token, mode)
            let result = try runBriefly(serve, in: dir)
            XCTAssertEqual(result.status, 77, "\(String(mode, radix: 8)): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(token): the token file is "), result.stderr)
            XCTAssertTrue(result.stderr.hasSuffix(" (mode \(String(mode, radix: 8))); chmod 600 \(token)\n"), result.stderr)
            XCTAssertFalse(result.stderr.contains("s3rv3r-t0ken"))
        }
        chmod(token, 0o600)
        if geteuid() == 0 {
            XCTAssertEqual(chown(token, nobody, nobody), 0)
            let other = try runBriefly(serve, in: dir)
            XCTAssertEqual(other.status, 77, other.stderr)
            XCTAssertEqual(other.stderr, "subs: error: \(token): the token file is owned by another user (\(userName(nobody))); chown root \(token)\n")
            XCTAssertEqual(chown(token, 0, 0), 0)
        }
        // The user's own 0600 file: serve runs (until stopped), and wants the token.
        let (process, _, err) = try Binary.startWithOutputFiles(serve, in: dir.path)
        defer { process.terminate(); process.waitUntilExit() }
        var port: Int?
        let giveUp = Date().addingTimeInterval(20)
        while port == nil && process.isRunning && Date() < giveUp {
            let text = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last ?? "")
            }
            usleep(20_000)
        }
        let served = try XCTUnwrap(port, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
        XCTAssertTrue(try RawClient.get(served, "/v1/customers/alice").hasPrefix("HTTP/1.1 401"))
        XCTAssertTrue(try RawClient.get(served, "/v1/customers/alice", headers: ["Authorization": "Bearer s3rv3r-t0ken"])
            .hasPrefix("HTTP/1.1 200"))
    }

    func testAnAPIKeyFileOthersMayReadIsRefusedAndNothingIsSent() throws {
        let listener = try XCTUnwrap(LoopbackListener())
        let remote = ["--remote", "http://127.0.0.1:\(listener.port)", "--provider", "subs"]
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        let open = key("open", mode: 0o644)
        let result = try Binary.run(remote + ["--api-key-file", open, "check", "alice"], env: env)
        XCTAssertEqual(result.status.rawValue, 77, result.stderr)
        XCTAssertEqual(result.stderr, "subs: error: \(open): the API key file is readable by group or others (mode 644); chmod 600 \(open)\n")
        // SUBS_API_KEY_FILE and the config file's api-key-file are the same file.
        XCTAssertEqual(try Binary.run(remote + ["check", "alice"], env: env.merging(["SUBS_API_KEY_FILE": open]) { $1 }).status.rawValue, 77)
        let config = dir.write("config", "api-key-file = \(open)\n")
        XCTAssertEqual(try Binary.run(remote + ["--config", config, "check", "alice"], env: env).status.rawValue, 77)
        // A directory given as the key file is a configuration error.
        let folder = directory("folder", mode: 0o700)
        let directory = try Binary.run(remote + ["--api-key-file", folder, "check", "alice"], env: env)
        XCTAssertEqual(directory.status.rawValue, 78, directory.stderr)
        XCTAssertEqual(directory.stderr, "subs: error: \(folder): cannot read the API key file: is a directory\n")
        XCTAssertEqual(listener.connections, 0)
        // A file of the user's own, 0600, and a pipe (`--api-key-file <(pass show key)`) are used.
        XCTAssertEqual(try Binary.run(remote + ["--api-key-file", key(), "check", "alice"], env: env).status.rawValue, 3)
        let piped = try Binary.run(remote + ["--api-key-file", "/dev/stdin", "check", "alice"], env: env, stdin: "sk_piped_key\n")
        XCTAssertEqual(piped.status.rawValue, 3, piped.stderr)
        XCTAssertTrue(listener.requests.last?.contains("Authorization: Bearer sk_piped_key") == true, listener.requests.last ?? "")
    }

    func testAKeyFileOrALinkToItAnotherUserOwnsIsRefusedEvenToRoot() throws {
        try Prerequisite.root("to give the key file to another user")
        let listener = try XCTUnwrap(LoopbackListener())
        let remote = ["--remote", "http://127.0.0.1:\(listener.port)", "--provider", "subs"]
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        let theirs = key("theirs")
        XCTAssertEqual(chown(theirs, nobody, nobody), 0)
        let result = try Binary.run(remote + ["--api-key-file", theirs, "check", "alice"], env: env)
        XCTAssertEqual(result.status.rawValue, 77, result.stderr)
        XCTAssertEqual(result.stderr, "subs: error: \(theirs): the API key file is owned by another user (\(userName(nobody))); chown root \(theirs)\n")
        // A link another user owns decides which file is read: refused, though it names a good file.
        let mine = key("mine")
        let shared = directory("shared", mode: 0o1777)
        let link = shared + "/key"
        XCTAssertEqual(try shellAs(nobody, "ln -s '\(mine)' '\(link)'").status, 0)
        let linked = try Binary.run(remote + ["--api-key-file", link, "check", "alice"], env: env)
        XCTAssertEqual(linked.status.rawValue, 77, linked.stderr)
        XCTAssertEqual(linked.stderr, "subs: error: \(link): the API key file is a symbolic link owned by another user "
                       + "(\(userName(nobody))); chown -h root \(link), or name the file it points to\n")
        XCTAssertEqual(listener.connections, 0)
        // The user's own link to the user's own file is followed.
        let own = dir.path + "/own-link"
        XCTAssertEqual(symlink(mine, own), 0)
        XCTAssertEqual(try Binary.run(remote + ["--api-key-file", own, "check", "alice"], env: env).status.rawValue, 3)
        // Root's file seen by another user: unreadable when 0600 (permission, 77), refused when it is not.
        let roots = key("roots")
        chmod(dir.path, 0o755)
        let denied = try runAs(nobody, remote + ["--api-key-file", roots, "check", "alice"], env: env)
        XCTAssertEqual(denied.status, 77, denied.stderr)
        XCTAssertTrue(denied.stderr.contains("cannot read the API key file: permission denied"), denied.stderr)
    }
}

final class LockFileOwnerTests: XCTestCase {
    private var dir: TempDir!
    override func setUp() { dir = TempDir() }

    /// The store as readers see it (its journal folded in).
    private func bytes(_ path: String) -> Data { Data(StoreView.folded(path)) }

    private func status(_ path: String) -> stat {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info
    }

    private func exampleStore(at path: String) throws -> String {
        try String(contentsOfFile: Repo.exampleStore, encoding: .utf8).write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Issue 29, item 10: whoever may read a 0644 store could hold its lock and stop every write.
    func testANewLockFileIs0600SoAReaderOfTheStoreCannotHoldIt() throws {
        try Prerequisite.root("to have another user try the lock")
        chmod(dir.path, 0o755)
        let store = try exampleStore(at: dir.path + "/store.json")
        chmod(store, 0o644)
        XCTAssertEqual(try Binary.run(["--store", store, "grant", "alice", "premium", "--lifetime", "-q"]).status.rawValue, 0)
        let lock = store + ".lock"
        XCTAssertEqual(status(lock).st_mode & 0o777, 0o600)
        // Another user who may read the store tries to hold its lock, as flock(1) would (a
        // read-only descriptor is enough for flock): it cannot open it, and writes go on.
        let holder = try startAs(nobody, "exec 9<'\(lock)' && flock 9 && exec sleep 5")
        defer { holder.terminate(); holder.waitUntilExit() }
        usleep(300_000)
        let write = try Binary.run(["--store", store, "grant", "bob", "premium", "--lifetime", "-q"], env: ["SUBS_LOCK_TIMEOUT": "1"])
        XCTAssertEqual(write.status.rawValue, 0, write.stderr)
        holder.waitUntilExit()
        XCTAssertNotEqual(holder.terminationStatus, 0, "the other user opened the lock file")
    }

    func testALockFileAnotherUserPlantedIsRefusedAtOnceNotWaitedFor() throws {
        try Prerequisite.root("to have another user plant the lock file")
        let shared = dir.path + "/shared"
        XCTAssertEqual(mkdir(shared, 0o755), 0)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        let store = try exampleStore(at: shared + "/store.json")
        chmod(store, 0o644)
        let lock = store + ".lock"
        // It holds the lock through the shell's descriptor, then becomes `sleep` (stopping it frees the lock).
        let holder = try startAs(nobody, "touch '\(lock)' && chmod 666 '\(lock)' && exec 9<'\(lock)' && flock 9 && exec sleep 30")
        defer { holder.terminate(); holder.waitUntilExit() }
        let giveUp = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: lock) && Date() < giveUp { usleep(20_000) }
        usleep(200_000)
        let before = bytes(store)
        let started = Date()
        let write = try Binary.run(["--store", store, "grant", "alice", "premium", "--lifetime"], env: ["SUBS_LOCK_TIMEOUT": "10"])
        XCTAssertEqual(write.status.rawValue, 77, write.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "waited for a lock it should refuse")
        XCTAssertTrue(write.stderr.hasPrefix("subs: error: \(store): lock file \(lock) is owned by another user (\(userName(nobody)))"),
                      write.stderr)
        XCTAssertTrue(write.stderr.hasSuffix("store left unchanged\n"), write.stderr)
        XCTAssertEqual(write.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(bytes(store), before)
        // Through serve: the write is refused with the same words, not 503 busy.
        let log = dir.write("serve.log", "")
        let serve = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0"],
                                     stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        defer { serve.terminate(); serve.waitUntilExit() }
        var port: Int?
        while port == nil && serve.isRunning && Date() < giveUp.addingTimeInterval(10) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last ?? "")
            }
            usleep(20_000)
        }
        let client = try RawClient(port: try XCTUnwrap(port))
        let body = #"{"entitlement": "premium", "expirationDate": null}"#
        client.send("POST /v1/customers/alice/grants HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let answer = try XCTUnwrap(client.readResponse(timeout: 20))
        XCTAssertEqual(answer.status, 500, answer.text)
        XCTAssertEqual(answer.errorCode, "store_unwritable", answer.text)
        XCTAssertTrue(answer.text.contains("owned by another user"), answer.text)
        XCTAssertEqual(bytes(store), before)
        // A user who is not root is refused a third user's lock file alike.
        let theirs = dir.path + "/theirs"
        XCTAssertEqual(mkdir(theirs, 0o755), 0)
        XCTAssertEqual(chown(theirs, nobody, nobody), 0)
        let store2 = try exampleStore(at: theirs + "/store.json")
        XCTAssertEqual(chown(store2, nobody, nobody), 0)
        XCTAssertEqual(close(open(store2 + ".lock", O_CREAT | O_RDWR, 0o666)), 0)
        XCTAssertEqual(chmod(store2 + ".lock", 0o666), 0)
        XCTAssertEqual(chown(store2 + ".lock", 4242, 4242), 0)
        let third = try runAs(nobody, ["--store", store2, "grant", "alice", "premium", "--lifetime"])
        XCTAssertEqual(third.status, 77, third.stderr)
        XCTAssertTrue(third.stderr.contains("is owned by another user (\(userName(4242)))"), third.stderr)
    }

    func testRootWritingAUsersStoreLeavesALockFileTheUserCanTake() throws {
        try Prerequisite.root("to write another user's store")
        let home = dir.path + "/home"
        XCTAssertEqual(mkdir(home, 0o755), 0)
        XCTAssertEqual(chown(home, nobody, nobody), 0)
        let store = try exampleStore(at: home + "/store.json")
        XCTAssertEqual(chown(store, nobody, nobody), 0)
        XCTAssertEqual(try Binary.run(["--store", store, "grant", "alice", "premium", "--lifetime", "-q"]).status.rawValue, 0)
        let lock = status(store + ".lock")
        XCTAssertEqual(lock.st_uid, nobody)
        XCTAssertEqual(lock.st_mode & 0o777, 0o600)
        let user = try runAs(nobody, ["--store", store, "grant", "bob", "premium", "--lifetime", "-q"])
        XCTAssertEqual(user.status, 0, user.stderr)
        // Root takes the lock file of the store's owner.
        XCTAssertEqual(try Binary.run(["--store", store, "revoke", "bob", "premium", "-q"]).status.rawValue, 0)
    }

    func testAGroupOfWritersSharesALockFileRootMadeForThem() throws {
        try Prerequisite.root("to run writers of one group")
        let group: gid_t = 4242
        let shared = dir.path + "/team"
        XCTAssertEqual(mkdir(shared, 0o755), 0)
        XCTAssertEqual(chown(shared, 0, group), 0)
        XCTAssertEqual(chmod(shared, 0o2775), 0)
        let store = try exampleStore(at: shared + "/store.json")
        XCTAssertEqual(chown(store, nobody, group), 0)
        XCTAssertEqual(chmod(store, 0o660), 0)
        // What the documentation says: install -o root -g GROUP -m 660 /dev/null STORE.lock
        let made = try runProcess("/usr/bin/install", ["-o", "root", "-g", String(group), "-m", "660", "/dev/null", store + ".lock"])
        XCTAssertEqual(made.status, 0, made.stderr)
        for (writer, customer) in [(nobody, "alice"), (uid_t(4243), "bob"), (nobody, "carol")] {
            let result = try runAs(writer, gid: group, ["--store", store, "grant", customer, "premium", "--lifetime", "-q"])
            XCTAssertEqual(result.status, 0, "\(writer): \(result.stderr)")
        }
        let lock = status(store + ".lock")
        XCTAssertEqual([lock.st_uid, lock.st_gid, lock.st_mode & 0o777], [0, group, 0o660])
        let doc = try JSON.parse(Array(bytes(store)))
        for customer in ["alice", "bob", "carol"] {
            XCTAssertTrue(doc["customers"]?[customer]?["grants"]?.arrayValue?.contains { $0["entitlement"]?.stringValue == "premium" } == true,
                          customer)
        }
        // Someone outside the group can neither open the lock nor hold it.
        let outsider = try shellAs(4244, "exec flock -n '\(store).lock' true")
        XCTAssertNotEqual(outsider.status, 0)
    }
}
