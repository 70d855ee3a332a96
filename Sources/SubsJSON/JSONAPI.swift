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
//       with a String without allocating and to decode it.
//
//   JSONWriter — serialises JSONValue: compact, or pretty with a given indent unit and a base
//       indentation level (so a record can be spliced back into a store at its depth).
//
//   JSON.quote(_ s: String) -> String — the JSON string literal for s (escapes ", \, control
//       characters as \n \t \r \b \f or \u00XX; leaves other characters as UTF-8).
