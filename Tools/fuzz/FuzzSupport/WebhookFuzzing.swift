import ServiceSettings
import CryptoPrimitives
import Foundation
import BillingModel
import JSONCodec
import Webhooks

/// What must hold for any body a provider (or anyone) can post to
/// `/api/webhooks/{provider}`, checked by the webhook fuzz targets: the
/// signature check over the raw bytes, then the one-pass parse the receiver
/// runs and the envelope the projector reads back. A violated property
/// crashes (`preconditionFailure`), which libFuzzer reports with the input.
public enum WebhookFuzzing {
    static let secret = "fuzz-webhook-secret"
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    public static func check(_ provider: Provider, _ body: [UInt8]) {
        checkVerification(provider, body)
        checkParsing(provider, body)
    }

    static func signature(_ provider: Provider, _ body: [UInt8], secret: String = secret) -> String {
        provider.webhookRules.signatureHeader(body: body, secret: Secret(secret), at: receivedAt).value
    }

    static func checkVerification(_ provider: Provider, _ body: [UInt8]) {
        let verifier = provider.webhookRules.verifier(secret: Secret(secret))
        let header = verifier.signatureHeader
        let good = signature(provider, body)
        let fits = body.count <= JSONValue.maximumBodySize
        func verifies(_ headers: [(String, String)]) -> Bool {
            (try? verifier.verify(headers: headers, body: body, remoteAddress: "127.0.0.1")) != nil
        }
        // The right signature verifies (any header case, upper-case hex too) exactly when the body fits.
        guard verifies([(header, good)]) == fits, verifies([(header.uppercased(), good.uppercased())]) == fits else {
            preconditionFailure("a correctly signed \(provider) body of \(body.count) bytes was refused (or an oversized one accepted)")
        }
        // Nothing else ever does: no header, an empty one, one wrong digit, a
        // signature under another secret, or the body's own bytes as the signature.
        var wrong = Array(good.utf8)
        wrong[body.count % wrong.count] = wrong[body.count % wrong.count] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let forged: [[(String, String)]] = [
            [],
            [(header, "")],
            [(header, String(decoding: wrong, as: UTF8.self))],
            [(header, signature(provider, body, secret: secret + "x"))],
            [(header, String(good.dropLast(2)))],
            [(header, String(decoding: body.prefix(256), as: UTF8.self))],
        ]
        for headers in forged where verifies(headers) {
            preconditionFailure("a forged \(provider) signature verified: \(headers.first?.1.prefix(40) ?? "none")")
        }
    }

    static func checkParsing(_ provider: Provider, _ body: [UInt8]) {
        let read = ProviderWebhooks.read(provider, body: body, receivedAt: receivedAt)
        // The projector's normaliser, over the envelope the receiver built.
        let normalized = try? ProviderWebhooks.normalize(read.envelope)
        // The receiver's one-pass read agrees with the projector's normaliser.
        guard read.isUnderstood == (normalized != nil) else {
            preconditionFailure("read says understood=\(read.isUnderstood), normalize says \(normalized != nil)")
        }
        guard read.envelope.payload.bytes == body, !read.envelope.id.isEmpty else {
            preconditionFailure("the envelope of a \(provider) body lost its bytes or its id")
        }
        if let normalized, read.topicKey != normalized.entityKey {
            preconditionFailure("topic key \(read.topicKey) is not the event's entity key \(normalized.entityKey)")
        }
        // The envelope survives the topic: encoded, decoded and normalised again as the projector does.
        do {
            let decoded = try WebhookEnvelope.decodeRecord(read.envelope.encodedRecord())
            guard decoded.payload.bytes == body, decoded.id == read.envelope.id, decoded.eventName == read.envelope.eventName else {
                preconditionFailure("the envelope changed on its way through its record")
            }
            let again = try? ProviderWebhooks.normalize(decoded)
            guard (again != nil) == (normalized != nil) else {
                preconditionFailure("the projector reads the envelope differently from the receiver")
            }
        } catch {
            preconditionFailure("the envelope of a \(provider) body does not round-trip: \(error)")
        }
        // The byte-level reader accepts nothing Foundation's parser calls malformed.
        if (try? JSONValue.parse(body)) != nil,
            (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) == nil
        {
            preconditionFailure("JSONReader accepted what JSONSerialization rejects")
        }
    }
}
