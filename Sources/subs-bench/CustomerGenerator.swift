// One generated customer: a profile (monthly, yearly, weekly, switcher, family, lifetime,
// win-back, free) drawn from the customer's own random stream, its subscription chains with
// their renewals, the lifecycle events a store would record, grants, aliases and attributes.

enum TransactionType: String {
    case trialStarted, introStarted, introRenewed, subscriptionStarted, subscriptionRenewed
    case nonConsumablePurchase, consumablePurchase
}

struct GeneratedTransaction {
    var id: String
    var originalId: String
    var product: Int
    var type: TransactionType
    var date: Int64
    var expiration: Int64?
    var revocation: Int64?
    /// `.some(nil)` writes `"offerCode": null`.
    var offerCode: String??
    var sandbox = false
    var environmentWritten = false
    var familySharing = false
    var storefront: String?
    var priceMicros: Int?
    /// The order id of the App Store receipt that billed it (paid App Store transactions).
    var orderId: String?
}

struct GeneratedEvent {
    var type: StaticString
    var date: Int64
    var originalId: String
    var productId: String?
    var autoResume: Int64?
}

struct GeneratedGrant {
    var id: String
    var entitlement: String
    var grantedAt: Int64
    var expiration: Int64?
    var grantedBy: String
    var reason: String
    var revokedAt: Int64?
}

struct CustomerGenerator {
    let seed: UInt64
    private var rng = SplitMix64(seed: 0)
    private var index = 0
    private var counter = 0
    private var firstSeen: Int64 = 0
    private var transactions: [GeneratedTransaction] = []
    private var events: [GeneratedEvent] = []
    private var grants: [GeneratedGrant] = []
    /// The last customer written: its email (nil when it has none), a transaction id from the
    /// middle of its list and an order id — what the benchmark's `find` rows look for.
    private(set) var email: String?
    var middleTransactionId: String? { transactions.isEmpty ? nil : transactions[transactions.count / 2].id }
    var middleOrderId: String? {
        let ordered = transactions.compactMap(\.orderId)
        return ordered.isEmpty ? nil : ordered[ordered.count / 2]
    }

    private let now = StoreGenerator.now
    private let day = UTCTime.day
    private static let firstDay = UTCTime.seconds(year: 2023, month: 1, day: 1)
    private static let countries = ["US", "US", "US", "GB", "DE", "FR", "BR", "JP", "IN", "CA", "PL", "NL", "ES", "KR"]
    private static let storefronts = ["USA", "GBR", "DEU", "FRA", "BRA", "JPN"]
    private static let names = ["Alex Morgan", "José García", "Zoë Müller", "Łukasz Nowak", "Priya Sharma",
                                "佐藤 美咲", "Chris O'Neil", "Fatima Zahra", "Noah \"Nono\" Smith", "Ana Ribeiro"]
    private static let reasons = ["goodwill: billing problem", "promo: spring campaign", "beta tester",
                                  "influencer program", "support: app crash compensation"]

    init(seed: UInt64) {
        self.seed = seed
    }

    mutating func write(index: Int, id: String, to out: PrettyJSONStream, stats: inout GeneratedStore) {
        self.index = index
        rng = SplitMix64(seed: seed, stream: index)
        counter = 0
        transactions.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        grants.removeAll(keepingCapacity: true)
        firstSeen = date(from: CustomerGenerator.firstDay, to: now - 2 * day)

        makePurchases()
        makeGrants()
        sortByDate()

        out.beginObject(dynamicKey: id)
        if rng.chance(0.2) {
            var aliases = ["$anon:" + hex(SplitMix64.mix(UInt64(index) ^ seed), digits: 12)]
            if rng.chance(0.3) { aliases.append(id + "-android") }
            out.field("aliases", strings: aliases)
            stats.aliases += aliases.count
        }
        out.field("firstSeen", date: firstSeen)
        writeAttributes(id: id, to: out)
        out.beginArray("transactions")
        for transaction in transactions { write(transaction, to: out) }
        out.endArray()
        if !events.isEmpty {
            out.beginArray("events")
            for event in events { write(event, to: out) }
            out.endArray()
        }
        if !grants.isEmpty {
            out.beginArray("grants")
            for grant in grants { write(grant, to: out) }
            out.endArray()
        }
        out.endObject()

        stats.customers += 1
        stats.transactions += transactions.count
        stats.events += events.count
        stats.grants += grants.count
    }

    // MARK: - Profiles

    private mutating func makePurchases() {
        let start = date(from: firstSeen, to: min(firstSeen + 30 * day, now - day))
        let monthly = [StoreGenerator.product("pro_monthly"), StoreGenerator.product("pro_monthly"),
                       StoreGenerator.product("pro_monthly_android"), StoreGenerator.product("pro_plus_monthly")]
        let yearly = [StoreGenerator.product("pro_yearly"), StoreGenerator.product("pro_yearly_web")]
        let profile = rng.below(100)
        switch profile {
        case 0..<12:
            break   // free: at most consumables
        case 12..<52:
            subscription(rng.pick(monthly), start: start, periods: rng.int(in: 1...44))
        case 52..<64:
            subscription(rng.pick(yearly), start: start, periods: rng.int(in: 1...4))
        case 64..<68:
            subscription(StoreGenerator.product("pro_weekly_amazon"), start: start, periods: rng.int(in: 1...36))
        case 68..<76:
            // Moved from monthly to yearly: the first chain ends, the second starts days later.
            let end = subscription(rng.pick(monthly), start: start, periods: rng.int(in: 2...18), mustEnd: true)
            if end < now - day { subscription(rng.pick(yearly), start: date(from: end, to: min(end + 10 * day, now - 1)), periods: 3) }
        case 76..<81:
            subscription(StoreGenerator.product("family_plan"), start: start, periods: rng.int(in: 1...4),
                         familySharing: rng.chance(0.3))
        case 81..<86:
            var at = start
            if rng.chance(0.4) { at = subscription(rng.pick(monthly), start: start, periods: rng.int(in: 1...6), mustEnd: true) }
            if at < now { purchase(StoreGenerator.product("lifetime"), at: date(from: at, to: now - 1), refund: 0.05) }
        default:
            // Churned, then won back with an offer code.
            let end = subscription(rng.pick(monthly), start: start, periods: rng.int(in: 1...10), mustEnd: true)
            let back = date(from: end + 20 * day, to: end + 200 * day)
            if back < now - day {
                subscription(StoreGenerator.product("pro_monthly"), start: back, periods: rng.int(in: 1...30), offerCode: "WINBACK50")
            }
        }
        if rng.chance(profile < 12 ? 0.6 : 0.2) {
            for _ in 0..<rng.int(in: 1...6) {
                let coins = StoreGenerator.product(rng.chance(0.7) ? "coins_100" : "coins_500")
                purchase(coins, at: date(from: firstSeen, to: now - 1), refund: 0.02)
            }
        }
        if rng.chance(0.03) {
            purchase(StoreGenerator.product("early_access_pass"), at: date(from: firstSeen, to: now - 1), refund: 0)
        }
    }

    /// One subscription chain (optionally opened by a trial or intro offer) of at most `periods`
    /// paid periods, cut at `now`, with the events of how it went. Returns the end of its last period.
    @discardableResult
    private mutating func subscription(_ product: Int, start: Int64, periods: Int, mustEnd: Bool = false,
                                       offerCode: String? = nil, familySharing: Bool = false) -> Int64 {
        let spec = StoreGenerator.catalog[product]
        let trial = offerCode == nil && rng.chance(0.3)
        let intro = offerCode == nil && !trial && rng.chance(0.12) ? rng.int(in: 1...3) : 0
        let paid = trial && rng.chance(0.25) ? 0 : periods
        let first = transactions.count
        var t = start
        var k = 0
        var paidSoFar = 0
        var originalId = ""
        while t < now {
            var transaction = GeneratedTransaction(id: "", originalId: "", product: product, type: .subscriptionRenewed, date: t)
            var end = nextPeriod(spec, t)
            if k == 0 && trial {
                transaction.type = .trialStarted
                end = t + (spec.days > 0 ? 3 : 7) * day
            } else if k < intro {
                transaction.type = k == 0 ? .introStarted : .introRenewed
                if rng.chance(0.5) { transaction.offerCode = .some(nil) }
            } else {
                if paidSoFar == paid || (mustEnd && end >= now) { break }
                if paidSoFar == 0 && intro == 0 { transaction.type = .subscriptionStarted }
                paidSoFar += 1
            }
            transaction.expiration = end
            transaction.id = transactionId(spec.source, k, originalId: originalId)
            if k == 0 {
                originalId = transaction.id
                if let offerCode { transaction.offerCode = .some(offerCode) }
                if spec.source == .appstore && rng.chance(0.25) { transaction.storefront = rng.pick(CustomerGenerator.storefronts) }
            }
            transaction.originalId = originalId
            if transaction.type == .subscriptionStarted && rng.chance(0.3) { transaction.priceMicros = spec.months == 12 ? 59_990_000 : 9_990_000 }
            transaction.familySharing = familySharing
            decorateEnvironment(&transaction, spec)
            if spec.source == .appstore && transaction.type != .trialStarted { transaction.orderId = appleOrderId() }
            transactions.append(transaction)
            t = end
            k += 1
        }
        guard transactions.count > first else { return start }
        let last = transactions.count - 1
        let lastStart = transactions[last].date
        let end = transactions[last].expiration!
        if end <= now {
            // Ended: cancelled during the last period, or a renewal that could not be billed.
            let r = rng.below(100)
            if r < 65 {
                events.append(GeneratedEvent(type: "autoRenewDisabled", date: date(from: lastStart + 1, to: end - 1), originalId: originalId))
            } else if r < 90 {
                events.append(GeneratedEvent(type: "billingIssue", date: min(end + Int64(rng.below(3600)), now - 1), originalId: originalId))
            } else if spec.source == .playstore && end > now - 80 * day {
                // Paused at the end of the period (Google Play), resuming after `now`.
                events.append(GeneratedEvent(type: "pauseScheduled", date: date(from: lastStart + 1, to: end - 1), originalId: originalId,
                                             autoResume: UTCTime.adding(months: 3, to: end)))
            }
            if rng.chance(0.03) { transactions[last].revocation = min(lastStart + Int64(rng.int(in: 1...10)) * day, now - 1) }
        } else {
            let r = rng.below(100)
            let during = date(from: lastStart + 1, to: now - 1)
            if r < 12 {
                events.append(GeneratedEvent(type: "autoRenewDisabled", date: during, originalId: originalId))
            } else if r < 16 {
                events.append(GeneratedEvent(type: "autoRenewDisabled", date: during, originalId: originalId))
                events.append(GeneratedEvent(type: "autoRenewEnabled", date: date(from: during, to: now - 1), originalId: originalId))
            } else if r < 20 && spec.source == .playstore {
                let resume = UTCTime.adding(months: rng.int(in: 1...3), to: end)
                events.append(GeneratedEvent(type: "pauseScheduled", date: during, originalId: originalId, autoResume: resume))
                if rng.chance(0.3) { events.append(GeneratedEvent(type: "pauseCanceled", date: date(from: during, to: now - 1), originalId: originalId)) }
            } else if r < 23 && spec.source == .appstore && spec.months == 1 {
                let target = rng.chance(0.5) ? "pro_yearly" : (spec.id == "pro_plus_monthly" ? "pro_monthly" : "pro_plus_monthly")
                events.append(GeneratedEvent(type: "renewalProductChanged", date: during, originalId: originalId, productId: target))
            }
        }
        // A failed renewal that was recovered a few days later, somewhere in a long chain.
        if transactions.count - first >= 4 && rng.chance(0.08) {
            let j = rng.int(in: first + 1...last - 1)
            let failed = transactions[j].date
            events.append(GeneratedEvent(type: "billingIssue", date: failed, originalId: originalId))
            events.append(GeneratedEvent(type: "billingRecovered", date: min(failed + Int64(rng.int(in: 3600...5 * 86_400)), now - 1), originalId: originalId))
        }
        return end
    }

    private mutating func purchase(_ product: Int, at date: Int64, refund: Double) {
        let spec = StoreGenerator.catalog[product]
        let source: CatalogProduct.Source = spec.kind == .consumable && rng.chance(0.4) ? .playstore : spec.source
        let id = transactionId(source, 0, originalId: "")
        var transaction = GeneratedTransaction(id: id, originalId: id, product: product,
                                               type: spec.kind == .consumable ? .consumablePurchase : .nonConsumablePurchase,
                                               date: date)
        if rng.chance(refund) { transaction.revocation = min(date + Int64(rng.int(in: 1...14)) * day, now - 1) }
        decorateEnvironment(&transaction, spec)
        if source == .appstore { transaction.orderId = appleOrderId() }
        transactions.append(transaction)
    }

    private mutating func makeGrants() {
        guard rng.chance(0.05) else { return }
        for n in 1...(rng.chance(0.8) ? 1 : 2) {
            let grantedAt = date(from: firstSeen, to: now - 3600)
            let expiration: Int64? = rng.chance(0.1) ? nil : grantedAt + Int64(rng.pick([7, 14, 30, 90])) * day
            var grant = GeneratedGrant(id: "grant-\(n)", entitlement: rng.chance(0.8) ? "premium" : "early_access",
                                       grantedAt: grantedAt, expiration: expiration,
                                       grantedBy: rng.pick(["dana", "sam", "support-bot"]), reason: rng.pick(CustomerGenerator.reasons))
            if rng.chance(0.15) { grant.revokedAt = min(grantedAt + Int64(rng.int(in: 3600...5 * 86_400)), now - 1) }
            grants.append(grant)
        }
    }

    /// Store order is time order; ties keep the order of making (a trial before its conversion).
    private mutating func sortByDate() {
        transactions = transactions.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        events = events.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
    }

    // MARK: - Pieces

    private func nextPeriod(_ spec: CatalogProduct, _ t: Int64) -> Int64 {
        spec.months > 0 ? UTCTime.adding(months: spec.months, to: t) : t + Int64(spec.days) * day
    }

    /// A uniform instant in `[from, to]` (just `from` when the interval is empty).
    private mutating func date(from: Int64, to: Int64) -> Int64 {
        to <= from ? from : from + Int64(rng.next() % UInt64(to - from + 1))
    }

    private mutating func decorateEnvironment(_ transaction: inout GeneratedTransaction, _ spec: CatalogProduct) {
        if rng.chance(0.05) {
            transaction.environmentWritten = true
            transaction.sandbox = spec.source == .stripe && rng.chance(0.2)
        }
    }

    /// Ids the way each store makes them: App Store numbers, Google order ids whose renewals
    /// append `..N`, Stripe invoice ids, Amazon receipt ids.
    private mutating func transactionId(_ source: CatalogProduct.Source, _ k: Int, originalId: String) -> String {
        counter += 1
        switch source {
        case .appstore:
            return String(2_000_000_000_000_000 + UInt64(index) * 1000 + UInt64(counter))
        case .playstore:
            if k > 0 { return originalId + "..\(k - 1)" }
            let r = rng.next()
            return "GPA.\(3300 + r % 100)-\(1000 + (r >> 8) % 9000)-\(1000 + (r >> 24) % 9000)-\(10000 + (r >> 40) % 90000)"
        case .stripe:
            return "in_" + base62(rng.next(), count: 11) + base62(rng.next(), count: 11)
        case .amazon:
            return "amzn1." + hex(rng.next(), digits: 16)
        }
    }

    /// An Apple order id (`MK3Q9Z7X1T`: M, then nine letters and digits, the third a digit),
    /// made from the customer and the transaction counter, not drawn from the customer's random
    /// stream: the rest of the store is the same bytes as without order ids.
    private func appleOrderId() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        var v = SplitMix64.mix(seed ^ (UInt64(index) << 20 | UInt64(counter)) ^ 0x4F52_4445_5249_4453)
        var bytes: [UInt8] = [UInt8(ascii: "M")]
        for position in 1..<10 {
            let base = position == 2 ? 10 : 36
            bytes.append(alphabet[Int(v % UInt64(base))])
            v /= UInt64(base)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text.suffix(digits)
    }

    private func base62(_ value: UInt64, count: Int) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var v = value
        var bytes: [UInt8] = []
        for _ in 0..<count {
            bytes.append(alphabet[Int(v % 62)])
            v /= 62
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Writing

    private mutating func writeAttributes(id: String, to out: PrettyJSONStream) {
        email = nil
        guard rng.chance(0.9) else { return }
        out.beginObject("attributes")
        if rng.chance(0.8) {
            email = id + "@example.com"
            out.field("email", id + "@example.com")
        }
        out.field("country", rng.pick(CustomerGenerator.countries))
        if rng.chance(0.3) { out.field("displayName", rng.pick(CustomerGenerator.names)) }
        if rng.chance(0.4) { out.field("appVersion", "4.\(rng.below(20)).\(rng.below(5))") }
        out.endObject()
    }

    private func write(_ t: GeneratedTransaction, to out: PrettyJSONStream) {
        let spec = StoreGenerator.catalog[t.product]
        out.beginObject()
        out.field("transactionId", t.id)
        out.field("originalTransactionId", t.originalId)
        out.field("productId", spec.id)
        out.field("type", t.type.rawValue)
        out.field("transactionDate", date: t.date)
        if let expiration = t.expiration { out.field("expirationDate", date: expiration) }
        out.field("source", sourceName(t))
        if t.environmentWritten { out.field("environment", literal: t.sandbox ? "sandbox" : "production") }
        if t.familySharing { out.field("ownershipType", literal: "familySharing") }
        if let offerCode = t.offerCode {
            if let code = offerCode { out.field("offerCode", code) } else { out.nullField("offerCode") }
        }
        if let orderId = t.orderId { out.field("orderId", orderId) }
        if let revocation = t.revocation { out.field("transactionRevocationDate", date: revocation) }
        if let storefront = t.storefront { out.field("storefront", storefront) }
        if let price = t.priceMicros {
            out.field("priceMicros", number: price)
            out.field("currency", literal: "USD")
        }
        out.endObject()
    }

    private func sourceName(_ t: GeneratedTransaction) -> String {
        if t.id.hasPrefix("GPA.") { return "playstore" }
        return StoreGenerator.catalog[t.product].source.rawValue
    }

    private func write(_ e: GeneratedEvent, to out: PrettyJSONStream) {
        out.beginObject()
        out.field("type", literal: e.type)
        out.field("date", date: e.date)
        out.field("originalTransactionId", e.originalId)
        if let product = e.productId { out.field("productId", product) }
        if let resume = e.autoResume { out.field("autoResumeDate", date: resume) }
        out.endObject()
    }

    private func write(_ g: GeneratedGrant, to out: PrettyJSONStream) {
        out.beginObject()
        out.field("id", g.id)
        out.field("entitlement", g.entitlement)
        out.field("grantedAt", date: g.grantedAt)
        if let expiration = g.expiration { out.field("expirationDate", date: expiration) } else { out.nullField("expirationDate") }
        out.field("grantedBy", g.grantedBy)
        out.field("reason", g.reason)
        if let revokedAt = g.revokedAt {
            out.field("revokedAt", date: revokedAt)
            out.field("revokedBy", literal: "dana")
            out.field("revokeReason", literal: "granted by mistake")
        }
        out.endObject()
    }
}
