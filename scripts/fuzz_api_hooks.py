"""schemathesis hooks of scripts/fuzz-api.sh: the two-user check.

scripts/fuzz-api.sh fuzzes as one user while another user (the owner) holds
purchases; FUZZ_OWNER_SECRETS names a JSON file (fuzz_api.py owner) whose
"secrets" are what the fuzzing user must never be shown: the owner's
subscription codes, email, user id, email token and portal URLs, the owner's
redemption link and redeemed purchase, a bystander's redemption link and the
anonymous user merged into the owner. Every
answer is searched for them: in a JSON body, a value under an identifying key
(subscription_code, email, a purchase's id, …) equal to a secret, or a long secret anywhere; in
headers and other bodies, long secrets. A secret the request itself carried
does not count (an error that repeats the caller's own input reveals nothing). Whether the owner's purchases changed is checked after the run
(fuzz_api.py check --owner-before/--owner-after, and --redemptions: the
bystander's purchase is still without an owner).
"""
import json
import os
from urllib.parse import unquote

import schemathesis

_SECRETS = None


def owner_secrets():
    global _SECRETS
    if _SECRETS is None:
        path = os.environ.get("FUZZ_OWNER_SECRETS")
        _SECRETS = json.load(open(path))["secrets"] if path else []
    return _SECRETS


def request_text(response):
    request = getattr(response, "request", None)
    if request is None:
        return ""
    body = getattr(request, "body", None) or b""
    if isinstance(body, str):
        body = body.encode()
    return str(getattr(request, "url", "")) + "\n" + body.decode("utf-8", "replace")


# Fields whose value names a purchase or its owner: there even a short secret
# (a Lemon Squeezy subscription id is a small number) counts when it matches whole.
IDENTIFYING_KEYS = {"subscription_code", "subscription_id", "email_token", "customer_portal_url",
                    "update_payment_method_url", "email", "customer_email", "app_user_id", "user_id", "url"}
# A purchase reference ({"provider", "type", "id"}: POST /api/redeem's purchase, POST /api/restore's
# claimed) names the purchase by its id: identifying there, not under every "id".
PURCHASE_KEYS = {"purchase", "claimed"}
# Anywhere else a secret counts only when it is long enough not to match by chance.
MIN_FREE_TEXT = 8


def matches(value, secrets, key=None, parent=None):
    """The secrets found in a decoded JSON value: whole values under identifying keys, long ones anywhere."""
    found = set()
    if isinstance(value, dict):
        for name, item in value.items():
            found |= matches(item, secrets, name, key)
    elif isinstance(value, list):
        for item in value:
            found |= matches(item, secrets, key, parent)
    elif isinstance(value, (str, int)) and not isinstance(value, bool):
        text = str(value)
        identifying = key in IDENTIFYING_KEYS or (key == "id" and parent in PURCHASE_KEYS)
        for secret in secrets:
            if (identifying and text == secret) or (len(secret) >= MIN_FREE_TEXT and secret in text):
                found.add(secret)
    return found


@schemathesis.check
def reveals_nothing_of_another_user(ctx, response, case):
    """Fails on an answer that shows the fuzzing user anything of the owner's purchases."""
    secrets = owner_secrets()
    if not secrets:
        return None
    body = (response.content or b"").decode("utf-8", "replace")
    try:
        found = matches(json.loads(body), secrets)
    except ValueError:
        found = {secret for secret in secrets if len(secret) >= MIN_FREE_TEXT and secret in body}
    headers = "\n".join(f"{name}: {value}" for name, value in response.headers.items())
    found |= {secret for secret in secrets if len(secret) >= MIN_FREE_TEXT and secret in headers}
    # A code or email can arrive percent-encoded in a URL: compare decoded too.
    sent = request_text(response)
    sent += "\n" + unquote(sent)
    shown = sorted(secret for secret in found if secret not in sent)
    if shown:
        raise AssertionError(f"the answer shows another user's purchase: {', '.join(shown)}")
    return None


def probes_of(case, codes, emails, links=(), anonymous=()):
    """Which of the owner's purchases this request aimed at: ("code" | "email" | "link" | "anonymous", operation)."""
    found = set()
    label = case.operation.label
    query = case.query if isinstance(case.query, dict) else {}
    body = case.body if isinstance(case.body, dict) else {}
    for value in (query.get("subscription_code"), body.get("subscription_code")):
        if isinstance(value, str) and value in codes:
            found.add(("code", label))
    # Negative cases put any JSON value there: only strings can be one of the owner's.
    def has(value, wanted):
        return isinstance(value, str) and value in wanted

    if has(query.get("email"), emails) or has(body.get("email"), emails):
        found.add(("email", label))
    if has(body.get("token"), links):
        found.add(("link", label))
    if has(body.get("anonymousToken"), anonymous):
        found.add(("anonymous", label))
    return found


@schemathesis.check
class ProbesTheOwner:
    """Fails the run when the fuzz user never aimed at the owner's purchases.

    Without it a run whose dictionaries never reached cancel, resume, the
    portal or the status with the owner's codes and email, redemption with the
    owner's redeemed link, alias with the anonymous user merged into the
    owner, or the resend of links with the owner's email, would pass while
    testing nothing of the two-user rule.
    """

    def __init__(self):
        self.probed = set()

    def after_response(self, ctx, response, case):
        path = os.environ.get("FUZZ_OWNER_SECRETS")
        if not path:
            return None
        owner = json.load(open(path))
        emails = {secret for secret in owner["secrets"] if "@" in secret and not secret.startswith("http")}
        self.probed |= probes_of(case, set(owner["codes"]), emails, set(owner.get("links", [])),
                                 set(owner.get("anonymous", [])))
        return None

    def after_run(self, ctx):
        if not os.environ.get("FUZZ_OWNER_SECRETS"):
            return
        owner = json.load(open(os.environ["FUZZ_OWNER_SECRETS"]))
        wanted = {("code", "POST /api/subscription/cancel"), ("code", "POST /api/subscription/resume"),
                  ("code", "GET /api/subscription/portal"), ("email", "GET /api/subscription/status"),
                  ("email", "POST /api/redeem/resend")}
        if owner.get("links"):
            wanted.add(("link", "POST /api/redeem"))
        if owner.get("anonymous"):
            wanted.add(("anonymous", "POST /api/users/alias"))
        missing = sorted(f"{operation} with the owner's {kind}" for kind, operation in wanted - self.probed)
        if missing:
            raise AssertionError("the fuzz user never tried: " + "; ".join(missing))
