// The local store behind the seam: its records for `RecordSource`, which runs the rules over
// them. The store knows nothing of the seam (it stands below it); this is where the two meet.

import SubsModel
import SubsStore
import SubsSource

extension LocalStore: RecordStore {
    public func lookup(_ ids: [ID]) throws -> CustomerLookup {
        let read = try read(ids)
        return CustomerLookup(catalog: read.catalog, records: read.records)
    }
}
