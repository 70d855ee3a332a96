// The subs REST API's POST bodies are strict (SPEC section 6): an unknown field is 400 naming it
// and the nearest known name, `expirationDate` must be present (null = lifetime), `create` makes
// a missing customer; a refusal writes nothing. And each local failure gets the code the client
// maps to the local exit status.

import XCTest
import SubsJSON
@testable import SubsHTTP
@testable import SubsKit

final class SubsAPIBodyTests: XCTestCase {
    private var dir = ""
    private var path = ""
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "subs-api-body-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        path = dir + "/store.json"
        try DemoStore.json.write(toFile: path, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func api() -> SubsAPI { SubsAPI(store: LocalStore(path: path), token: nil, clock: FixedClock(now)) }

    private func post(_ api: SubsAPI, _ target: String, _ body: String) -> HTTPResponse {
        api.handle(HTTPRequest(method: "POST", target: target, headers: HTTPHeaders([]), body: Array(body.utf8)))
    }

    private func error(_ response: HTTPResponse) -> (code: String?, message: String?) {
        let doc = try? JSON.parse(response.body)
        return (doc?["error"]?["code"]?.stringValue, doc?["error"]?["message"]?.stringValue)
    }

    func testAnUnknownFieldIsRefusedNamingItAndTheNearestKnownName() throws {
        let grants = "/v1/customers/trent/grants", revoke = "/v1/customers/alice/entitlements/premium/revoke"
        let fields = "(fields: entitlement, expirationDate, reason, grantedBy, create)"
        let cases: [(String, String, String)] = [
            (grants, #"{"entitlement": "premium", "expiresAt": "2027-01-01T00:00:00Z"}"#,
             "'expiresAt' is not a field of a grant; did you mean 'expirationDate'? \(fields)"),
            (grants, #"{"entitlement": "premium", "expirationDate": null, "expiry": "2027-01-01T00:00:00Z"}"#,
             "'expiry' is not a field of a grant; did you mean 'expirationDate'? \(fields)"),
            (grants, #"{"entitlement": "premium", "until": "2027-01-01T00:00:00Z", "expirationDate": null}"#,
             "'until' is not a field of a grant; did you mean 'expirationDate'? \(fields)"),
            (grants, #"{"Entitlement": "premium", "expirationDate": null}"#,
             "'Entitlement' is not a field of a grant; did you mean 'entitlement'? \(fields)"),
            (grants, #"{"entitlement": "premium", "expirationDate": null, "actor": "dana"}"#,
             "'actor' is not a field of a grant; did you mean 'grantedBy'? \(fields)"),
            (grants, #"{"entitlement": "premium", "expirationDate": null, "reasn": "x"}"#,
             "'reasn' is not a field of a grant; did you mean 'reason'? \(fields)"),
            (grants, #"{"entitlement": "premium", "expirationDate": null, "creat": true}"#,
             "'creat' is not a field of a grant; did you mean 'create'? \(fields)"),
            (revoke, #"{"reason": "x", "grantedBy": "dana"}"#,
             "'grantedBy' is not a field of a revoke; did you mean 'revokedBy'? (fields: reason, revokedBy)"),
            (revoke, #"{"actor": "dana"}"#, "'actor' is not a field of a revoke; did you mean 'revokedBy'? (fields: reason, revokedBy)"),
            (revoke, #"{"revokeReason": "x"}"#, "'revokeReason' is not a field of a revoke; did you mean 'reason'? (fields: reason, revokedBy)"),
            // Required, even for a lifetime grant: a misspelt end must never become one.
            (grants, #"{"entitlement": "premium"}"#, "expirationDate: required (null for a lifetime grant)"),
            (grants, #"{"entitlement": "premium", "reason": "goodwill"}"#, "expirationDate: required (null for a lifetime grant)"),
            (grants, #"{"entitlement": "premium", "expirationDate": null, "create": "yes"}"#, "create: true or false when given"),
            (grants, #"{"entitlement": "premium", "expirationDate": 1798761600}"#, "expirationDate: a date-time string or null"),
        ]
        let api = api()
        for (target, body, message) in cases {
            let answer = post(api, target, body)
            XCTAssertEqual(answer.status, 400, body)
            XCTAssertEqual(error(answer).code, "invalid_request", body)
            XCTAssertEqual(error(answer).message, message, body)
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), DemoStore.json, "nothing written")
        // A huge unknown name is shown shortened, and answered at once.
        let long = String(repeating: "x", count: 200_000)
        let answer = post(api, grants, #"{"\#(long)": 1, "entitlement": "premium", "expirationDate": null}"#)
        XCTAssertEqual(answer.status, 400)
        XCTAssertLessThan(error(answer).message?.count ?? .max, 300)
        // The known fields, each well typed, are accepted; null stands for absent where optional.
        let ok = post(api, grants, #"{"entitlement": "premium", "expirationDate": null, "reason": null, "grantedBy": "dana", "create": false}"#)
        XCTAssertEqual(ok.status, 201, String(decoding: ok.body, as: UTF8.self))
        XCTAssertEqual(post(api, "/v1/customers/trent/entitlements/premium/revoke", #"{"reason": "x", "revokedBy": null}"#).status, 200)
    }

    func testCreateMakesAMissingCustomerAndSaysSoInAHeader() throws {
        let api = api()
        let refused = post(api, "/v1/customers/newbie/grants", #"{"entitlement": "premium", "expirationDate": null}"#)
        XCTAssertEqual(refused.status, 404)
        XCTAssertEqual(error(refused).code, "customer_not_found")
        // The hint names what exists where it is read: the body field, not the CLI's --create.
        XCTAssertEqual(error(refused).message, #"customer 'newbie' not found (send "create": true to create it); nothing written"#)
        let revoke = post(api, "/v1/customers/newbie/entitlements/premium/revoke", #"{"reason": "x"}"#)
        XCTAssertEqual(error(revoke).code, "customer_not_found")
        XCTAssertEqual(error(revoke).message, "customer 'newbie' not found; nothing written", "revoke creates nobody: no hint")
        XCTAssertEqual(post(api, "/v1/customers/newbie/grants", #"{"entitlement": "premium", "expirationDate": null, "create": false}"#).status, 404)

        let created = post(api, "/v1/customers/newbie/grants",
                           #"{"entitlement": "premium", "expirationDate": "2027-01-01T00:00:00Z", "create": true, "grantedBy": "dana"}"#)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created.headers.first { $0.0 == SubsAPI.createdHeader }?.1, "true")
        let doc = try JSON.parse(created.body)
        XCTAssertEqual(doc.objectValue?.keys, ["requestDate", "customer", "products"], "the GET's shape")
        XCTAssertEqual(doc["customer"]?["id"], .string("newbie"))
        XCTAssertEqual(doc["customer"]?["firstSeen"], .string("2026-12-01T12:00:00Z"))
        XCTAssertEqual(doc["customer"]?["grants"]?.arrayValue?.first?["id"], .string("grant-1"))
        XCTAssertEqual(doc["customer"]?["grants"]?.arrayValue?.first?["grantedBy"], .string("dana"))
        let record = try XCTUnwrap(try LocalStore(path: path).lookup(["newbie"]).records.first ?? nil)
        XCTAssertEqual(record.grants.map(\.id), ["grant-1"])
        // Once it exists, --create is only a grant: no header.
        let again = post(api, "/v1/customers/newbie/grants", #"{"entitlement": "premium", "expirationDate": null, "create": true}"#)
        XCTAssertEqual(again.status, 201)
        XCTAssertNil(again.headers.first { $0.0 == SubsAPI.createdHeader })
        XCTAssertEqual(try StoreValidator.problems(path: path), [])
    }

    func testRequestsCommittedTogetherCreateACustomerOnceAndThenChangeIt() throws {
        let grant = { (create: Bool) in
            ChangeRequest(change: .grant(entitlement: "premium", expirationDate: nil, reason: nil, actor: nil, createMissing: create), id: "newbie")
        }
        let results = try LocalStore(path: path).applyEach(
            [grant(false), grant(true), grant(false), grant(true),
             ChangeRequest(change: .revoke(entitlement: "premium", reason: nil, actor: nil), id: "newbie")], now: now)
        guard case .failure(.customersNotFound(["newbie"])) = results[0] else { return XCTFail("\(results[0])") }
        let created = results.dropFirst().map { try? $0.get() }
        XCTAssertEqual(created.map { $0?.created }, [true, false, false, false])
        XCTAssertEqual(created.map { $0?.record["grants"]?.arrayValue?.count }, [1, 2, 3, 3])
        let record = try XCTUnwrap(try LocalStore(path: path).lookup(["newbie"]).records.first ?? nil)
        XCTAssertEqual(record.grants.map(\.id), ["grant-1", "grant-2", "grant-3"])
        XCTAssertEqual(record.grants.map { $0.revokedAt != nil }, [true, true, true])
        XCTAssertEqual(try StoreValidator.problems(path: path), [])
    }

    func testEachLocalFailureHasTheCodeTheClientMapsToTheLocalStatus() {
        let api = api()
        let cases: [(Error, Bool, Int, String)] = [
            (StoreError.syntax(path: path, error: JSONError(message: "expected ','", offset: 1, line: 1, column: 2)), false, 500, "invalid_store"),
            (StoreError.invalid(path: path, problems: [StoreProblem(path: "customers", message: "required")]), true, 500, "invalid_store"),
            (StoreError.missing(path: path), false, 500, "store_unreadable"),
            (StoreError.unreadable(path: path, reason: "I/O error"), true, 500, "store_unreadable"),
            (StoreError.permissionDenied(path: path, reason: "permission denied reading the store"), false, 500, "store_unreadable"),
            (StoreError.permissionDenied(path: path, reason: "creating a temporary file: permission denied"), true, 500, "store_unwritable"),
            (StoreError.cannotWrite(path: path, reason: "No space left on device"), true, 500, "store_unwritable"),
            (StoreError.lockTimeout(path: path, seconds: 10), true, 503, "busy"),
            (ChangeError.expirationNotInFuture(now), true, 400, "invalid_request"),
            (ChangeError.customersNotFound(["x"]), true, 404, "customer_not_found"),
            (ChangeError.unknownEntitlement("premum", suggestion: "premium"), true, 404, "entitlement_not_found"),
            (ChangeError.nothingToRevoke(entitlement: "premium", customers: ["x"]), true, 404, "grant_not_found"),
            (CocoaError(.fileReadUnknown), false, 500, "internal"),
        ]
        for (failure, writing, status, code) in cases {
            let answer = api.failure(failure, writing: writing)
            XCTAssertEqual(answer.status, status, "\(failure)")
            XCTAssertEqual(error(answer).code, code, "\(failure)")
            // subs's own errors carry their sentence into the answer; Foundation's are wrapped.
            if !(failure is CocoaError) {
                let described = String(describing: failure)
                XCTAssertTrue(error(answer).message?.contains(described) == true, "\(failure): \(error(answer).message ?? "")")
            }
            // Every hint names something that exists where it is read: an HTTP client runs no subs command.
            XCTAssertFalse(error(answer).message?.contains("subs ") == true, "\(failure): \(error(answer).message ?? "")")
        }
        XCTAssertEqual(api.failure(StoreError.lockTimeout(path: path, seconds: 10)).headers.first { $0.0 == "Retry-After" }?.1, "1")
    }
}
