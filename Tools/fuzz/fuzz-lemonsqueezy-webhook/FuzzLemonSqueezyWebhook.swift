import FuzzSupport
import BillingModel

/// libFuzzer target: any body posted to `/api/webhooks/lemonsqueezy`
/// (signature check over the raw bytes, the receiver's parse, the projector's
/// reading of the envelope). See ``WebhookFuzzing`` and scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLemonSqueezyWebhook(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    WebhookFuzzing.check(.lemonsqueezy, FuzzEntry.bytes(data, size))
    return 0
}

@main struct FuzzLemonSqueezyWebhookMain {
    static func main() { FuzzEntry.run(fuzzLemonSqueezyWebhook) }
}
