import FuzzSupport
import BillingModel

/// libFuzzer target: any body posted to `/api/webhooks/paystack`
/// (signature check over the raw bytes, the receiver's parse, the projector's
/// reading of the envelope). See ``WebhookFuzzing`` and scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPaystackWebhook(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    WebhookFuzzing.check(.paystack, FuzzEntry.bytes(data, size))
    return 0
}

@main struct FuzzPaystackWebhookMain {
    static func main() { FuzzEntry.run(fuzzPaystackWebhook) }
}
