// Request ids (SPEC section 6 rev. 4): every answer of `subs serve` carries one in
// `Subs-Request-Id`, the request log line says it, and the client's error message shows it, so
// that a line of a support ticket finds the line of the log. 64 random bits: unique enough
// across restarts, never a counter anyone could guess the traffic from.

enum RequestId {
    static func next() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return "req_" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
