// Every cell of the check table agrees with the sentence under it and with the JSON, in words a
// person uses; the facts a support agent needs (sandbox, family sharing, offer codes, another
// source still billing) are on the screen.

import Foundation
import SubsJSON
import XCTest

final class ScreenTruthTests: XCTestCase {
    struct Row {
        var entitlement: String
        var status: String
        var until: String
        var product: String
        var notes: String
    }

    /// The rows and sentences of a piped check table (cells are separated by two spaces or more).
    func table(_ id: String, at: String) -> (rows: [Row], sentences: [String: String]) {
        let text = screen(["check", id], columns: nil, at: at).stdout
        var rows: [Row] = []
        var sentences: [String: String] = [:]
        var inTable = false
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("ENTITLEMENT") { inTable = true; continue }
            guard inTable else { continue }
            let cells = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if cells.count >= 4 {
                rows.append(Row(entitlement: cells[0], status: cells[1], until: cells[2], product: cells[3],
                                notes: cells.count > 4 ? cells[4] : ""))
            } else if let colon = line.range(of: ": ") {
                sentences[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
            }
        }
        return (rows, sentences)
    }

    static let instants = ["2025-06-01", "2025-12-01", "2026-03-01", "2026-07-01", "2026-08-05", "2026-09-10",
                           "2026-10-04", "2026-10-10", "2026-10-25", "2026-11-07", "2026-11-13", "2026-11-20",
                           "2026-12-01T12:00Z", "2026-12-11", "2026-12-13", "2027-01-12", "2027-03-01", "2027-12-01"]

    func testEveryCellAgreesWithItsSentenceAndTheJSON() throws {
        let apiWords = ["gracePeriod", "billingRetry", "nonRenewable", "willRenew", "billingIssue", "canceled", "unknown"]
        for id in try demoCustomerIds() {
            for at in Self.instants {
                let (rows, sentences) = table(id, at: at)
                let doc = try JSON.parse(screen(["check", id, "--json"], columns: nil, at: at).stdout)
                let t = try XCTUnwrap(doc["requestDate"]?.stringValue)
                XCTAssertEqual(rows.map(\.entitlement), doc["entitlements"]?.objectValue?.keys ?? [], "\(id) at \(at)")
                for row in rows {
                    let label = "\(id).\(row.entitlement) at \(at)"
                    let e = try XCTUnwrap(doc["entitlements"]?[row.entitlement])
                    let sentence = sentences[row.entitlement] ?? ""
                    for word in apiWords { XCTAssertFalse(row.status.contains(word), "\(label): API word in '\(row.status)'") }
                    // Access now: "active, …", or the grace period (whose sentence says access ends at its end).
                    XCTAssertEqual(row.status.hasPrefix("active") || row.status == "grace period", e["isActive"] == .bool(true), label)
                    // "renews" only when the entitlement continues past this period.
                    XCTAssertEqual(row.status == "active, renews", e["willRenew"] == .bool(true), "\(label): \(row.status)")
                    if row.status == "active, renews" {
                        for word in ["cancelled", "does not include", "pause", "billing", "ends "] {
                            XCTAssertFalse(sentence.contains(word), "\(label): '\(row.status)' under '\(sentence)'")
                        }
                    }
                    switch e["state"]?.stringValue {
                    case "gracePeriod": XCTAssertTrue(row.status == "grace period" && sentence.contains("grace period"), label)
                    case "billingRetry": XCTAssertTrue(row.status == "billing retry" && sentence.hasPrefix("billing retry"), label)
                    case "paused":
                        XCTAssertEqual(row.status, "paused", label)
                        // UNTIL is when access stopped (the end of the period); the sentence adds when it resumes.
                        XCTAssertEqual(row.until.replacingOccurrences(of: " ", with: "T").prefix(16),
                                       e["accessEndDate"]?.stringValue?.prefix(16), label)
                        XCTAssertTrue(sentence.hasPrefix("paused from \(row.until.prefix(10)) until \(e["autoResumeDate"]?.stringValue?.prefix(10) ?? "?")"),
                                      "\(label): \(row.until) / \(sentence)")
                    case "expired":
                        XCTAssertEqual(row.status, "expired", label)
                        XCTAssertTrue(sentence.contains(String(row.until.prefix(10))), "\(label): \(row.until) / \(sentence)")
                    case "revoked":
                        XCTAssertTrue(["refunded", "revoked", "access withdrawn"].contains(row.status), label)
                        // When it was taken back, never a future expiry.
                        XCTAssertLessThanOrEqual(row.until.prefix(10), t.prefix(10), label)
                        XCTAssertTrue(sentence.contains("on \(row.until.prefix(10))"), "\(label): \(row.until) / \(sentence)")
                    default: break
                    }
                    if row.status == "active, won't renew", e["renewState"] == .string("canceled") {
                        XCTAssertTrue(sentence.contains("cancelled"), label)
                    }
                    if e["state"] == .string("active"), let expiration = e["expirationDate"]?.stringValue {
                        XCTAssertEqual(row.until.replacingOccurrences(of: " ", with: "T").prefix(16), expiration.prefix(16), label)
                    }
                    if e["isSandbox"] == .bool(true) { XCTAssertTrue(row.notes.contains("sandbox") && sentence.contains("sandbox"), label) }
                    if e["grantType"] == .string("familySharing") { XCTAssertTrue(row.notes.contains("family sharing"), label) }
                    if let code = e["lastActivatedOfferCode"]?.stringValue { XCTAssertTrue(row.notes.contains("offer code \(code)"), label) }
                    for other in e["otherActiveSources"]?.arrayValue ?? [] {
                        let product = try XCTUnwrap(other["productId"]?.stringValue)
                        XCTAssertTrue(sentence.contains("also billed by \(product)") || sentence.contains("also \(product)")
                                      || sentence.contains("also owns \(product)"), "\(label): \(sentence)")
                    }
                }
            }
        }
    }

    func testTheCasesTheIssueNamed() {
        let yara = table("yara", at: "2026-12-01T12:00Z")
        XCTAssertEqual(yara.rows.first { $0.entitlement == "pro_plus" }?.status, "active, won't renew")
        XCTAssertEqual(yara.sentences["pro_plus"], "ends 2026-12-10 — renews as pro_monthly, which does not include pro_plus")
        let ivan = table("ivan", at: "2026-12-01T12:00Z")
        XCTAssertEqual(ivan.rows.first?.status, "refunded")
        XCTAssertEqual(ivan.rows.first?.until, "2026-10-06 09:00Z")
        let quentin = table("quentin", at: "2026-12-01T12:00Z")
        XCTAssertEqual(quentin.sentences["premium"],
                       "one-time purchase of lifetime on 2026-02-14, no expiration; also billed by pro_yearly (App Store), renews 2027-01-10")
        XCTAssertEqual(table("peggy", at: "2026-12-01T12:00Z").rows.first?.notes, "sandbox")
        XCTAssertEqual(table("nina", at: "2026-12-01T12:00Z").rows.first?.notes, "family sharing")
        XCTAssertEqual(table("olivia", at: "2026-12-01T12:00Z").rows.first?.notes, "offer code WINBACK50")
        let dave = table("dave", at: "2026-12-01T12:00Z")
        XCTAssertEqual(dave.rows.first?.status, "grace period")
        XCTAssertEqual(dave.rows.first?.until, "2026-12-12 14:30Z")
        XCTAssertEqual(dave.rows.first?.product, "pro_yearly_web (Stripe)")
        // A pause: UNTIL is when access stopped (issue 30: table, TSV and JSON tell the same
        // story, and `accessEndDate > now` must not count a paused customer as covered); the
        // sentence says when it resumes.
        let frank = table("frank", at: "2026-12-01T12:00Z")
        XCTAssertEqual(frank.rows.first?.until, "2026-11-09 12:00Z")
        XCTAssertEqual(frank.sentences["premium"], "paused from 2026-11-09 until 2027-01-09")
        let gwen = table("gwen", at: "2026-12-01T12:00Z").rows.first
        XCTAssertEqual(gwen?.status, "active, won't renew")
        XCTAssertEqual(table("judy", at: "2026-12-01T12:00Z").rows.first?.status, "active, lifetime")
        XCTAssertEqual(table("liam", at: "2026-12-01T12:00Z").rows.map(\.product), ["manual grant", "manual grant"])
    }

    func testWideAddsTheIdColumns() {
        let wide = screen(["check", "uma", "liam", "--wide"], columns: nil).stdout
        XCTAssertTrue(wide.contains("TRANSACTION"), wide)
        XCTAssertTrue(wide.contains("ORIGINAL"), wide)
        XCTAssertTrue(wide.contains("GRANT"), wide)
        XCTAssertTrue(wide.contains("grant-1"), wide)
        XCTAssertFalse(screen(["check", "uma", "liam"], columns: nil).stdout.contains("grant-1"), "ids only with --wide")
        let history = screen(["history", "mia", "--wide"], columns: nil).stdout
        XCTAssertTrue(history.contains("GRANT"), history)
        XCTAssertTrue(history.contains("grant-2"), history)
        XCTAssertFalse(screen(["history", "mia"], columns: nil).stdout.contains("grant-2"), "ids only with --wide")
        XCTAssertFalse(screen(["history", "alice"], columns: nil).stdout.contains("2000000"), "no transaction ids by default")
    }
}
