// Provider `subs`: the local store without --remote, `subs serve` with it (no key needed).

import SubsSource

extension ProviderDescriptor {
    public static let subs = ProviderDescriptor(name: "subs", needsKey: false, manual: """
        With {flag:--provider} subs the base URL is the address of subs serve, with or without /v1; every \
        write option but {flag:--dry-run} is carried, and an error answer shows the server's message and \
        gives the exit status the same command gives on a local store (invalid_request {exit:usage}, \
        customer_not_found, entitlement_not_found and grant_not_found {exit:not-found}, invalid_store {exit:data}, \
        store_unreadable {exit:no-input}, store_unwritable {exit:cannot-write}, busy {exit:temporary}, \
        internal {exit:internal}).
        """, apis: [
            // The local store answers through the same RecordSource, so it offers the same.
            ProviderAPI(title: "subs", baseURL: "http://127.0.0.1:8787",
                        selectedWith: "{flag:--store PATH}, or {flag:--remote URL} to subs serve"),
        ]) { setup in
        RecordSource(records: RemoteRecordStore(client: setup.client, cachePolicy: setup.cachePolicy), clock: setup.clock)
    }
}
