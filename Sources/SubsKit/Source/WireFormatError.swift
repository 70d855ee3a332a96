// A platform's answer that is not the shape its API documents (exit 76 with the path): one type
// for every provider's decoder, so that the client and the CLI treat them alike.

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
