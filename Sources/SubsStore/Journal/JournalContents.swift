// The journal's lines as read (SPEC section 5 rev. 4), checked one by one. Format — one compact
// JSON object per line, each ending with `,"crc":"xxxxxxxx"}`, the CRC-32C of the line's bytes
// before `,"crc"`:
//   line 1, the header:  {"journal":1,"store":STAMP}
//   a change:            {"seq":N,"customer":ID,"at":DATE,"op":{…},"record":{…} or null[,"commit":true]}
//   the folded marker:   {"folded":STAMP}
// `record` is the customer's whole record after the change (an after-image; null: the customer
// is gone): applying a line is "the record is now this", so a line applied twice changes nothing.
// The lines of one group commit end with the one that carries `"commit":true`: a group is applied
// whole or not at all (a batch stays all-or-nothing whatever a crash cuts).
// What a crash during an append leaves — a last line without its newline, a last line that fails
// its checksum, lines of a group without its commit line — is the torn tail: dropped and
// reported, never applied. Anything else wrong is the line's error (exit 65, with its number).

import SubsJSON
import SubsModel

/// One change read from the journal.
struct JournalEntry {
    /// Its line number (1 is the header).
    var line: Int
    var customer: ID
    /// The record after the change, compact JSON as the line holds it; nil when the change
    /// removed the customer.
    var record: [UInt8]?
}

/// What a crash during an append left at the end of the journal.
struct JournalTear: Equatable {
    /// The first line dropped.
    var line: Int
    var reason: String
}

struct JournalContents {
    /// The journal format this subs reads and writes.
    static let version = 1

    /// The store version the changes apply to; nil for an empty file.
    var header: StoreStamp?
    /// Changes of complete group commits, in order.
    var entries: [JournalEntry] = []
    /// Store versions the journal has been folded into (a compaction's marker).
    var folded: [StoreStamp] = []
    /// Where the folded markers start (a writer drops a marker naming a version that never
    /// took the store's place).
    var foldedOffset: Int?
    /// Bytes up to the end of the last whole line of a complete group (or marker).
    var goodLength = 0
    /// Lines of complete groups and markers, the header included.
    var lines = 0
    /// The torn tail, if any.
    var tear: JournalTear?
    /// The sequence number the next change takes.
    var nextSequence = 1

    /// The suffix every line ends with after its checksum digits: `"}`.
    private static let crcKey = Array(#","crc":""#.utf8)

    /// Reads `bytes` (the journal's whole content); `path` names it in errors.
    /// `continuing`: what was read before of the same journal, up to its `goodLength`, which is
    /// where `bytes` start (a reader reads only what was appended since; see `JournalRead`).
    static func parse(_ bytes: UnsafeRawBufferPointer, path: String, continuing: JournalContents? = nil) throws -> JournalContents {
        var contents = continuing ?? JournalContents()
        contents.tear = nil
        // Offsets kept are the journal's, not `bytes`'.
        let base = contents.goodLength
        var pending: [JournalEntry] = []
        var pendingStart = 0
        var start = 0
        var number = contents.lines
        func bad(_ line: Int, _ message: String) -> StoreError {
            .invalid(path: path, problems: [StoreProblem(path: "line \(line)", message: message)])
        }
        while start < bytes.count {
            number += 1
            let end: Int
            if let newline = bytes[start...].firstIndex(of: 0x0A) {
                end = newline
            } else {
                // No newline: an append cut short.
                if pending.isEmpty { pendingStart = number }
                contents.tear = JournalTear(line: pendingStart, reason: "line \(number) is incomplete (a write interrupted before it was acknowledged)")
                return contents
            }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            let isLast = end + 1 == bytes.count
            let lineStart = start
            start = end + 1
            guard checksumHolds(line) else {
                if isLast {
                    if pending.isEmpty { pendingStart = number }
                    contents.tear = JournalTear(line: pendingStart, reason: "line \(number) fails its checksum (a write interrupted before it was acknowledged)")
                    return contents
                }
                throw bad(number, "fails its checksum (the journal was damaged; nothing after it can be trusted)")
            }
            var members = LineMembers()
            do {
                try JSON.scan(line, visitor: &members)
            } catch let error as JSONError {
                throw bad(number, "not a journal line: \(error.message)")
            }
            let first = members.keys.first ?? ""
            func value(_ key: String) throws -> JSONValue? {
                guard let range = members.range(key) else { return nil }
                return try JSON.parse(line, range: range)
            }
            switch first {
            case "journal":
                guard number == 1 else { throw bad(number, "a journal header after line 1") }
                guard case .number(let v)? = try value("journal"), Int(v) == version else {
                    throw bad(number, "journal format \((try? value("journal")).map { $0.map(JSONWriter.compact) ?? "" } ?? "") is not one this subs reads (\(version))")
                }
                guard let stampValue = try value("store"), let stamp = StoreStamp(json: stampValue) else {
                    throw bad(number, "the header names no store version")
                }
                contents.header = stamp
            case "seq":
                guard contents.header != nil else { throw bad(number, "a change before the journal's header") }
                guard contents.foldedOffset == nil else { throw bad(number, "a change after the journal was folded into the store") }
                guard case .number(let seqText)? = try value("seq"), let seq = Int(seqText), seq >= 1 else {
                    throw bad(number, "seq: expected a positive integer")
                }
                guard let customer = try value("customer")?.stringValue else { throw bad(number, "customer: expected a string") }
                guard let recordRange = members.range("record") else { throw bad(number, "record: required") }
                let record: [UInt8]?
                switch line[recordRange.lowerBound] {
                case UInt8(ascii: "{"): record = Array(line[recordRange])
                case UInt8(ascii: "n"): record = nil
                default: throw bad(number, "record: expected an object or null")
                }
                if pending.isEmpty { pendingStart = number }
                pending.append(JournalEntry(line: number, customer: ID(customer), record: record))
                contents.nextSequence = max(contents.nextSequence, seq + 1)
                if let commit = try value("commit") {
                    guard commit.boolValue == true else { throw bad(number, "commit: expected true") }
                    contents.entries += pending
                    pending.removeAll()
                    contents.goodLength = base + end + 1
                    contents.lines = number
                }
                continue
            case "folded":
                guard contents.header != nil else { throw bad(number, "a folded marker before the journal's header") }
                guard let stampValue = try value("folded"), let stamp = StoreStamp(json: stampValue) else {
                    throw bad(number, "the folded marker names no store version")
                }
                if contents.foldedOffset == nil { contents.foldedOffset = base + lineStart }
                contents.folded.append(stamp)
            default:
                throw bad(number, "not a journal line (expected a header, a change or a folded marker)")
            }
            guard pending.isEmpty else { throw bad(pendingStart, "a group of changes without its commit line") }
            contents.goodLength = base + end + 1
            contents.lines = number
        }
        if !pending.isEmpty {
            contents.tear = JournalTear(line: pendingStart, reason: "lines \(pendingStart)–\(number) are a group commit cut short (interrupted before it was acknowledged)")
        }
        return contents
    }

    /// Whether the line ends with its checksum, and the checksum is that of the bytes before it.
    static func checksumHolds(_ line: UnsafeRawBufferPointer) -> Bool {
        let tail = crcKey.count + 8 + 2
        guard line.count > tail else { return false }
        let body = line.count - tail
        guard zip(line[body..<(body + crcKey.count)], crcKey).allSatisfy({ $0 == $1 }),
              line[line.count - 2] == UInt8(ascii: "\""), line[line.count - 1] == UInt8(ascii: "}") else { return false }
        let digits = String(decoding: UnsafeRawBufferPointer(rebasing: line[(body + crcKey.count)..<(line.count - 2)]), as: UTF8.self)
        guard digits.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let stored = UInt32(digits, radix: 16) else { return false }
        return CRC32C.checksum(UnsafeRawBufferPointer(rebasing: line[0..<body])) == stored
    }

    /// `body` (a JSON object's text without its closing brace) closed with its checksum and a newline.
    static func sealed(_ body: String) -> [UInt8] {
        var bytes = Array(body.utf8)
        let crc = CRC32C.checksum(bytes)
        bytes += Array(#","crc":"\#(CRC32C.hex(crc))"}"#.utf8)
        bytes.append(0x0A)
        return bytes
    }

    static func headerLine(for stamp: StoreStamp) -> [UInt8] {
        sealed(#"{"journal":\#(version),"store":\#(stamp.json)"#)
    }

    static func foldedLine(for stamp: StoreStamp) -> [UInt8] {
        sealed(#"{"folded":\#(stamp.json)"#)
    }

    /// A change line: `op` is compact JSON saying what the change did.
    static func changeLine(seq: Int, customer: ID, at: Instant, op: String, record: JSONValue?, commit: Bool) -> [UInt8] {
        let recordText = record.map(JSONWriter.compact) ?? "null"
        return sealed(#"{"seq":\#(seq),"customer":\#(JSON.quote(customer.string)),"at":"\#(ISODate.format(at))","op":\#(op),"record":\#(recordText)\#(commit ? #","commit":true"# : "")"#)
    }
}

/// A line's members: keys in order, and where each value stands.
private struct LineMembers: JSONScanVisitor {
    let reportDepth = 1
    var keys: [String] = []
    var ranges: [Range<Int>] = []
    private var isObject = false

    func range(_ key: String) -> Range<Int>? {
        keys.firstIndex(of: key).map { ranges[$0] }
    }

    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {
        if depth == 0 { isObject = true }
    }

    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
        if depth == 0, !isObject { throw JSONError(message: "expected an object", offset: range.lowerBound, line: 1, column: range.lowerBound + 1) }
        guard depth == 1, let key else { return }
        keys.append(key.string)
        ranges.append(range)
    }
}
