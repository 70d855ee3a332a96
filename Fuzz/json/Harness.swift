// libFuzzer harness for SubsJSON: the strict parser, the validating scan and the writer.
// Compiled into one module with Sources/SubsJSON/*.swift (see scripts/fuzz), so it reaches
// internal symbols without @testable. A broken invariant traps: libFuzzer reports it as a crash.

/// Records what the scan reports, so that a scan and a parse of the same bytes can be compared.
struct CountingVisitor: JSONScanVisitor {
    let reportDepth: Int
    var entered = 0
    var values = 0
    var lastRange: Range<Int>?

    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {
        precondition(depth <= reportDepth, "enter reported below reportDepth")
        entered += 1
    }

    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
        precondition(depth <= reportDepth, "value reported below reportDepth")
        precondition(range.lowerBound >= 0 && range.lowerBound < range.upperBound, "empty value range")
        if let key { _ = key.string }
        if depth == 0 { lastRange = range }
        values += 1
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let parsed: JSONValue?
    let parseError: JSONError?
    do {
        parsed = try JSON.parse(bytes)
        parseError = nil
    } catch let error as JSONError {
        parsed = nil
        parseError = error
    } catch {
        fatalError("JSON.parse threw something other than JSONError: \(error)")
    }
    if let parseError {
        // Positions point inside the input (or just past its end).
        precondition(parseError.offset >= 0 && parseError.offset <= size, "error offset outside the input")
        precondition(parseError.line >= 1 && parseError.column >= 1, "error line:column not 1-based")
    }

    // The scan accepts exactly what the parse accepts, whatever depth it reports to.
    for depth in [0, 2] {
        var visitor = CountingVisitor(reportDepth: depth)
        var scanError: JSONError?
        do {
            try JSON.scan(bytes, visitor: &visitor)
        } catch let error as JSONError {
            scanError = error
        } catch {
            fatalError("JSON.scan threw something other than JSONError: \(error)")
        }
        precondition((scanError == nil) == (parsed != nil),
                     "scan and parse disagree: scan \(String(describing: scanError)), parse \(String(describing: parseError))")
        if let scanError, let parseError {
            precondition(scanError == parseError, "scan and parse report different errors: \(scanError) vs \(parseError)")
        }
        if scanError == nil {
            precondition(visitor.lastRange != nil, "a valid document reported no root value")
            if let range = visitor.lastRange, let parsed {
                // The root's span, parsed alone, is the same value.
                let again = try? JSON.parse(bytes, range: range)
                precondition(again == parsed, "the root's span parses to another value")
            }
        }
    }

    // What the writer produces parses back to the same value, compact and pretty.
    if let parsed {
        let compact = JSONWriter.compact(parsed)
        precondition((try? JSON.parse(compact)) == parsed, "compact output does not round-trip")
        let pretty = JSONWriter.pretty(parsed, indent: "  ", level: 1)
        precondition((try? JSON.parse(pretty)) == parsed, "pretty output does not round-trip")
        precondition(JSONWriter.compact(try! JSON.parse(compact)) == compact, "compact output is not stable")
    }
    return 0
}
