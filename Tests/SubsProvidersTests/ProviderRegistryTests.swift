// The registered providers (SubsProviders/Providers.swift): one word each, and what the command line
// reads of a descriptor before any request.

import XCTest
@testable import SubsProviders

final class ProviderRegistryTests: XCTestCase {
    func testEachProviderHasOneWordOfItsOwn() {
        let names = ProviderDescriptor.registered.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "\(names)")
        XCTAssertEqual(names.first, "subs", "the default provider is listed first")
        for name in names { XCTAssertEqual(name, name.lowercased()); XCTAssertFalse(name.isEmpty) }
    }

    func testOnlyTheSubsProviderAnswersWithoutARemoteAndWithoutAKey() {
        for provider in ProviderDescriptor.registered {
            let local = provider.name == "subs"
            XCTAssertEqual(provider.isAlwaysRemote, !local, provider.name)
            XCTAssertEqual(provider.needsKey, !local, provider.name)
            // A platform without a default address says what --remote must name.
            if provider.defaultBaseURL == nil && !local { XCTAssertNotNil(provider.remoteRequired, provider.name) }
            if let url = provider.defaultBaseURL { XCTAssertTrue(url.hasPrefix("https://"), url) }
        }
    }
}
