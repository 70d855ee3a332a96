// Provider `subs`: the local store without --remote, `subs serve` with it (no key needed).

extension ProviderDescriptor {
    public static let subs = ProviderDescriptor(name: "subs", needsKey: false, manual: """
        With --provider subs the base URL is the address of subs serve, with or without /v1; every \
        write option but --dry-run is carried, and an error answer shows the server's message and \
        gives the exit status the same command gives on a local store (invalid_request 64, \
        customer_not_found, entitlement_not_found and grant_not_found 3, invalid_store 65, \
        store_unreadable 66, store_unwritable 73, busy 75, internal 70).
        """) { setup in
        RecordSource(records: RemoteRecordStore(client: setup.client, cachePolicy: setup.cachePolicy), clock: setup.clock)
    }
}
