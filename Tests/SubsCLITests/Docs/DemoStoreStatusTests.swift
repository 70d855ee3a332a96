// The demo-customer table (docs/reference.md) is the truth: every row must match what
// `subs --store examples/store.json check CUSTOMER --json` says at the reference instant.

import SubsJSON
import XCTest

final class DemoStoreStatusTests: XCTestCase {
    struct Row {
        var customer: String
        var entitlement: String
        var cells: [String: String]
    }

    /// Rows of the table under "## Demo customers" in docs/reference.md (moved there from the
    /// README); continuation rows repeat the customer.
    func readmeRows() throws -> [Row] {
        let readme = try String(contentsOfFile: Repo.path("docs/reference.md"), encoding: .utf8)
        let after = try XCTUnwrap(readme.components(separatedBy: "## Demo customers").dropFirst().first)
        let section = after.components(separatedBy: "\n## ").first ?? after
        let lines = section.split(separator: "\n").filter { $0.hasPrefix("|") }
        let header = try XCTUnwrap(lines.first).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        var rows: [Row] = []
        var customer = ""
        for line in lines.dropFirst(2) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "**", with: "")
                    .replacingOccurrences(of: "`", with: "") }
            var byName: [String: String] = [:]
            for (name, cell) in zip(header, cells) { byName[name] = cell }
            if let c = byName["customer"], !c.isEmpty { customer = c }
            rows.append(Row(customer: customer, entitlement: byName["entitlement"] ?? "", cells: byName))
        }
        return rows
    }

    func testEveryDemoCustomerShowsTheStateTheReadmeSays() throws {
        let rows = try readmeRows()
        XCTAssertGreaterThanOrEqual(Set(rows.map(\.customer)).count, 12)
        for row in rows {
            let result = runCLI(["--store", Repo.exampleStore, "check", row.customer, "--json"], now: "2026-12-01T12:00:00Z")
            XCTAssertEqual(result.status, .success, "\(row.customer): \(result.stderr)")
            let doc = try JSON.parse(result.stdout)
            if row.entitlement == "—" {
                XCTAssertEqual(doc["entitlements"], .object(JSONObject()), row.customer)
                continue
            }
            let e = try XCTUnwrap(doc["entitlements"]?[row.entitlement], "\(row.customer) \(row.entitlement)")
            let expected: [(String, String)] = [("state", "state"), ("active", "isActive"), ("renew", "renewState"),
                                                 ("period", "periodType"), ("grant", "grantType"), ("renews", "renewsCount")]
            for (column, key) in expected {
                guard let want = row.cells[column] else { continue }
                let got: String
                switch e[key] {
                case .string(let s)?: got = s
                case .bool(let b)?: got = String(b)
                case .number(let n)?: got = n
                default: got = "null"
                }
                XCTAssertEqual(got, want, "\(row.customer) \(row.entitlement) \(key)")
            }
        }
    }

    /// Without --at, inside the documented window, the states are the same.
    func testStatesHoldThroughoutTheDocumentedWindow() throws {
        let customers = Set(try readmeRows().map(\.customer))
        for customer in customers {
            let at = { (now: String) -> JSONValue? in
                try? JSON.parse(runCLI(["--store", Repo.exampleStore, "check", customer, "--json"], now: now).stdout)["entitlements"]
            }
            let reference = at("2026-12-01T12:00:00Z")
            XCTAssertEqual(at("2026-11-20T00:00:00Z").map(strip), reference.map(strip), customer)
            XCTAssertEqual(at("2026-12-04T23:59:59Z").map(strip), reference.map(strip), customer)
        }
    }

    /// The fields that do not depend on T (everything but the transactions listed, which are ≤ T).
    private func strip(_ value: JSONValue) -> JSONValue {
        guard case .object(var o) = value else { return value }
        for member in o.members {
            if case .object(var e) = member.value {
                e["transactions"] = nil
                o[member.key] = .object(e)
            }
        }
        return .object(o)
    }
}
