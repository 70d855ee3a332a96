// The shallow view a store reader gets of a document while the scanner validates all of it.

/// Receives the values of a document down to `reportDepth` while `JSON.scan` validates the
/// whole document. Deeper values are validated and skipped: nothing is built for them.
///
/// Depths: the root value is depth 0, members/elements of the root are depth 1, and so on.
public protocol JSONScanVisitor {
    /// Values nested deeper than this are validated but never reported.
    var reportDepth: Int { get }
    /// A container (object or array) at depth <= reportDepth opens at byte `start` ('{' or '[').
    /// `key` is the member key when the parent is an object; `index` is the element index when
    /// the parent is an array (-1 otherwise).
    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws
    /// A value at depth <= reportDepth is complete; `range` covers all of its bytes
    /// (for strings, including the quotes). Called for scalars and containers alike
    /// (for containers after `enter` and after all their reported children).
    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws
}

/// An object key as it stands in the document: the bytes between the quotes.
/// Valid only during the visitor call that received it (it points into the scanned buffer).
public struct JSONKey {
    /// The raw bytes between the quotes (escapes not decoded).
    public let raw: UnsafeRawBufferPointer
    /// Byte offset of the opening quote in the whole buffer.
    public let offset: Int
    /// True when the raw bytes contain a backslash escape.
    public let hasEscapes: Bool

    public init(raw: UnsafeRawBufferPointer, offset: Int, hasEscapes: Bool) {
        self.raw = raw
        self.offset = offset
        self.hasEscapes = hasEscapes
    }
}
