// What the server engine's tests collect from its hooks, safely across its threads.

import Foundation
import SubsHTTP

/// A thread-safe list of what the server's log hook reported.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [HTTPRequestLog] = []
    func record(_ entry: HTTPRequestLog) { lock.lock(); entries.append(entry); lock.unlock() }
    var all: [HTTPRequestLog] { lock.lock(); defer { lock.unlock() }; return entries }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
