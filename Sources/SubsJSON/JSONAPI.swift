// PUBLIC SURFACE CONTRACT of SubsJSON (implementations live in the other files of this module).
//
//   JSON.parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue
//       Strict RFC 8259 parse of a whole (small) document into a JSONValue. Errors are JSONError.
//   JSON.parse(_ bytes: [UInt8]) throws -> JSONValue
//   JSON.parse(_ text: String) throws -> JSONValue
//   JSON.parse(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) throws -> JSONValue
//       Parse one value that occupies exactly `range` of a buffer that has already been validated
//       (used to materialise one customer after a scan). Errors still carry offsets/line:column
//       relative to the WHOLE buffer.
//
//   JSON.scan<V: JSONScanVisitor>(_ bytes: UnsafeRawBufferPointer, visitor: inout V) throws
//       Validates the whole document strictly (everything JSON.parse rejects, scan rejects),
//       without building values and without recursion, and reports every value at
//       depth <= visitor.reportDepth to the visitor.
//
//   JSONKey — the raw bytes of an object key (between the quotes), with helpers to compare it
//       with a String without allocating and to decode it:
//         key.string: String            (escapes decoded)
//         key.equals(_ s: String) -> Bool   (no allocation unless the key has escapes)
//
//   JSONWriter — serialises JSONValue: compact, or pretty with a given indent unit and a base
//       indentation level (so a record can be spliced back into a store at its depth).
//         JSONWriter.compact(_ v: JSONValue) -> String
//         JSONWriter.pretty(_ v: JSONValue, indent: String = "  ", level: Int = 0) -> String
//       Pretty output is JSON.stringify(v, null, indent) with nested lines indented by
//       (level + depth) × indent, the first line not indented, no trailing newline.
//
//   Strictness: duplicate keys (compared after decoding escapes), nesting deeper than 512
//   arrays/objects, a byte order mark, invalid UTF-8 and lone surrogates are all errors;
//   numbers are checked against the grammar but never converted (1e999999 is fine).
//
//   JSON.quote(_ s: String) -> String — the JSON string literal for s (escapes ", \, control
//       characters as \n \t \r \b \f or \u00XX; leaves other characters as UTF-8).
