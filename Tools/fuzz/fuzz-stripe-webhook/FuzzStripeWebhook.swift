import FuzzSupport

/// libFuzzer target: any body and any `Stripe-Signature` header a Stripe
/// webhook endpoint can receive, through the Stripe pieces (signature check,
/// event parse). See ``StripeWebhookFuzzing`` and scripts/fuzz.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStripeWebhook(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    StripeWebhookFuzzing.check(FuzzEntry.bytes(data, size))
    return 0
}

@main struct FuzzStripeWebhookMain {
    static func main() { FuzzEntry.run(fuzzStripeWebhook) }
}
