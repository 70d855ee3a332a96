// The values tables of docs/providers.md ("RevenueCat values", "Qonversion values", "IAPHUB values"
// under "How subs maps to the platforms", moved there from the README) are the contract for every
// enum value a platform sends: each row is read out of that page, put into an answer of that platform, decoded and mapped as `check`
// does, and the subs field of the `check --json` entitlement must hold the value the row says.
// A row this test cannot put into an answer fails it, so the tables stay machine-checkable.

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsProviders
@testable import SubsCLI

final class PlatformValuesTableTests: XCTestCase {
    struct Row: CustomStringConvertible {
        var field: String
        /// nil: `(absent)`; `*`: any value not listed.
        var value: String?
        var subsField: String
        var subsValue: String
        var description: String { "\(field) = \(value ?? "(absent)") → \(subsField) = \(subsValue)" }
    }

    /// A value no platform sends, standing for `*`.
    static let anyOther = "subs_probe_value_nobody_sends"

    /// The rows of the table under `#### HEADING`.
    func rows(_ heading: String) throws -> [Row] {
        let readme = try String(contentsOfFile: Repo.path("docs/providers.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n#### \(heading)\n"), "docs/providers.md has no '#### \(heading)'")
        var rows: [Row] = []
        var inTable = false
        for line in readme[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "field" || line.hasPrefix("|---") { continue }
            XCTAssertEqual(cells.count, 4, "\(heading): row \(line) is not | field | value | subs field | subs value |")
            guard cells.count == 4 else { continue }
            func code(_ cell: String) -> String {
                XCTAssertTrue(cell.hasPrefix("`") && cell.hasSuffix("`") && cell.count >= 2, "\(heading): \(cell) is not `code`")
                return String(cell.dropFirst().dropLast())
            }
            let value = code(cells[1])
            rows.append(Row(field: code(cells[0]), value: value == "(absent)" ? nil : value == "*" ? Self.anyOther : value,
                            subsField: code(cells[2]), subsValue: code(cells[3])))
        }
        XCTAssertGreaterThan(rows.count, 10, "the \(heading) table was not found or not read")
        return rows
    }

    /// The `check --json` value a row names, as the README writes it (`true`, `appstore`).
    private func shown(_ e: EntitlementInfo, _ field: String) -> String? {
        switch Documents.entitlement(e)[field] {
        case .string(let s)?: return s
        case .bool(let b)?: return b ? "true" : "false"
        case .null?: return "null"
        case let other?: return "\(other)"
        case nil: return nil
        }
    }

    private func check(_ row: Row, _ e: EntitlementInfo?, file: StaticString = #filePath, line: UInt = #line) {
        guard let e else { return XCTFail("\(row): no entitlement", file: file, line: line) }
        XCTAssertEqual(shown(e, row.subsField), row.subsValue, "\(row)", file: file, line: line)
    }

    /// `object` with `path` (dotted) set to the value (a string), or removed for `(absent)`.
    private func setting(_ object: JSONObject, _ path: [String], _ value: String?) -> JSONObject {
        var object = object
        guard let key = path.first else { return object }
        if path.count == 1 {
            if let value { object[key] = .string(value) } else { object[key] = nil }
        } else {
            object[key] = .object(setting(object[key]?.objectValue ?? JSONObject(), Array(path.dropFirst()), value))
        }
        return object
    }

    private func object(_ text: String) throws -> JSONObject {
        try XCTUnwrap(try JSON.parse(text).objectValue)
    }

    func testEveryRevenueCatValueMapsAsTheREADMESays() throws {
        let known = ["store", "period_type", "ownership_type"]
        let subscription = try object("""
            {"store": "app_store", "period_type": "normal", "ownership_type": "PURCHASED", "is_sandbox": false,
             "original_purchase_date": "2026-01-01T00:00:00Z", "purchase_date": "2026-11-01T00:00:00Z",
             "expires_date": "2027-01-01T00:00:00Z"}
            """)
        for row in try rows("RevenueCat values") {
            XCTAssertTrue(known.contains(row.field), "\(row): a field this test cannot set")
            let sub = setting(subscription, [row.field], row.value)
            let body = JSONValue.object(JSONObject([
                ("request_date", .string("2026-12-01T12:00:00Z")),
                ("subscriber", .object(JSONObject([
                    ("entitlements", .object(JSONObject([("premium", .object(JSONObject([
                        ("product_identifier", .string("p")), ("expires_date", .string("2027-01-01T00:00:00Z")),
                        ("purchase_date", .string("2026-11-01T00:00:00Z"))])))]))),
                    ("subscriptions", .object(JSONObject([("p", .object(sub))]))),
                ]))),
            ]))
            let s = try RevenueCatSubscriber.decode(Array(JSONWriter.compact(body).utf8))
            XCTAssertEqual(s.problems, [], "\(row)")
            check(row, RevenueCatMapping.status(s, requestedId: "u", at: s.requestDate).entitlements.first)
        }
    }

    func testEveryQonversionValueMapsAsTheREADMESays() throws {
        let known = ["source", "product.subscription.renew_state", "product.subscription.current_period_type"]
        let entitlement = try object("""
            {"id": "premium", "active": true, "started": 1790000000, "expires": 1800000000, "source": "appstore",
             "product": {"product_id": "p", "subscription": {"renew_state": "will_renew", "current_period_type": "normal"}}}
            """)
        for row in try rows("Qonversion values") {
            XCTAssertTrue(known.contains(row.field), "\(row): a field this test cannot set")
            let element = setting(entitlement, row.field.split(separator: ".").map(String.init), row.value)
            let body = JSONWriter.compact(.object(JSONObject([("data", .array([.object(element)]))])))
            let list = try QonversionWire.entitlements(Array(body.utf8))
            XCTAssertEqual(list.problems, [], "\(row)")
            check(row, QonversionSource.describe(list.entitlements, projectedTo: nil).first)
        }
    }

    func testEveryIAPHUBValueMapsAsTheREADMESays() throws {
        let known = ["subscriptionState", "subscriptionPeriodType", "platform", "type"]
        let product = try object("""
            {"id": "5e5198930c48ed07aa275fd9", "type": "renewable_subscription", "sku": "pro_monthly", "platform": "ios",
             "group": "3e5198930c48ed07aa275fd7", "groupName": "premium", "purchaseDate": "2026-11-20T10:00:00.000Z",
             "expirationDate": "2026-12-20T10:00:00.000Z", "isSubscriptionRenewable": true,
             "subscriptionState": "active", "subscriptionPeriodType": "normal"}
            """)
        for row in try rows("IAPHUB values") {
            XCTAssertTrue(known.contains(row.field), "\(row): a field this test cannot set")
            let body = JSONWriter.compact(.object(JSONObject([("activeProducts", .array([.object(setting(product, [row.field], row.value))]))])))
            let answer = try IAPHUBAnswer.decode(Array(body.utf8))
            XCTAssertEqual(answer.problems, [], "\(row)")
            check(row, IAPHUBSource.entitlements(answer, environment: "production").first)
        }
    }

    /// The tables name every value the decoders know, so a value added to the code without a row
    /// (or a row without code) is seen: each known value of these fields appears in its table.
    func testTheTablesListEveryValueTheCodeKnows() throws {
        let revenueCat = Set(try rows("RevenueCat values").map { "\($0.field)=\($0.value ?? "")" })
        for value in ["app_store", "mac_app_store", "play_store", "stripe", "amazon", "promotional"] {
            XCTAssertTrue(revenueCat.contains("store=\(value)"), value)
        }
        for value in ["normal", "trial", "intro", "prepaid"] { XCTAssertTrue(revenueCat.contains("period_type=\(value)"), value) }
        let qonversion = Set(try rows("Qonversion values").map { "\($0.field)=\($0.value ?? "")" })
        for value in ["will_renew", "canceled", "billing_issue", "non_renewable"] {
            XCTAssertTrue(qonversion.contains("product.subscription.renew_state=\(value)"), value)
        }
        let iaphub = Set(try rows("IAPHUB values").map { "\($0.field)=\($0.value ?? "")" })
        for value in ["active", "grace_period", "retry_period", "paused"] {
            XCTAssertTrue(iaphub.contains("subscriptionState=\(value)"), value)
        }
    }
}
