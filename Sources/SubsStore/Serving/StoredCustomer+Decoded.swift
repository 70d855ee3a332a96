// A served customer decoded for the rules: the status routes of `subs serve` (entitlements,
// history, renewal counts) judge the same bytes the record route splices, from the same version.

import SubsJSON
import SubsModel

extension StoredCustomer {
    /// The record and its version's catalog, decoded as a local read decodes them (the record was
    /// checked when its version was: a problem here means the bytes changed under the read).
    package func decoded(path: String) throws -> (record: CustomerRecord, catalog: Catalog) {
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(try JSON.parse(products))
        let record = decoder.customer(id: id, try JSON.parse(self.record), catalog: catalog,
                                      path: JSONPath.member("customers", id))
        guard let record, decoder.problems.isEmpty else {
            throw StoreError.invalid(path: path, problems: decoder.problems)
        }
        return (record, catalog)
    }
}
