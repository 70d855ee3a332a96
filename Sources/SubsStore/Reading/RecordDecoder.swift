// Turns the materialised parts of a store (catalog, customer records) into the model,
// collecting every schema problem with its JSON path instead of stopping at the first.

import SubsJSON
import SubsModel

package struct RecordDecoder {
    package private(set) var problems: [StoreProblem] = []

    package init() {}

    mutating func problem(_ path: @autoclosure () -> String, _ message: @autoclosure () -> String) {
        problems.append(StoreProblem(path: path(), message: message()))
    }

    // MARK: - Catalog

    package mutating func catalog(_ value: JSONValue?, path: String = "products") -> Catalog {
        guard let value else {
            problem(path, "required")
            return Catalog([])
        }
        guard let object = object(value, path) else { return Catalog([]) }
        var products: [Product] = []
        for member in object.members {
            let productPath = JSONPath.member(path, member.key)
            guard let fields = self.object(member.value, productPath) else { continue }
            guard let type: ProductType = requiredEnum(fields, "type", productPath) else { continue }
            var entitlements: [ID] = []
            let entitlementsPath = JSONPath.member(productPath, "entitlements")
            if let list = fields["entitlements"] {
                if let array = array(list, entitlementsPath) {
                    for (i, element) in array.enumerated() {
                        if let id = string(element, JSONPath.index(entitlementsPath, i)) {
                            if id.isEmpty { problem(JSONPath.index(entitlementsPath, i), "must not be empty") }
                            entitlements.append(ID(id))
                        }
                    }
                }
            } else {
                problem(entitlementsPath, "required")
            }
            if type == .consumable, !entitlements.isEmpty {
                // A consumable is used up: it cannot be the reason anyone has access.
                problem(entitlementsPath, "a consumable product unlocks no entitlement (make it nonConsumable or a subscription, or empty the list)")
            }
            let grace = optionalDuration(fields, "gracePeriod", productPath)
            let storedRetry = optionalDuration(fields, "billingRetryPeriod", productPath)
            var product = Product(id: ID(member.key), type: type, entitlements: entitlements, gracePeriod: grace,
                                  billingRetryPeriod: storedRetry ?? Product.defaultBillingRetryPeriod)
            product.billingRetryPeriodIsStored = storedRetry != nil
            products.append(product)
        }
        return Catalog(products)
    }

    // MARK: - Customer

    package mutating func customer(id: ID, _ value: JSONValue, catalog: Catalog, path: @autoclosure () -> String) -> CustomerRecord? {
        guard let fields = object(value, path()) else { return nil }
        var record = CustomerRecord(id: id)
        if let aliases = fields["aliases"], let list = array(aliases, JSONPath.member(path(), "aliases")) {
            var seen = Set<ID>(minimumCapacity: list.count)
            record.aliases.reserveCapacity(list.count)
            for (i, element) in list.enumerated() {
                func aliasPath() -> String { JSONPath.index(JSONPath.member(path(), "aliases"), i) }
                guard let alias = string(element, aliasPath()).map({ ID($0) }) else { continue }
                if alias == id { problem(aliasPath(), "an alias must not be the customer's own id") }
                if !seen.insert(alias).inserted { problem(aliasPath(), "duplicate alias '\(alias)'") }
                record.aliases.append(alias)
            }
        }
        record.firstSeen = optionalDate(fields, "firstSeen", path())
        if let attributes = fields["attributes"], !attributes.isNull {
            record.attributes = object(attributes, JSONPath.member(path(), "attributes"))
        }
        record.transactions = elements(fields, "transactions", path()) { decoder, value, itemPath in
            decoder.transaction(value, catalog: catalog, path: itemPath())
        }
        record.events = elements(fields, "events", path()) { decoder, value, itemPath in
            decoder.event(value, catalog: catalog, path: itemPath())
        }
        record.grants = elements(fields, "grants", path()) { decoder, value, itemPath in
            decoder.grant(value, path: itemPath())
        }
        uniqueIds(record.transactions.map(\.transactionId), JSONPath.member(path(), "transactions"), "transactionId")
        uniqueIds(record.grants.map(\.id), JSONPath.member(path(), "grants"), "id")
        return record
    }

    private mutating func uniqueIds(_ ids: [ID], _ path: @autoclosure () -> String, _ key: String) {
        var seen: Set<ID> = []
        for (i, id) in ids.enumerated() where !seen.insert(id).inserted {
            problem(JSONPath.member(JSONPath.index(path(), i), key), "duplicate \(key) '\(id)'")
        }
    }

    private mutating func elements<T>(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String,
                                      _ decode: (inout RecordDecoder, JSONValue, () -> String) -> T?) -> [T] {
        guard let value = fields[key], !value.isNull, let list = array(value, JSONPath.member(path(), key)) else { return [] }
        var result: [T] = []
        result.reserveCapacity(list.count)
        // The element paths are only built when a problem is reported (they cost more than decoding).
        withoutActuallyEscaping(path) { path in
            for (i, element) in list.enumerated() {
                if let item = decode(&self, element, { JSONPath.index(JSONPath.member(path(), key), i) }) {
                    result.append(item)
                }
            }
        }
        return result
    }

    mutating func transaction(_ value: JSONValue, catalog: Catalog, path: @autoclosure () -> String) -> Transaction? {
        guard let fields = object(value, path()) else { return nil }
        let problemsBefore = problems.count
        let transactionId = requiredString(fields, "transactionId", path()).map { ID($0) }
        let originalId = requiredString(fields, "originalTransactionId", path()).map { ID($0) }
        let productId = requiredString(fields, "productId", path()).map { ID($0) }
        let type: TransactionType? = requiredEnum(fields, "type", path())
        let date = requiredDate(fields, "transactionDate", path())
        let expiration = optionalDate(fields, "expirationDate", path())
        let source: PurchaseSource = optionalEnum(fields, "source", path()) ?? .unknown
        let environment: PurchaseEnvironment = optionalEnum(fields, "environment", path()) ?? .production
        let ownership: OwnershipType = optionalEnum(fields, "ownershipType", path()) ?? .owner
        let offerCode = optionalString(fields, "offerCode", path())
        let orderId = optionalString(fields, "orderId", path())
        if orderId?.isEmpty == true { problem(JSONPath.member(path(), "orderId"), "must not be empty (leave it out when there is none)") }
        let revocation = optionalDate(fields, "transactionRevocationDate", path())
        let (priceMicros, currency) = price(fields, path())

        if let productId, let type {
            func productPath() -> String { JSONPath.member(path(), "productId") }
            if let product = catalog[productId] {
                let expected: ProductType = type.isSubscription ? .subscription
                    : type == .nonConsumablePurchase ? .nonConsumable : .consumable
                if product.type != expected {
                    problem(JSONPath.member(path(), "type"),
                            "\(type.rawValue) needs a \(expected.rawValue) product, but '\(productId)' is a \(product.type.rawValue)")
                }
            } else {
                problem(productPath(), "unknown product '\(productId)' (not in products)")
            }
        }
        if let type {
            func expirationPath() -> String { JSONPath.member(path(), "expirationDate") }
            if type.isSubscription, expiration == nil, fields["expirationDate"].map({ $0.isNull }) ?? true {
                problem(expirationPath(), "required for \(type.rawValue)")
            }
            if !type.isSubscription, let e = fields["expirationDate"], !e.isNull {
                problem(expirationPath(), "must be null or absent for \(type.rawValue)")
            }
            if type.isSubscription, let expiration, let productId, let product = catalog[productId],
               product.type == .subscription {
                periodsFit(after: expiration, of: product, expirationPath())
            }
        }
        guard problems.count == problemsBefore, let transactionId, let originalId, let productId,
              let type, let date else { return nil }
        return Transaction(transactionId: transactionId, originalTransactionId: originalId, productId: productId,
                           type: type, transactionDate: date, expirationDate: expiration, source: source,
                           environment: environment, ownershipType: ownership, offerCode: offerCode,
                           revocationDate: revocation, orderId: orderId, priceMicros: priceMicros, currency: currency)
    }

    /// `priceMicros` (an integer ≥ 0: millionths of the currency, no fraction, no exponent) and
    /// `currency` (ISO 4217, three capital letters; required with `priceMicros`), SPEC section 2
    /// rev. 4. A money field of another shape is a data error with its path, like any other.
    private mutating func price(_ fields: JSONObject, _ path: @autoclosure () -> String) -> (Int64?, String?) {
        var micros: Int64?
        if let value = fields["priceMicros"], !value.isNull {
            func microsPath() -> String { JSONPath.member(path(), "priceMicros") }
            if case .number(let literal) = value {
                if !literal.isEmpty, literal.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int64(literal) {
                    micros = n
                } else if literal.hasPrefix("-") {
                    problem(microsPath(), "must not be negative (\(literal))")
                } else if literal.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                    problem(microsPath(), "\(literal) is too large (at most \(Int64.max) millionths)")
                } else {
                    problem(microsPath(), "expected a whole number of millionths, found \(literal)")
                }
            } else {
                problem(microsPath(), "expected number, found \(value.typeName)")
            }
        }
        let currency = optionalString(fields, "currency", path())
        if let currency, !CurrencyCode.isValid(currency) {
            problem(JSONPath.member(path(), "currency"), "expected an ISO 4217 code (three capital letters, e.g. USD), found '\(currency)'")
        }
        if micros != nil, currency == nil, fields["priceMicros"].map({ !$0.isNull }) ?? false {
            problem(JSONPath.member(path(), "currency"), "required with priceMicros")
        }
        return (micros, currency)
    }

    /// The rules add the product's stored grace and billing retry periods to an expiration: both
    /// ends must stay in years 0001–9999 (SPEC section 7: "a stored date plus a stored period"),
    /// or the record is a data error. The default retry period is not held against a "never
    /// expires" 9999-12-31: the rules cap that end at the end of 9999 and never print it.
    private mutating func periodsFit(after expiration: Instant, of product: Product, _ path: @autoclosure () -> String) {
        let periods = [("gracePeriod", product.gracePeriod),
                       ("billingRetryPeriod", product.billingRetryPeriodIsStored ? product.billingRetryPeriod : nil)]
        for case let (name, period?) in periods where expiration.adding(period) == nil {
            problem(path(), "\(ISODate.format(expiration)) plus the \(name) \(period) of product '\(product.id)' is past year 9999")
            return
        }
    }

    mutating func event(_ value: JSONValue, catalog: Catalog, path: @autoclosure () -> String) -> SubscriptionEvent? {
        guard let fields = object(value, path()) else { return nil }
        let problemsBefore = problems.count
        let type: EventType? = requiredEnum(fields, "type", path())
        let date = requiredDate(fields, "date", path())
        let originalId = requiredString(fields, "originalTransactionId", path()).map { ID($0) }
        var productId: ID?
        var autoResume: Instant?
        switch type {
        case .renewalProductChanged?:
            productId = requiredString(fields, "productId", path()).map { ID($0) }
            if let p = productId, catalog[p] == nil {
                problem(JSONPath.member(path(), "productId"), "unknown product '\(p)' (not in products)")
            }
        case .pauseScheduled?:
            autoResume = requiredDate(fields, "autoResumeDate", path())
        default:
            break
        }
        guard problems.count == problemsBefore, let type, let date, let originalId else { return nil }
        return SubscriptionEvent(type: type, date: date, originalTransactionId: originalId,
                                 productId: productId, autoResumeDate: autoResume)
    }

    mutating func grant(_ value: JSONValue, path: @autoclosure () -> String) -> Grant? {
        guard let fields = object(value, path()) else { return nil }
        let problemsBefore = problems.count
        let id = requiredString(fields, "id", path()).map { ID($0) }
        let entitlement = requiredString(fields, "entitlement", path()).map { ID($0) }
        let grantedAt = requiredDate(fields, "grantedAt", path())
        let expiration = optionalDate(fields, "expirationDate", path())
        let grant = Grant(id: id ?? "", entitlement: entitlement ?? "", grantedAt: grantedAt ?? Instant(seconds: 0),
                          expirationDate: expiration,
                          grantedBy: optionalString(fields, "grantedBy", path()),
                          reason: optionalString(fields, "reason", path()),
                          revokedAt: optionalDate(fields, "revokedAt", path()),
                          revokedBy: optionalString(fields, "revokedBy", path()),
                          revokeReason: optionalString(fields, "revokeReason", path()))
        guard problems.count == problemsBefore, id != nil, entitlement != nil, grantedAt != nil else { return nil }
        return grant
    }

    // MARK: - Field readers

    mutating func object(_ value: JSONValue, _ path: @autoclosure () -> String) -> JSONObject? {
        if case .object(let o) = value { return o }
        problem(path(), "expected object, found \(value.typeName)")
        return nil
    }

    mutating func array(_ value: JSONValue, _ path: @autoclosure () -> String) -> [JSONValue]? {
        if case .array(let a) = value { return a }
        problem(path(), "expected array, found \(value.typeName)")
        return nil
    }

    mutating func string(_ value: JSONValue, _ path: @autoclosure () -> String) -> String? {
        if case .string(let s) = value { return s }
        problem(path(), "expected string, found \(value.typeName)")
        return nil
    }

    mutating func requiredString(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> String? {
        func fieldPath() -> String { JSONPath.member(path(), key) }
        guard let value = fields[key], !value.isNull else {
            problem(fieldPath(), "required")
            return nil
        }
        guard let s = string(value, fieldPath()) else { return nil }
        if s.isEmpty { problem(fieldPath(), "must not be empty"); return nil }
        return s
    }

    mutating func optionalString(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> String? {
        guard let value = fields[key], !value.isNull else { return nil }
        return string(value, JSONPath.member(path(), key))
    }

    mutating func requiredDate(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> Instant? {
        guard let value = fields[key], !value.isNull else {
            problem(JSONPath.member(path(), key), "required")
            return nil
        }
        return date(value, JSONPath.member(path(), key))
    }

    mutating func optionalDate(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> Instant? {
        guard let value = fields[key], !value.isNull else { return nil }
        return date(value, JSONPath.member(path(), key))
    }

    private mutating func date(_ value: JSONValue, _ path: @autoclosure () -> String) -> Instant? {
        guard let text = string(value, path()) else { return nil }
        do {
            return try ISODate.read(text)
        } catch ISODateProblem.outOfRange {
            problem(path(), "'\(text)' is outside years 0001-9999")
        } catch {
            problem(path(), "'\(text)' is not an ISO 8601 date-time (2026-03-01T12:00:00Z)")
        }
        return nil
    }

    mutating func optionalDuration(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> ISODuration? {
        guard let value = fields[key], !value.isNull else { return nil }
        func fieldPath() -> String { JSONPath.member(path(), key) }
        guard let text = string(value, fieldPath()) else { return nil }
        let duration: ISODuration
        do {
            duration = try ISODuration.read(text)
        } catch let reason as ISODurationProblem {
            problem(fieldPath(), reason.message(for: text) + " (P16D, P1M, PT12H)")
            return nil
        } catch {
            return nil
        }
        // A period no date can be extended by without leaving years 0001–9999.
        guard duration.fitsSupportedRange else {
            problem(fieldPath(), "'\(text)' is too long: no date plus it stays within years 0001-9999")
            return nil
        }
        return duration
    }

    mutating func requiredEnum<E: RawRepresentable & CaseIterable>(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> E?
    where E.RawValue == String {
        guard let value = fields[key], !value.isNull else {
            problem(JSONPath.member(path(), key), "required")
            return nil
        }
        return enumValue(value, JSONPath.member(path(), key))
    }

    mutating func optionalEnum<E: RawRepresentable & CaseIterable>(_ fields: JSONObject, _ key: String, _ path: @autoclosure () -> String) -> E?
    where E.RawValue == String {
        guard let value = fields[key], !value.isNull else { return nil }
        return enumValue(value, JSONPath.member(path(), key))
    }

    private mutating func enumValue<E: RawRepresentable & CaseIterable>(_ value: JSONValue, _ path: @autoclosure () -> String) -> E?
    where E.RawValue == String {
        guard let text = string(value, path()) else { return nil }
        if let e = E(rawValue: text) { return e }
        let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
        problem(path(), "'\(text)' is not one of \(allowed)")
        return nil
    }
}
