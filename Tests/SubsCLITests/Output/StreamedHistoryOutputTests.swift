// `history` writes its output entry by entry (issue 29 item 4: a history of a whole listing is
// never one document tree nor one string): the bytes must be those of the whole document as it
// was made before — `Output.render` of the result's JSON tree, JSON lines and TSV table — for one
// customer and several, found and missing, on seeded random entries whose values need escaping.

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsCLI

final class StreamedHistoryOutputTests: XCTestCase {
    private struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
        mutating func text() -> String? {
            let pieces = ["a", "café", "cafe\u{301}", "\"q\"", "back\\slash", "tab\t", "line\nbreak", "\u{1B}[31m", "日本", "🙂", "", " "]
            switch next(5) {
            case 0: return nil
            default: return (0..<next(4)).map { _ in pieces[next(pieces.count)] }.joined()
            }
        }
    }

    private func history(_ g: inout Generator, id: String, entries count: Int) -> CustomerHistory {
        let kinds: [HistoryKind] = [.transaction, .refund, .event, .grant]
        var date = Instant(seconds: 1_700_000_000)
        let entries = (0..<count).map { _ -> HistoryEntry in
            date = Instant(seconds: date.seconds + Int64(g.next(100_000)))
            var fields: [(key: String, value: HistoryValue)] = [("transactionId", .string(g.text())), ("productId", .string(g.text())),
                                                                ("expirationDate", .date(g.next(2) == 0 ? nil : date))]
            if g.next(3) == 0 { fields.append(("price", .string(g.text()))) }
            if g.next(4) == 0 { fields.append(("custom\(g.next(3))", .string(g.text()))) }
            return HistoryEntry(date: date, kind: kinds[g.next(kinds.count)], type: g.text() ?? "renewed",
                                entitlements: (0..<g.next(3)).map { _ in ID(g.text() ?? "premium") }, fields: fields)
        }
        return CustomerHistory(customerId: ID(id), requestedId: ID(id + "-asked"), requestDate: Instant(seconds: 1_800_000_000),
                               provider: "qonversion", incompleteReason: g.next(2) == 0 ? nil : "cut \"short\"\n",
                               entries: entries, accessEnds: [], timeline: Timeline(entries, catalog: nil))
    }

    private func streamed(_ result: HistoryResult, _ format: OutputFormat, _ style: OutputStyle) -> String {
        var out = ""
        result.write(format, style) { out += $0 }
        return out
    }

    /// What the format makes of the result's whole document, lines, rows or table.
    private func whole(_ result: HistoryResult, _ format: OutputFormat, _ style: OutputStyle) -> String {
        var out = ""
        format.write(result, style: style) { out += $0 }
        return out
    }

    func testEveryFormatWritesTheBytesOfTheWholeDocument() throws {
        for seed in 1...12 {
            var g = Generator(state: UInt64(seed))
            var histories: [Asked<CustomerHistory>] = []
            for n in 0..<(1 + g.next(4)) {
                if g.next(4) == 0 {
                    histories.append(.missing(Missing.customer(ID("ghost\(n)"))))
                } else {
                    histories.append(.found(history(&g, id: "c\(n)-\(g.text() ?? "")", entries: g.next(3) == 0 ? 0 : 1 + g.next(300))))
                }
            }
            for asArray in [false, true] {
                let result = HistoryResult(histories: asArray ? histories : Array(histories.prefix(1)), asArray: asArray, judgedAt: nil)
                for format in OutputFormat.allCases {
                    let style = OutputStyle(color: false, terminal: false, columns: 80, now: Instant(seconds: 1_800_000_000))
                    XCTAssertEqual(streamed(result, format, style), whole(result, format, style), "seed \(seed), \(format), array \(asArray)")
                }
            }
        }
    }

    /// The streamed JSON of one customer is the pretty-printed document, byte for byte, and parses.
    func testOneCustomersDocumentIsThePrettyPrintedTree() throws {
        var g = Generator(state: 99)
        let h = history(&g, id: "alice", entries: 2000)
        let result = HistoryResult(histories: [.found(h)], asArray: false, judgedAt: nil)
        let style = OutputStyle(color: false, terminal: false, columns: 80, now: Instant(seconds: 0))
        let expected = JSONWriter.pretty(Documents.history(customerId: h.customerId, requestedId: h.requestedId, requestDate: h.requestDate,
                                                           provider: h.provider, incompleteReason: h.incompleteReason,
                                                           entries: h.entries)) + "\n"
        let text = streamed(result, .json, style)
        XCTAssertEqual(text, expected)
        XCTAssertEqual(try JSON.parse(text)["entries"]?.arrayValue?.count, 2000)
        // No entries: `"entries": []`, as the tree writes it.
        let empty = HistoryResult(histories: [.found(history(&g, id: "bob", entries: 0))], asArray: false, judgedAt: nil)
        XCTAssertTrue(streamed(empty, .json, style).hasSuffix("\"entries\": []\n}\n"))
    }

    /// The writer of a document whose last member is a long array, alone: any members, any level.
    func testPrettyObjectStreamsTheSameBytesAsPretty() {
        let members: [[JSONObject.Member]] = [[], [.init(key: "a", value: .number("1"))],
                                              [.init(key: "k\"ey", value: .object(JSONObject([("x", .array([.null, .bool(true)]))])))]]
        let elements: [[JSONValue]] = [[], [.string("one")], [.object(JSONObject([("deep", .array([.string("é\n")]))])), .array([])]]
        for m in members {
            for e in elements {
                for level in 0..<3 {
                    var out = ""
                    JSONWriter.prettyObject(m, arrayKey: "entries", count: e.count, element: { e[$0] }, level: level) { out += $0 }
                    XCTAssertEqual(out, JSONWriter.pretty(.object(JSONObject(m + [.init(key: "entries", value: .array(e))])), level: level))
                }
            }
        }
    }

    /// Keys a provider adds are JSON member names, equal only byte for byte: an NFC and an NFD
    /// spelling of one word are two columns, each holding its own value.
    func testFieldKeysInOtherSpellingsAreTwoColumns() {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let entry = HistoryEntry(date: Instant(seconds: 1_800_000_000), kind: .transaction, type: "renewed", entitlements: [],
                                 fields: [(nfc, .string("composed")), (nfd, .string("decomposed"))])
        XCTAssertEqual(entry.field(nfc), .string("composed"))
        XCTAssertEqual(entry.field(nfd), .string("decomposed"))
        let h = CustomerHistory(customerId: ID("alice"), requestedId: ID("alice"), requestDate: Instant(seconds: 1_800_000_000),
                                provider: "store", incompleteReason: nil, entries: [entry], accessEnds: [],
                                timeline: Timeline([entry], catalog: nil))
        let rows = HistoryResult(histories: [.found(h)], asArray: false, judgedAt: nil).rows
        let columns = rows.headers.enumerated().filter { $0.element.utf8.elementsEqual(nfc.utf8) || $0.element.utf8.elementsEqual(nfd.utf8) }
        XCTAssertEqual(columns.count, 2, "\(rows.headers)")
        XCTAssertEqual(columns.map { rows.values[0][$0.offset] }, ["composed", "decomposed"])
    }
}
