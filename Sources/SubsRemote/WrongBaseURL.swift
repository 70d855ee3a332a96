// A 404 that is not the API's own answer: the request reached a web server, but not the API the
// provider speaks at that path (a typo in --remote, a missing or doubled /v1, another service).
// Never "customer not found": that would send a support agent looking for a customer who exists.
// The CLI: exit 78 (configuration).

import SubsJSON

public struct WrongBaseURL: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL asked, as shown in messages (no secrets).
    public var url: String
    /// Why this 404 is not the API's ("and a body that is not RevenueCat's error JSON").
    public var why: String
    /// What the base URL should look like ("end in /v1, as in https://api.revenuecat.com/v1").
    public var expected: String

    public init(url: String, why: String, expected: String) {
        self.url = url
        self.why = why
        self.expected = expected
    }

    public var description: String {
        "\(url): HTTP 404 \(why): the base URL (--remote) looks wrong; it should \(expected)"
    }
}

extension RemoteAnswer {
    /// The body as a JSON object, when it is one (an API's error answer, or not).
    public var jsonObject: JSONObject? {
        (try? JSON.parse(response.body))?.objectValue
    }
}
