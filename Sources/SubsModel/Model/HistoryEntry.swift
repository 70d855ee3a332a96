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
    public var entitlements: [ID]
    /// The keys that apply to this kind, in output order (SPEC section 4).
    public var fields: [(key: String, value: HistoryValue)]

    public init(date: Instant, kind: HistoryKind, type: String, entitlements: [ID],
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

    /// The value under `key`, compared by its UTF-8 bytes as JSON compares member names (String's
    /// == would take an NFD key for its NFC twin).
    public func field(_ key: String) -> HistoryValue? { fields.first(where: { $0.key.utf8.elementsEqual(key.utf8) })?.value }
}

public enum HistoryValue: Equatable, Sendable {
    case string(String?)
    case date(Instant?)

    /// Strings by their bytes: the values are ids for the most part (SPEC section 7).
    public static func == (a: HistoryValue, b: HistoryValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.map { x in y.map { ID.bytesEqual(x, $0) } ?? false } ?? (y == nil)
        case (.date(let x), .date(let y)): return x == y
        default: return false
        }
    }

    /// The value as an id (a transaction, chain or product id field); nil for a date or no value.
    public var id: ID? {
        if case .string(let text?) = self { return ID(text) }
        return nil
    }
}
