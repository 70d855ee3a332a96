// Provider `subs`: the local store without --remote, `subs serve` with it (no key needed).

extension ProviderDescriptor {
    public static let subs = ProviderDescriptor(name: "subs", needsKey: false) { setup in
        RecordSource(records: RemoteRecordStore(client: setup.client, cachePolicy: setup.cachePolicy), clock: setup.clock)
    }
}
