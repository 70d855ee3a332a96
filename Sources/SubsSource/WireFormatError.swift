// A platform's answer that is not the shape its API documents (exit 76 with the path): one type
// for every provider's decoder, so that the client and the CLI treat them alike. The same value
// names an item left out of a list (one malformed entitlement or product never hides the rest).

/// Where in the answer (a JSON path, "" for the whole body) and what is wrong.
public struct WireFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension WireFormatError {
    /// The warning for an item of `answer` (`IAPHUB user 'bob'`) left out as malformed: the path
    /// first, so that it can be found in the answer.
    public func leftOut(of answer: String) -> String {
        "\(description) (\(answer): this item is left out, the rest is answered)"
    }
}
