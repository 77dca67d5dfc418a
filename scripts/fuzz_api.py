"""Helpers of scripts/fuzz-api.sh (run with the fuzz venv's Python, standard library only).

  fuzz_api.py metrics URL...      prints the webhook receivers' summed
                                  webhooks_received_total per result as JSON
  fuzz_api.py seed --gateway URL --token T
                                  buys one subscription per provider for the token's
                                  user (checkout, then the sandbox's pay button) and
                                  prints each subscription_code once the projection
                                  shows it, so the fuzzer reaches cancel, resume and
                                  the portal with codes that exist
  fuzz_api.py seed-redemptions --gateway URL --owner-token T --owner-email E --email E2
                               --bystander-email E3 --out F
                                  for issue 33's routes (CHECKOUT_ANONYMOUS=on): buys
                                  three purchases without a token (paid with the
                                  owner's, a bystander's and the fuzz user's email)
                                  and reads each one's redemption link off the
                                  completion page; the owner redeems its own; makes
                                  two anonymous users and merges one into the owner;
                                  writes it all to F as JSON
  fuzz_api.py dictionaries --emails E... [--subscriptions F...] [--redemptions F]
                                  prints the schemathesis settings that make the fuzz
                                  user draw those codes, emails, links and anonymous
                                  tokens half the time
  fuzz_api.py owner --gateway URL --sandbox URL --token T --codes F --email E --user U [--redemptions F]
                                  prints, as JSON, what the fuzzer (another user)
                                  must never see or change of the owner's purchases:
                                  their codes, the owner's email and id, every token
                                  and URL of the owner's status answer, the owner's
                                  redeemed link and purchase, the bystander's link and
                                  the merged anonymous token (the secrets scripts/fuzz_api_hooks.py
                                  looks for in each answer), and each subscription's
                                  state at the provider
  fuzz_api.py check --gateway URL --before F --after F --report R --schemathesis-status N
                    [--owner-before F --owner-after F] [--bystander-token T --redemptions F]
                                  compares the counters (nothing published,
                                  something refused as unsigned), the owner's
                                  purchases before and after (unchanged at the
                                  provider and in the owner's status answer), checks
                                  that the bystander's purchase is still without an
                                  owner (nobody took it), sends the raw probes to the
                                  gateway, reads schemathesis' JSON report and prints
                                  one summary line
"""
import argparse
import html
import json
import re
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# The sandbox's API keys (scripts/stack.sh gives the same to the services).
SANDBOX_KEYS = {"lemonsqueezy": "ls_test_sandbox_key", "paystack": "sk_test_sandbox_secret"}
SERIES = re.compile(r'^webhooks_received_total\{(?P<labels>[^}]*)\}\s+(?P<value>[0-9.eE+-]+)$')


def call(method, url, token=None, body=None, timeout=20):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def metrics(urls, sandbox=None):
    totals = {}
    if sandbox:
        # What the sandbox itself signed and delivered (acknowledged): the only
        # webhooks that may be published. Settle first: nothing is in flight.
        call("POST", sandbox.rstrip("/") + "/_sandbox/deliveries/settle", timeout=60)
        status, body = call("GET", sandbox.rstrip("/") + "/_sandbox/deliveries", timeout=30)
        attempts = json.loads(body)["deliveries"] if status == 200 else []
        totals["sandbox_delivered"] = sum(1 for a in attempts if a.get("status") == 200 and not a.get("simulated"))
    for url in urls:
        with urllib.request.urlopen(url.rstrip("/") + "/metrics", timeout=10) as response:
            text = response.read().decode()
        for line in text.splitlines():
            match = SERIES.match(line.strip())
            if not match:
                continue
            labels = dict(re.findall(r'(\w+)="([^"]*)"', match["labels"]))
            key = labels.get("result", "?")
            totals[key] = totals.get(key, 0) + float(match["value"])
    print(json.dumps(totals, sort_keys=True))


def raw_request(host, port, data, timeout=10.0):
    """Sends `data` as is and reads the answer (until close or Content-Length)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except OSError:
            pass  # the server may refuse before reading everything; its answer still counts
        chunks, head, length = [], None, None
        while True:
            try:
                chunk = sock.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            chunks.append(chunk)
            blob = b"".join(chunks)
            if head is None and b"\r\n\r\n" in blob:
                head = blob.split(b"\r\n\r\n", 1)[0]
                found = re.search(rb"(?im)^content-length:\s*(\d+)", head)
                length = int(found.group(1)) if found else None
            if head is not None and length is not None and len(blob) >= len(head) + 4 + length:
                break
    blob = b"".join(chunks)
    if not blob:
        return None, {}, b""
    head, _, body = blob.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if length is not None:
        body = body[:length]
    return status, headers, body


def json_error(status, headers, body):
    """None when the answer is the API's JSON error, else what is wrong with it."""
    if status is None:
        return "no answer"
    if status < 400:
        return f"status {status}, expected an error"
    if not headers.get("content-type", "").startswith("application/json"):
        return f"status {status} with Content-Type {headers.get('content-type')!r}: {body[:120]!r}"
    try:
        value = json.loads(body)
    except ValueError:
        return f"status {status}: body is not JSON: {body[:120]!r}"
    if not (isinstance(value, dict) and value.get("success") is False and isinstance(value.get("error"), str)):
        return f"status {status}: body is not {{\"success\":false,\"error\":\"…\"}}: {body[:120]!r}"
    return None


def probes(gateway):
    """What schemathesis (through an HTTP client library) cannot send, each with its expected status."""
    url = urllib.parse.urlsplit(gateway)
    host, port = url.hostname, url.port
    h = f"Host: {host}:{port}\r\n"
    pad = "p" * 15000
    cases = [
        # A header block nginx forwards (each line fits its 16 KB buffers) that once
        # overflowed libmicrohttpd's 32 KB connection pool: its HTML 431 came through.
        ("header block of 45 KB in 3 lines", 200,
         f"GET /api/products HTTP/1.1\r\n{h}X-A: {pad}\r\nX-B: {pad}\r\nX-C: {pad}\r\nConnection: close\r\n\r\n"),
        ("the same with a JSON body to a webhook", 401,
         f"POST /api/webhooks/lemonsqueezy HTTP/1.1\r\n{h}X-A: {pad}\r\nX-B: {pad}\r\nX-C: {pad}\r\n"
         "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"),
        ("one header line of 40 KB", 400,
         f"GET /api/products HTTP/1.1\r\n{h}X-Padding: {'p' * 40000}\r\nConnection: close\r\n\r\n"),
        ("header block of 75 KB in 5 lines", 400,
         f"GET /api/products HTTP/1.1\r\n{h}" + "".join(f"X-{i}: {pad}\r\n" for i in range(5)) + "Connection: close\r\n\r\n"),
        ("request target of 20 KB", 414,
         f"GET /api/products/{'a' * 20000} HTTP/1.1\r\n{h}Connection: close\r\n\r\n"),
        ("a header line without a colon", 400,
         f"GET /api/products HTTP/1.1\r\n{h}This is not a header\r\nConnection: close\r\n\r\n"),
        ("a malformed request line", 400, "GET\r\n\r\n"),
        ("binary garbage", 400, "\x00\x01\x02\x03 \xff\xfe\r\n\r\n"),
        ("HTTP/1.1 without Host", 400, "GET /api/products HTTP/1.1\r\nConnection: close\r\n\r\n"),
        ("an unknown HTTP version", 505, f"GET /api/products HTTP/3.7\r\n{h}Connection: close\r\n\r\n"),
        ("TRACE", 405, f"TRACE /api/products HTTP/1.1\r\n{h}Connection: close\r\n\r\n"),
        ("TRACE to a webhook", 405, f"TRACE /api/webhooks/paystack HTTP/1.1\r\n{h}Connection: close\r\n\r\n"),
        ("a body on the openapi document's POST", 405,
         f"POST /api/openapi.json HTTP/1.1\r\n{h}Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"),
        ("a broken chunked body", 400,
         f"POST /api/webhooks/paystack HTTP/1.1\r\n{h}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n"
         "Connection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
        ("Content-Length and chunked together", 400,
         f"POST /api/webhooks/paystack HTTP/1.1\r\n{h}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n"
         "Connection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
        ("a negative Content-Length", 400,
         f"POST /api/webhooks/paystack HTTP/1.1\r\n{h}Content-Length: -1\r\nConnection: close\r\n\r\n"),
        ("a body over the 1 MiB limit", 413,
         f"POST /api/webhooks/paystack HTTP/1.1\r\n{h}Content-Length: 2000000\r\nConnection: close\r\n\r\n"),
        # Issue 33: Apple's CDN takes the association file only as JSON and never through a redirect
        # (fuzz-api.sh sets APPLE_APP_IDS); a checkout without a token is anonymous (CHECKOUT_ANONYMOUS=on),
        # which schemathesis, sending the fuzz user's token everywhere, never tries.
        ("the Apple App Site Association file", 200,
         f"GET /.well-known/apple-app-site-association HTTP/1.1\r\n{h}Connection: close\r\n\r\n"),
        ("an anonymous checkout without a variant", 400,
         f"POST /api/create-checkout HTTP/1.1\r\n{h}Content-Type: application/json\r\nContent-Length: 2\r\n"
         "Connection: close\r\n\r\n{}"),
    ]
    # TRACE never reaches a service: the gateway's Allow map must know every path of the API.
    for path in ("/paywall", "/paywall/checkout", "/redeem/q7Kx2mV9pL4sT8wZ1nB6cR3dF5gH0jYaEu2Wk9Ls4Rt", "/api/anonymous",
                 "/api/redeem", "/api/redeem/resend", "/api/users/alias", "/api/restore",
                 "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"):
        cases.append((f"TRACE {path}", 405, f"TRACE {path} HTTP/1.1\r\n{h}Connection: close\r\n\r\n"))
    failures = []
    for name, expected, text in cases:
        status, headers, body = raw_request(host, port, text.encode("latin-1"))
        if expected < 400:
            problem = None
            if status != expected:
                problem = f"status {status}, expected {expected}: {body[:160]!r}"
            elif not headers.get("content-type", "").startswith("application/json"):
                problem = f"Content-Type {headers.get('content-type')!r}"
        else:
            problem = json_error(status, headers, body)
            if problem is None and status != expected:
                problem = f"status {status}, expected {expected}"
            if problem is None and status == 405 and not headers.get("allow"):
                problem = "405 without an Allow header"
        print(f"  {'ok  ' if problem is None else 'FAIL'} {name}: {problem or status}")
        if problem:
            failures.append(f"{name}: {problem}")
    return len(cases), failures


def pay_at_sandbox(checkout_url):
    """Presses Pay on the sandbox's hosted page; None when it took the payment, else what went wrong."""
    page = checkout_url.split("?", 1)[0]
    request = urllib.request.Request(page + "/pay", data=b"", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(request, timeout=20).read()
    except urllib.error.HTTPError as error:
        if error.code not in (200, 303):
            return f"the sandbox answered {error.code}"
    return None


def seed(gateway, token):
    status, body = call("GET", gateway + "/api/products")
    if status != 200:
        print(f"warning: GET /api/products answered {status}; no subscriptions seeded", file=sys.stderr)
        return
    products = json.loads(body)["products"]["data"]
    wanted = {}
    for product in products:
        attributes = product.get("attributes", {})
        if attributes.get("interval") and attributes.get("provider") not in wanted:
            wanted[attributes.get("provider")] = product
    found = {}
    for provider, product in sorted(wanted.items()):
        status, body = call("POST", gateway + "/api/create-checkout", token,
                            {"variantId": product["variantId"], "productId": product["id"]})
        if status != 200:
            print(f"warning: {provider} checkout answered {status}: {body[:200]!r}", file=sys.stderr)
            continue
        problem = pay_at_sandbox(json.loads(body)["checkoutUrl"])
        if problem:
            print(f"warning: paying the {provider} checkout: {problem}", file=sys.stderr)
            continue
        # The status answer names one subscription: wait until it is this one.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and provider not in found:
            code, body = call("GET", gateway + "/api/subscription/status", token)
            answer = json.loads(body) if code == 200 else {}
            if answer.get("provider") == provider and answer.get("subscription_code"):
                found[provider] = answer["subscription_code"]
            else:
                time.sleep(0.3)
    if len(found) < len(wanted):
        print(f"warning: subscriptions seeded for {sorted(found)} of {sorted(wanted)}", file=sys.stderr)
    for code in found.values():
        print(code)


# The completion page's redemption link (the contract: <a id="redeem-link" href="…/redeem/<token>">).
REDEEM_LINK = re.compile(r'<a\b[^>]*\bid="redeem-link"[^>]*>', re.IGNORECASE)
HREF = re.compile(r'\bhref="([^"]+)"', re.IGNORECASE)


def catalog_product(gateway):
    """A product to buy without a token: a subscription if there is one, Lemon Squeezy's first."""
    status, body = call("GET", gateway + "/api/products")
    if status != 200:
        return None
    products = json.loads(body)["products"]["data"]
    products.sort(key=lambda p: (not p.get("attributes", {}).get("interval"),
                                 p.get("attributes", {}).get("provider") != "lemonsqueezy"))
    return products[0] if products else None


def anonymous_purchase(gateway, product, email, page=None):
    """Buys `product` without a token (an anonymous checkout: CHECKOUT_ANONYMOUS=on) and pays with `email`;
    returns the redemption link once the completion page shows it, or None with a warning. `page`, a
    list, receives the completion page's URL."""
    status, body = call("POST", gateway + "/api/create-checkout", None,
                        {"variantId": product["variantId"], "productId": product["id"], "customerEmail": email})
    if status != 200:
        print(f"warning: an anonymous checkout answered {status}: {body[:200]!r}", file=sys.stderr)
        return None
    checkout = json.loads(body)
    problem = pay_at_sandbox(checkout["checkoutUrl"])
    if problem:
        print(f"warning: paying an anonymous checkout: {problem}", file=sys.stderr)
        return None
    page_url = gateway + "/checkout/complete?" + urllib.parse.urlencode({"checkout_id": checkout["checkoutId"]})
    if page is not None:
        page.append(page_url)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status, page = call("GET", page_url)
        tag = REDEEM_LINK.search(page.decode("utf-8", "replace")) if status == 200 else None
        href = HREF.search(tag.group(0)) if tag else None
        if href:
            return html.unescape(href.group(1))
        time.sleep(0.5)
    print(f"warning: the completion page never showed a redemption link ({page_url})", file=sys.stderr)
    return None


def redeem(gateway, token, link):
    """Redeems `link` for `token`'s user; (status, answer)."""
    status, body = call("POST", gateway + "/api/redeem", token, {"token": link})
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"body": body[:200].decode("utf-8", "replace")}


def new_anonymous_user(gateway):
    status, body = call("POST", gateway + "/api/anonymous")
    if status != 200:
        print(f"warning: POST /api/anonymous answered {status}: {body[:200]!r}", file=sys.stderr)
        return None
    return json.loads(body)["token"]


def seed_redemptions(args):
    """Purchases without an owner and anonymous users for the two-user check of the web-first routes:
    the owner's redeemed link (the fuzz user must get 409 and see nothing of it); a bystander's link,
    paid with an email no token of the run holds and never shown to the fuzz user (after the run the
    bystander's verified email must still find it without an owner: nobody took it); the fuzz user's own
    link (redeem's 200s); an anonymous user merged into the owner (alias: 409) and one of the fuzz
    user's own (alias: 200). Writes them as JSON to --out; what failed is left out, with a warning.
    (A purchase paid with the owner's or the fuzz user's email is theirs at their next read anyway:
    reads claim unowned purchases by verified email.)"""
    seeded = {}
    product = catalog_product(args.gateway)
    if product is None:
        print("warning: no catalog product; no purchase without an owner seeded", file=sys.stderr)
    else:
        owned = anonymous_purchase(args.gateway, product, args.owner_email)
        if owned:
            status, answer = redeem(args.gateway, args.owner_token, owned)
            if status == 200 and answer.get("outcome") == "redeemed":
                seeded["owner_redeemed"] = {"link": owned, "purchase": answer.get("purchase")}
            else:
                print(f"warning: the owner could not redeem a link: {status} {answer}", file=sys.stderr)
        page = []
        unclaimed = anonymous_purchase(args.gateway, product, args.bystander_email, page)
        if unclaimed:
            seeded["bystander_unredeemed"] = {"link": unclaimed, "page": page[0]}
        own = anonymous_purchase(args.gateway, product, args.email)
        if own:
            seeded["fuzz_unredeemed"] = {"link": own}
    owner_anonymous = new_anonymous_user(args.gateway)
    if owner_anonymous:
        status, body = call("POST", args.gateway + "/api/users/alias", args.owner_token, {"anonymousToken": owner_anonymous})
        if status == 200:
            seeded["owner_anonymous"] = owner_anonymous
        else:
            print(f"warning: merging an anonymous user into the owner answered {status}: {body[:200]!r}", file=sys.stderr)
    fuzz_anonymous = new_anonymous_user(args.gateway)
    if fuzz_anonymous:
        seeded["fuzz_anonymous"] = fuzz_anonymous
    with open(args.out, "w") as out:
        json.dump(seeded, out, sort_keys=True)
    print(" ".join(sorted(seeded)) or "nothing")


def toml_string(value):
    return json.dumps(value)  # a JSON string is a TOML basic string for the characters these hold


def dictionaries(args):
    """The schemathesis settings fuzz-api.sh appends: dictionaries of what was seeded, drawn half the time (links more often)."""
    codes = [line.strip() for name in args.subscriptions for line in open(name) if line.strip()]
    seeded = json.load(open(args.redemptions)) if args.redemptions else {}
    tables = {"emails": args.emails}
    parameters = {"query.email": "emails", "body.email": "emails"}
    if codes:
        tables["subscriptions"] = codes
        parameters.update({"query.subscription_code": "subscriptions", "body.subscription_code": "subscriptions"})
    links = [seeded[key]["link"] for key in ("owner_redeemed", "fuzz_unredeemed") if key in seeded]
    if links:
        tables["redemptions"] = links
        parameters["body.token"] = "redemptions"
    anonymous = [seeded[key] for key in ("owner_anonymous", "fuzz_anonymous") if key in seeded]
    if anonymous:
        tables["anonymous_tokens"] = anonymous
        parameters["body.anonymousToken"] = "anonymous_tokens"
    print()
    print("# Added by scripts/fuzz-api.sh: what it seeded for both users (subscriptions, redemption links,")
    print("# anonymous users) and both emails, each drawn half the time.")
    for name, values in tables.items():
        print(f"[dictionaries.{name}]")
        print(f"values = [{', '.join(toml_string(value) for value in values)}]")
    print("[parameters]")
    for parameter, table in parameters.items():
        # A made-up redemption token only ever meets 404; the seeded links are
        # what the two-user check needs, so they are drawn more often (with 10
        # examples per operation, half the time missed the owner's link).
        probability = 0.8 if table == "redemptions" else 0.5
        print(f'"{parameter}" = {{ dictionary = "{table}", probability = {probability} }}')


def provider_state(sandbox, code):
    """The subscription as the provider (the sandbox) holds it: what a cancel or resume would change."""
    sandbox = sandbox.rstrip("/")
    if code.isdigit():
        status, body = call("GET", f"{sandbox}/lemonsqueezy/v1/subscriptions/{code}", SANDBOX_KEYS["lemonsqueezy"])
        data = json.loads(body).get("data", {}).get("attributes", {}) if status == 200 else {}
        return {"provider": "lemonsqueezy", "found": status == 200, "status": data.get("status"),
                "cancelled": data.get("cancelled"), "pause": data.get("pause"), "ends_at": data.get("ends_at")}
    status, body = call("GET", f"{sandbox}/paystack/subscription/{code}", SANDBOX_KEYS["paystack"])
    data = json.loads(body).get("data", {}) if status == 200 else {}
    return {"provider": "paystack", "found": status == 200, "status": data.get("status"),
            "next_payment_date": data.get("next_payment_date")}


def owner(args):
    codes = [line.strip() for line in open(args.codes) if line.strip()]
    status, body = call("GET", args.gateway + "/api/subscription/status", args.token)
    answer = json.loads(body) if status == 200 else {}
    secrets = set(codes) | {args.email, args.user}
    for key in ("subscription_code", "email_token", "customer_portal_url"):
        if isinstance(answer.get(key), str) and len(answer[key]) >= 6:
            secrets.add(answer[key])
    for code in codes:
        # Each subscription's portal link: a URL the owner may open, nobody else.
        link_status, link_body = call("GET", args.gateway + "/api/subscription/portal?"
                                      + urllib.parse.urlencode({"subscription_code": code}), args.token)
        if link_status == 200:
            for value in json.loads(link_body).values():
                if isinstance(value, str) and value.startswith("http"):
                    secrets.add(value)
    # Issue 33's routes: the owner's redeemed link and purchase, the bystander's unredeemed link, and the
    # anonymous user merged into the owner. The fuzz user is given the redeemed link and that anonymous
    # token (it must get 409s that show nothing else); the bystander's link it never sees.
    seeded = json.load(open(args.redemptions)) if args.redemptions else {}
    links = [seeded["owner_redeemed"]["link"]] if "owner_redeemed" in seeded else []
    for key in ("owner_redeemed", "bystander_unredeemed"):
        if key in seeded:
            link = seeded[key]["link"]
            secrets |= {link, link.rstrip("/").rsplit("/", 1)[-1]}
    purchase = (seeded.get("owner_redeemed") or {}).get("purchase") or {}
    if isinstance(purchase.get("id"), str):
        secrets.add(purchase["id"])
    anonymous = [seeded["owner_anonymous"]] if "owner_anonymous" in seeded else []
    secrets |= set(anonymous)
    state = {code: provider_state(args.sandbox, code) for code in codes}
    view = {key: answer.get(key) for key in ("active", "status", "subscription_code", "cancel_at_period_end", "ends_at")}
    print(json.dumps({"codes": codes, "links": links, "anonymous": anonymous, "secrets": sorted(secrets),
                      "provider": state, "status": view}, sort_keys=True))


def owner_changes(before_file, after_file):
    """What changed in the owner's purchases while another user fuzzed."""
    before, after = json.load(open(before_file)), json.load(open(after_file))
    changes = []
    if not before.get("codes"):
        changes.append("the owner has no purchases: nothing was there to protect (seeding failed)")
    for code, state in before.get("provider", {}).items():
        now = after.get("provider", {}).get(code)
        if now != state:
            changes.append(f"the owner's subscription {code} changed at the provider: {state} -> {now}")
    if before.get("status") != after.get("status"):
        changes.append(f"the owner's status answer changed: {before.get('status')} -> {after.get('status')}")
    return changes


def check(args):
    before = json.load(open(args.before))
    after = json.load(open(args.after))
    failures = []
    moved = {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)}
    published, refused = moved.get("published", 0), moved.get("invalid_signature", 0)
    delivered = moved.get("sandbox_delivered", 0)
    print(f"  webhooks during the run: {json.dumps({k: int(v) for k, v in sorted(moved.items())})}")
    # The fuzzer's cancel and resume calls make the sandbox send real, signed
    # webhooks; everything else that was published would be a forged one.
    if published > delivered:
        failures.append(f"{int(published - delivered)} webhook(s) were published that the sandbox never signed "
                        f"({int(published)} published, {int(delivered)} delivered by the sandbox)")
    if refused <= 0 and args.schemathesis_status != "skipped":
        failures.append("no fuzzed webhook was refused as unsigned: the fuzzer never reached a receiver")

    if args.owner_before and args.owner_after:
        changes = owner_changes(args.owner_before, args.owner_after)
        print(f"  the owner's purchases: {'unchanged' if not changes else 'CHANGED'}")
        failures += changes

    if args.redemptions and args.bystander_token:
        seeded = json.load(open(args.redemptions))
        if "bystander_unredeemed" not in seeded:
            failures.append("no purchase without an owner was seeded (CHECKOUT_ANONYMOUS=on, the completion page's "
                            "redeem-link): the web-first routes' two-user check tested nothing")
        else:
            # Nobody took it while the fuzz user redeemed, restored, merged and guessed: its completion page
            # still offers its redemption link (a purchase with an owner shows "already linked" instead).
            # Not the bystander's status read: a read by email finds a purchase only after the claim delay,
            # longer than a short run.
            status, body = call("GET", seeded["bystander_unredeemed"]["page"])
            found = status == 200 and REDEEM_LINK.search(body.decode("utf-8", "replace")) is not None
            print(f"  the bystander's purchase without an owner: {'still unowned' if found else 'TAKEN'}")
            if not found:
                failures.append(f"the purchase paid with the bystander's email was taken during the run: {status} {body[:200]!r}")

    count, probe_failures = probes(args.gateway)
    failures += probe_failures

    generated = with_failures = 0
    try:
        report = json.load(open(args.report))
        cases = report.get("test_cases", {})
        generated, with_failures = cases.get("generated", 0), cases.get("with_failures", 0) + cases.get("errored", 0)
        for failure in report.get("failures", []):
            print(f"  schemathesis {failure.get('code')} {failure.get('title')}: {', '.join(failure.get('operations', []))}")
    except (OSError, ValueError) as error:
        failures.append(f"no schemathesis report ({error})")
    if str(args.schemathesis_status) != "0" and with_failures == 0:
        failures.append(f"schemathesis exited {args.schemathesis_status}")
        with_failures = 1

    for failure in failures:
        print(f"  FAIL {failure}")
    # One plain closing line: schemathesis' test cases, the probes and the two webhook checks.
    total = generated + count + 2 + (1 if args.owner_before else 0) + (1 if args.redemptions and args.bystander_token else 0)
    failed = min(total, with_failures + len(failures))
    print(f"fuzz-api: {total - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("metrics")
    m.add_argument("--sandbox")
    m.add_argument("urls", nargs="+")
    s = sub.add_parser("seed")
    s.add_argument("--gateway", required=True)
    s.add_argument("--token", required=True)
    c = sub.add_parser("check")
    c.add_argument("--gateway", required=True)
    c.add_argument("--before", required=True)
    c.add_argument("--after", required=True)
    c.add_argument("--report", required=True)
    c.add_argument("--schemathesis-status", default="0")
    c.add_argument("--owner-before")
    c.add_argument("--owner-after")
    c.add_argument("--bystander-token")
    c.add_argument("--redemptions")
    o = sub.add_parser("owner")
    o.add_argument("--gateway", required=True)
    o.add_argument("--sandbox", required=True)
    o.add_argument("--token", required=True)
    o.add_argument("--codes", required=True)
    o.add_argument("--email", required=True)
    o.add_argument("--user", required=True)
    o.add_argument("--redemptions")
    r = sub.add_parser("seed-redemptions")
    r.add_argument("--gateway", required=True)
    r.add_argument("--owner-token", required=True)
    r.add_argument("--owner-email", required=True)
    r.add_argument("--email", required=True)
    r.add_argument("--bystander-email", required=True)
    r.add_argument("--out", required=True)
    d = sub.add_parser("dictionaries")
    d.add_argument("--subscriptions", nargs="*", default=[])
    d.add_argument("--emails", nargs="+", required=True)
    d.add_argument("--redemptions")
    args = parser.parse_args()
    if args.command == "metrics":
        metrics(args.urls, args.sandbox)
        return 0
    if args.command == "seed":
        seed(args.gateway, args.token)
        return 0
    if args.command == "owner":
        owner(args)
        return 0
    if args.command == "seed-redemptions":
        seed_redemptions(args)
        return 0
    if args.command == "dictionaries":
        dictionaries(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
