// STUB — the hand-rolled parser (CLI helper).
import SubsKit

public enum CommandLineParser {
    public static func parse(arguments: [String], environment: [String: String], now: Instant) throws -> ParseOutcome {
        throw UsageError("parser not implemented yet")
    }
}
