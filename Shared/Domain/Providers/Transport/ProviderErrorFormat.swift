import BillingModel
import JSONCodec
import Webhooks

/// Reads each provider's error body into a message, a code and sometimes a kind.
package enum ProviderErrorFormat {
    package struct Detail {
        var message: String?
        var code: String?
        /// Overrides the status-based kind (Paystack answers "Invalid key" with 400 or 401).
        var kind: ProviderError.Kind?

        package init(message: String?, code: String? = nil, kind: ProviderError.Kind? = nil) {
            self.message = message
            self.code = code
            self.kind = kind
        }
    }

    static func detail(_ provider: Provider, _ body: JSONValue?) -> Detail {
        switch provider {
        case .lemonsqueezy: lemonSqueezy(body)
        case .paystack: paystack(body)
        }
    }

    /// Lemon Squeezy: a JSON:API `errors` array (`detail`, `title`, `source.pointer`);
    /// tolerates the `{error}` / `{message}` shapes the official SDK also reads.
    static func lemonSqueezy(_ body: JSONValue?) -> Detail {
        if let first = body?["errors"]?.array?.first {
            let message = first["detail"]?.string ?? first["title"]?.string
            return Detail(message: message, code: first["source", "pointer"]?.string ?? first["code"]?.string)
        }
        if let error = body?["error"] {
            return Detail(message: error.string ?? error["message"]?.string)
        }
        return Detail(message: body?["message"]?.string)
    }

    /// Paystack: `{"status": false, "message": …, "code": …, "type": …}`.
    static func paystack(_ body: JSONValue?) -> Detail {
        let message = body?["message"]?.string
        let invalidKey = message?.lowercased() == "invalid key"
        return Detail(message: message, code: body?["code"]?.string, kind: invalidKey ? .unauthorized : nil)
    }

    /// A 2xx body that nevertheless reports failure (Paystack `status: false`).
    static func failureInSuccess(_ provider: Provider, _ body: JSONValue) -> Detail? {
        guard provider == .paystack, body["status"]?.bool == false else { return nil }
        var detail = paystack(body)
        if detail.message == nil { detail.message = "request failed (status false)" }
        return detail
    }
}
