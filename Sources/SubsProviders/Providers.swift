// Every provider subs speaks, one line each, in the order `--provider` lists them. A new
// platform is a folder of SubsProviders with its descriptor, and its line here.

extension ProviderDescriptor {
    public static let registered: [ProviderDescriptor] = [
        .subs,
        .revenueCat,
        .qonversion,
        .iaphub,
    ]
}
