// One line of a customer's history (SPEC section 4, `history` document).

public enum HistoryKind: String, Sendable {
    case transaction, refund, event, grant
}

public struct HistoryEntry: Equatable, Sendable {
    public var date: Instant
    public var kind: HistoryKind
    /// Transaction type, event type, "revoked" (refund, grant revocation) or "granted".
    public var type: String
    /// Entitlement ids the entry concerns, sorted.
    public var entitlements: [String]
    /// The keys that apply to this kind, in output order (SPEC section 4).
    public var fields: [(key: String, value: HistoryValue)]

    public init(date: Instant, kind: HistoryKind, type: String, entitlements: [String],
                fields: [(key: String, value: HistoryValue)]) {
        self.date = date
        self.kind = kind
        self.type = type
        self.entitlements = entitlements
        self.fields = fields
    }

    public static func == (a: HistoryEntry, b: HistoryEntry) -> Bool {
        a.date == b.date && a.kind == b.kind && a.type == b.type && a.entitlements == b.entitlements
            && a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func field(_ key: String) -> HistoryValue? { fields.first(where: { $0.key == key })?.value }
}

public enum HistoryValue: Equatable, Sendable {
    case string(String?)
    case date(Instant?)
}
