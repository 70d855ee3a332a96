// Generates the benchmark stores of SPEC section 8 from a seed: the catalog, then every customer
// streamed to the file as it is made (see CustomerGenerator for what a customer holds).

#if canImport(Glibc)
import Glibc
#endif

/// What was written, for the report.
struct GeneratedStore {
    var path: String
    var bytes = 0
    var customers = 0
    var transactions = 0
    var events = 0
    var grants = 0
    var aliases = 0
    /// What the `find` rows look for: the first email, transaction id and order id found from
    /// the middle customer on.
    var probeEmail = ""
    var probeTransactionId = ""
    var probeOrderId = ""
}

/// One product of the benchmark catalog.
struct CatalogProduct {
    enum Kind { case subscription, nonConsumable, consumable }
    enum Source: String {
        case appstore, playstore, stripe, amazon
    }

    let id: String
    let kind: Kind
    let entitlements: [String]
    /// Length of one period: calendar months, else days (subscriptions only).
    var months = 0
    var days = 0
    var gracePeriod: String?
    var billingRetryPeriod: String?
    let displayName: String
    let source: Source
}

/// How the store is laid out. Both are pretty-printed with a 2-space indent down to each
/// customer's fields; `records` then writes every transaction, event and grant on one line (the
/// way subs writes a record that stood on one line), `pretty` indents them too, like
/// examples/store.json — the same data, about 1.4 times the bytes.
enum StoreLayout: String {
    case records, pretty

    /// The depth from which containers are written on one line (root 0, customers 1, a customer
    /// 2, its transactions 3, one transaction 4).
    var compactDepth: Int { self == .records ? 4 : .max }
}

struct StoreGenerator {
    let customers: Int
    let seed: UInt64
    var layout: StoreLayout = .records
    /// The `SUBS_NOW` the benchmark runs at: nothing in the store is dated after it.
    static let now = UTCTime.seconds(year: 2026, month: 12, day: 1, hour: 12)
    static let nowText = UTCTime.iso(now)

    static let catalog: [CatalogProduct] = [
        CatalogProduct(id: "pro_monthly", kind: .subscription, entitlements: ["premium"], months: 1,
                       gracePeriod: "P16D", billingRetryPeriod: "P60D", displayName: "Pro (monthly, App Store)", source: .appstore),
        CatalogProduct(id: "pro_yearly", kind: .subscription, entitlements: ["premium"], months: 12,
                       gracePeriod: "P7D", displayName: "Pro (yearly, App Store)", source: .appstore),
        CatalogProduct(id: "pro_monthly_android", kind: .subscription, entitlements: ["premium"], months: 1,
                       gracePeriod: "P7D", billingRetryPeriod: "P30D", displayName: "Pro (monthly, Google Play)", source: .playstore),
        CatalogProduct(id: "pro_yearly_web", kind: .subscription, entitlements: ["premium"], months: 12,
                       gracePeriod: "P30D", displayName: "Pro (yearly, web checkout)", source: .stripe),
        CatalogProduct(id: "pro_plus_monthly", kind: .subscription, entitlements: ["premium", "pro_plus"], months: 1,
                       gracePeriod: "P16D", displayName: "Pro Plus (monthly, App Store)", source: .appstore),
        CatalogProduct(id: "family_plan", kind: .subscription, entitlements: ["premium", "family"], months: 12,
                       gracePeriod: "P16D", displayName: "Family (yearly, App Store)", source: .appstore),
        CatalogProduct(id: "pro_weekly_amazon", kind: .subscription, entitlements: ["premium"], days: 7,
                       billingRetryPeriod: "P14D", displayName: "Pro (weekly, Amazon Appstore)", source: .amazon),
        CatalogProduct(id: "lifetime", kind: .nonConsumable, entitlements: ["premium"],
                       displayName: "Pro (lifetime)", source: .appstore),
        CatalogProduct(id: "early_access_pass", kind: .nonConsumable, entitlements: ["early_access"],
                       displayName: "Early access pass", source: .playstore),
        CatalogProduct(id: "coins_100", kind: .consumable, entitlements: [], displayName: "100 coins", source: .appstore),
        CatalogProduct(id: "coins_500", kind: .consumable, entitlements: [], displayName: "500 coins", source: .appstore),
    ]

    /// The product index of a catalog id (the generator's tables name products by id).
    static func product(_ id: String) -> Int {
        catalog.firstIndex { $0.id == id }!
    }

    /// `user_000042`: at least six digits, more when the store needs them.
    static func customerId(_ index: Int, of count: Int) -> String {
        let digits = String(index)
        let width = max(6, String(max(count - 1, 0)).count)
        return "user_" + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    func customerId(_ index: Int) -> String {
        StoreGenerator.customerId(index, of: customers)
    }

    /// Writes the store to `path` (through a temporary file, so a store that exists is complete).
    func write(to path: String) throws -> GeneratedStore {
        let temporary = path + ".partial"
        let out = try PrettyJSONStream(path: temporary, compactDepth: layout.compactDepth)
        var stats = GeneratedStore(path: path)
        out.beginObject()
        out.field("schemaVersion", number: 1)
        out.field("description", "subs benchmark store: \(customers) customers, seed \(seed), consistent at \(StoreGenerator.nowText)")
        writeCatalog(out)
        out.beginObject("customers")
        var generator = CustomerGenerator(seed: seed)
        for index in 0..<customers {
            generator.write(index: index, id: customerId(index), to: out, stats: &stats)
            guard index >= customers / 2 else { continue }
            if stats.probeEmail.isEmpty, let email = generator.email { stats.probeEmail = email }
            if stats.probeTransactionId.isEmpty, let id = generator.middleTransactionId { stats.probeTransactionId = id }
            if stats.probeOrderId.isEmpty, let id = generator.middleOrderId { stats.probeOrderId = id }
        }
        out.endObject()
        out.endObject()
        try out.finish()
        stats.bytes = out.bytesWritten
        guard rename(temporary, path) == 0 else {
            throw BenchError("cannot rename \(temporary): \(String(cString: strerror(errno)))")
        }
        return stats
    }

    private func writeCatalog(_ out: PrettyJSONStream) {
        out.beginObject("products")
        for product in StoreGenerator.catalog {
            out.beginObject(dynamicKey: product.id)
            switch product.kind {
            case .subscription: out.field("type", literal: "subscription")
            case .nonConsumable: out.field("type", literal: "nonConsumable")
            case .consumable: out.field("type", literal: "consumable")
            }
            out.field("entitlements", strings: product.entitlements)
            if let grace = product.gracePeriod { out.field("gracePeriod", grace) }
            if let retry = product.billingRetryPeriod { out.field("billingRetryPeriod", retry) }
            out.field("displayName", product.displayName)
            out.endObject()
        }
        out.endObject()
    }
}
