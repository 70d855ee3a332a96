// `GET /v1/customers?search=TERM` (`&attribute=KEY`, repeatable) of the subs REST API: the find
// document of SPEC section 4 for one term, evaluated at the server's clock. A search reads the
// store file in one scan, exactly as a local `subs find` does (emails and transaction ids are not
// in the served index: indexing a million transaction ids would cost more memory than the rest
// of the server).

import SubsHTTP
import SubsJSON

struct CustomerSearchRoute {
    let store: LocalStore
    let clock: any Clock

    /// The answer to `request`; `failure` turns a store error into the API's error answer.
    func answer(_ request: HTTPRequest, failure: (Error) -> HTTPResponse) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(allow: ["GET", "HEAD"]) }
        var terms: [String] = []
        var attributes: [String] = []
        for parameter in (request.query ?? "").utf8.split(separator: UInt8(ascii: "&")) {
            let parts = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            // `+` stays a plus sign (emails hold it); a space is %20.
            guard let name = HTTPRequest.percentDecode(parts[0]),
                  let value = parts.count == 2 ? HTTPRequest.percentDecode(parts[1]) : "" else {
                return .invalidRequest("the query string is not valid percent-encoded UTF-8")
            }
            switch name {
            case "search": terms.append(value)
            case "attribute": attributes.append(value)
            default:
                return .invalidRequest("unknown query parameter '\(name)' (this route takes search and attribute)")
            }
        }
        guard terms.count == 1, let term = terms.first else {
            return .invalidRequest(terms.isEmpty ? "search: required (GET /v1/customers?search=TERM)" : "search: give one term per request")
        }
        let query = FindQuery(terms: [term], attributes: attributes)
        if let problem = query.problem { return .invalidRequest("search: \(problem)") }
        do {
            let found = try store.find(query)
            return .json(found.results([term], at: clock.now())[0].document)
        } catch {
            return failure(error)
        }
    }
}
