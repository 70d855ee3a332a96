// The OpenAPI description is generated from the route table the server dispatches on: every
// route the server answers is described and every described operation answers (never 404 or
// 405); a method a path does not take is 405 with Allow; the public routes need no token and say
// `security: []`, the others name their scope and refuse without a token; the committed
// docs/openapi.json is what the server serves (SUBS_RECORD=1 rewrites it); and an OpenAPI
// validator that is not ours accepts it (openapi-spec-validator from PyPI or Debian: skipped
// here when missing, required under CI=true).

import Foundation
import XCTest
import SubsJSON
import TestSupport
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsServer

final class OpenAPIDocumentTests: XCTestCase {
    private var dir: TempDir!
    private var path = ""
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!

    override func setUp() {
        dir = TempDir()
        path = dir.write("store.json", DemoStore.json)
    }

    override func tearDown() { dir = nil }

    private func api(tokens: ServeTokens? = nil) -> SubsAPI {
        SubsAPI(store: LocalStore(path: path), tokens: tokens, clock: FixedClock(now))
    }

    private func request(_ method: String, _ target: String, body: String = "", headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    private var served: JSONValue {
        get throws {
            let answer = api().handle(request("GET", "/v1/openapi.json"))
            XCTAssertEqual(answer.status, 200)
            return try JSON.parse(answer.body)
        }
    }

    /// Every operation of the description: (METHOD, path template).
    private func operations(_ document: JSONValue) -> [(String, String, JSONValue)] {
        var out: [(String, String, JSONValue)] = []
        for path in document["paths"]?.objectValue?.members ?? [] {
            for operation in path.value.objectValue?.members ?? [] { out.append((operation.key.uppercased(), path.key, operation.value)) }
        }
        return out
    }

    /// A concrete target for a template: the demo store's erin and premium.
    private func target(_ template: String) -> String {
        template.replacingOccurrences(of: "{id}", with: "erin").replacingOccurrences(of: "{entitlement}", with: "premium")
    }

    func testTheCommittedDescriptionIsTheServedOne() throws {
        let answer = api().handle(request("GET", "/v1/openapi.json"))
        XCTAssertEqual(answer.headers.first { $0.0 == "Content-Type" }?.1, "application/json")
        let text = String(decoding: answer.body, as: UTF8.self)
        let file = Repo.path("docs/openapi.json")
        if ProcessInfo.processInfo.environment["SUBS_RECORD"] == "1" {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            XCTFail("recorded docs/openapi.json; run again without SUBS_RECORD to check it")
            return
        }
        let committed = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertEqual(committed, text, "docs/openapi.json differs from what the server serves: SUBS_RECORD=1 swift test --filter OpenAPIDocumentTests")
    }

    func testEveryDescribedOperationAnswersAndEveryRouteIsDescribed() throws {
        let document = try served
        XCTAssertEqual(document["openapi"], .string("3.1.0"))
        let described = operations(document)
        XCTAssertFalse(described.isEmpty)
        // Every route of the table is described, with its method (and HEAD beside each GET).
        for route in APIRoutes.all {
            XCTAssertTrue(described.contains { $0.0 == route.method && $0.1 == route.path }, "\(route.method) \(route.path) is not described")
            if route.method == "GET" {
                XCTAssertTrue(described.contains { $0.0 == "HEAD" && $0.1 == route.path }, "HEAD \(route.path) is not described")
            }
        }
        // Every described operation answers: never 404 not_found nor 405, and one of its described statuses.
        for (method, template, operation) in described {
            let body = method == "POST" && template.hasSuffix("grants") ? #"{"entitlement": "premium", "expirationDate": null}"# : ""
            let answer = api().handle(request(method, target(template), body: body))
            XCTAssertNotEqual(answer.status, 405, "\(method) \(template)")
            if answer.status == 404 {
                XCTAssertNotEqual(try JSON.parse(answer.body)["error"]?["code"], .string("not_found"), "\(method) \(template)")
            }
            XCTAssertNotNil(operation["responses"]?[String(answer.status)], "\(method) \(template) answered \(answer.status), not described")
            XCTAssertTrue(answer.headers.contains { $0.0 == SubsAPI.requestIdHeader }, "\(method) \(template): no request id")
        }
        // And nothing else answers: a path next to the described ones is 404, a method not described is 405 with Allow.
        for target in ["/v2", "/v1/customers/erin/entitlements/premium", "/v1/customers/erin/grants/1", "/v1/audits", "/v1/health/x"] {
            XCTAssertEqual(api().handle(request("GET", target)).status, 404, target)
        }
        for (template, methods) in Dictionary(grouping: described, by: { $0.1 }) {
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] where !methods.contains(where: { $0.0 == method }) {
                let answer = api().handle(request(method, target(template)))
                XCTAssertEqual(answer.status, 405, "\(method) \(template)")
                let allow = answer.headers.first { $0.0 == "Allow" }?.1 ?? ""
                XCTAssertEqual(Set(allow.components(separatedBy: ", ")), Set(methods.map(\.0)), "\(method) \(template): Allow")
            }
        }
    }

    func testPublicRoutesSaySoAndTheOthersNameTheirScopeAndRefuseWithoutAToken() throws {
        let tokens = ServeTokens([ServeToken(name: "dana", scopes: [.read], secret: "t0ken")])
        for (method, template, operation) in operations(try served) {
            let security = operation["security"]?.arrayValue
            let answer = api(tokens: tokens).handle(request(method, target(template)))
            if ["/", "/v1", "/v1/health", "/v1/openapi.json"].contains(template) {
                XCTAssertEqual(security, [], "\(template) must declare security: []")
                XCTAssertEqual(answer.status, 200, "\(method) \(template) without a token")
            } else {
                let scope = security?.first?["bearer"]?.arrayValue?.first?.stringValue
                XCTAssertNotNil(scope.flatMap(TokenScope.init(rawValue:)), "\(method) \(template) names no scope")
                XCTAssertEqual(answer.status, 401, "\(method) \(template) without a token")
                XCTAssertNotNil(operation["responses"]?["401"], "\(method) \(template) does not describe its 401")
            }
        }
    }

    func testTheRouteListNamesEveryRoute() throws {
        for target in ["/", "/v1"] {
            let list = try JSON.parse(api().handle(request("GET", target)).body)
            let routes = list["routes"]?.arrayValue ?? []
            XCTAssertEqual(routes.count, APIRoutes.all.count, target)
            for (listed, route) in zip(routes, APIRoutes.all) {
                XCTAssertEqual(listed["method"], .string(route.method))
                XCTAssertEqual(listed["path"], .string(route.path))
                XCTAssertEqual(listed["scope"], route.scope.map { .string($0.rawValue) } ?? .null)
            }
        }
    }

    /// The examples are what the routes answer on the demo store at the examples' instant.
    func testTheExamplesAreWhatTheRoutesAnswerOnTheDemoStore() throws {
        let document = try served
        let cases = [("/v1/customers/{id}/entitlements", "/v1/customers/erin/entitlements"),
                     ("/v1/customers/{id}/history", "/v1/customers/erin/history"),
                     ("/v1/customers/alice/renew-count", "/v1/customers/alice/renew-count"),
                     ("/v1/customers/{id}", "/v1/customers/erin")]
        for (template, target) in cases {
            let path = template.contains("alice") ? "/v1/customers/{id}/renew-count" : template
            guard let example = document["paths"]?[path]?["get"]?["responses"]?["200"]?["content"]?["application/json"]?["example"] else {
                XCTFail("\(path): no example")
                continue
            }
            let answer = try JSON.parse(api().handle(request("GET", target)).body)
            XCTAssertEqual(JSONWriter.compact(answer), JSONWriter.compact(example), path)
        }
    }

    func testAnOpenAPIValidatorAcceptsTheDescription() throws {
        let python = try Prerequisite.tool("python3")
        let probe = try runProcess(python, ["-c", "import openapi_spec_validator"])
        if probe.status != 0 {
            try Prerequisite.missing("python3 has no openapi_spec_validator: CI installs it (.ci/run: python3-openapi-spec-validator, else pip)")
        }
        let file = dir.write("openapi.json", OpenAPIDocument.text)
        let script = "import json,sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(open(sys.argv[1])))\nprint('valid')"
        let result = try runProcess(python, ["-c", script, file])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "valid\n")
        // A broken description is refused: the validator is not a rubber stamp.
        let broken = dir.write("broken.json", OpenAPIDocument.text.replacingOccurrences(of: #""responses""#, with: #""answers""#))
        XCTAssertNotEqual(try runProcess(python, ["-c", script, broken]).status, 0)
    }
}
