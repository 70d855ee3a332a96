// The subs REST API's answers on SubsHTTP's responses: JSON bodies written with SubsJSON and the
// error envelope `{"error": {"code": CODE, "message": MESSAGE}}` (SPEC section 6), which is also
// the body of every refusal the engine makes itself (`subsRefusal`). The engine knows no JSON.

import SubsJSON
import SubsHTTP

extension HTTPResponse {
    /// A JSON body written with SubsJSON's writer, `Content-Type: application/json`.
    public static func json(_ value: JSONValue, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        var body = Array(JSONWriter.compact(value).utf8)
        body.append(0x0A)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// `{"error": {"code": CODE, "message": MESSAGE}}`; `allow` adds the `Allow` header a 405 needs.
    public static func error(status: Int, code: String, message: String, allow: [String]? = nil) -> HTTPResponse {
        let value = JSONValue.object(JSONObject([
            ("error", .object(JSONObject([("code", .string(code)), ("message", .string(message))]))),
        ]))
        var headers: [(String, String)] = []
        if let allow { headers.append(("Allow", allow.joined(separator: ", "))) }
        return json(value, status: status, headers: headers)
    }

    public static func invalidRequest(_ message: String) -> HTTPResponse { error(status: 400, code: "invalid_request", message: message) }
    public static func notFound(_ message: String = "no such resource") -> HTTPResponse { error(status: 404, code: "not_found", message: message) }
    public static func methodNotAllowed(allow: [String]) -> HTTPResponse {
        error(status: 405, code: "method_not_allowed", message: "method not allowed (allowed: \(allow.joined(separator: ", ")))", allow: allow)
    }
    public static func internalError(_ message: String = "internal error") -> HTTPResponse { error(status: 500, code: "internal", message: message) }
}

extension HTTPRefusal {
    /// The engine's refusals (400, 408, 413, 503…) in the subs error envelope.
    public static let subsRefusal: HTTPRefusal.Response = { refusal in
        var answer = HTTPResponse.error(status: refusal.status, code: refusal.code, message: refusal.message)
        answer.headers.append((SubsAPI.requestIdHeader, RequestId.next()))
        return answer
    }
}

extension HTTPServerConfiguration {
    /// A configuration whose refusals carry the subs error envelope, as every answer of the subs
    /// REST API does (`subs serve`, and the loopback servers of the tests).
    public static func subsAPI(host: String = "127.0.0.1", port: Int = 8787) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration(host: host, port: port)
        configuration.refusalResponse = HTTPRefusal.subsRefusal
        configuration.requestIdHeader = SubsAPI.requestIdHeader
        return configuration
    }
}
