import Foundation

/// Sends App Store Server Notifications V2 as Apple would, on command:
/// `POST /_sandbox/apple/notifications` builds the payload, has it signed
/// (``SandboxSigner/signsAppleNotification``: by the sandbox's own Apple-shaped
/// chain, or by a stranger's chain the receiver must refuse) and POSTs
/// `{"signedPayload": …}` to `APPLE_NOTIFICATIONS_URL`, answering with the
/// receiver's status.
///
/// Body: `{"externalPurchaseId": "SANDBOX_…", "subtype"?: "UNREPORTED",
/// "notificationType"?: "EXTERNAL_PURCHASE_TOKEN", "signed_by"?: "sandbox" | "stranger",
/// "tokenCreationDate"?: <UNIX ms>, "tokenType"?: "ACQUISITION", "notificationUUID"?: "…"}`;
/// the same `notificationUUID` again is Apple's retry of one notification.
struct AppleNotificationSender: Sendable {
    let context: SandboxContext
    let transport: any WebhookTransport

    func send(_ body: JSONValue) async -> HandlerResult {
        guard let url = context.configuration.apple.notificationsURL else {
            return HandlerResult(.json(409, ["error": "APPLE_NOTIFICATIONS_URL is not set: the sandbox has nowhere to send notifications"]))
        }
        guard let token = body["externalPurchaseId"]?.stringValue, !token.isEmpty else {
            return HandlerResult(.json(422, ["error": "externalPurchaseId is required"]))
        }
        let signedBy = body["signed_by"]?.stringValue ?? "sandbox"
        guard ["sandbox", "stranger"].contains(signedBy) else { return HandlerResult(.json(422, ["error": "signed_by is sandbox or stranger"])) }
        let uuid = body["notificationUUID"]?.stringValue ?? UUID().uuidString.lowercased()
        let now = Int64(context.clock.now().timeIntervalSince1970 * 1000)
        var tokenObject: JSONValue = [
            "externalPurchaseId": .string(token), "tokenCreationDate": .int(body["tokenCreationDate"]?.intValue ?? Int(now - 10 * 86_400_000)),
            "appAppleId": 1_234_567_890, "bundleId": .string(context.configuration.apple.bundleID),
        ]
        if let type = body["tokenType"]?.stringValue { tokenObject = tokenObject.setting("tokenType", .string(type)) }
        let payload: JSONValue = [
            "notificationType": .string(body["notificationType"]?.stringValue ?? "EXTERNAL_PURCHASE_TOKEN"),
            "subtype": .string(body["subtype"]?.stringValue ?? "UNREPORTED"), "notificationUUID": .string(uuid), "version": "2.0",
            "signedDate": .int(Int(now)), "externalPurchaseToken": tokenObject,
        ]
        guard let signed = context.signer.signsAppleNotification(JSONWriter.encode(payload), signedBy == "sandbox") else {
            return HandlerResult(.json(500, ["error": "the sandbox cannot sign App Store notifications (no openssl?)"]))
        }
        let request = JSONWriter.encode(["signedPayload": .string(signed)])
        do {
            let status = try await transport.post(url: url, headers: [("Content-Type", "application/json")], body: request)
            return HandlerResult(.json(200, ["notificationUUID": .string(uuid), "status": .int(status), "signed_by": .string(signedBy)]))
        } catch {
            return HandlerResult(.json(502, ["notificationUUID": .string(uuid), "error": .string("delivery failed: \(error)")]))
        }
    }
}
