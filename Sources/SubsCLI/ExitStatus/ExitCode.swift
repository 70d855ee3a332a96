// Exit statuses of SPEC section 1, and how several of them combine.

public struct ExitCode: RawRepresentable, Equatable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let success = ExitCode(rawValue: 0)
    public static let requirementMissing = ExitCode(rawValue: 1)
    public static let notFound = ExitCode(rawValue: 3)
    public static let usage = ExitCode(rawValue: 64)
    public static let dataError = ExitCode(rawValue: 65)
    public static let noInput = ExitCode(rawValue: 66)
    public static let unavailable = ExitCode(rawValue: 69)
    public static let internalError = ExitCode(rawValue: 70)
    public static let cannotWrite = ExitCode(rawValue: 73)
    /// Standard output could not be written (a full disk, a closed descriptor).
    public static let cannotWriteOutput = ExitCode(rawValue: 74)
    public static let temporaryFailure = ExitCode(rawValue: 75)
    public static let protocolError = ExitCode(rawValue: 76)
    public static let permissionDenied = ExitCode(rawValue: 77)
    public static let configError = ExitCode(rawValue: 78)
    public static let interrupted = ExitCode(rawValue: 130)
    /// Standard output was a pipe whose reader went away: silent, and the status a shell
    /// reports for a program killed by SIGPIPE (128 + 13), as `yes | head -1` gives.
    public static let brokenPipe = ExitCode(rawValue: 141)

    public var isError: Bool { rawValue >= 64 }

    /// Combines the statuses of several users: any error over 3 over 1 over 0;
    /// among errors the first one met wins (so `self` wins over a later error).
    public func combined(with other: ExitCode) -> ExitCode {
        if isError { return self }
        if other.isError { return other }
        return rawValue >= other.rawValue ? self : other
    }
}
