import HTTPServer

/// The server-rendered pages (completion, redemption, paywall): one layout,
/// mobile-first, no script, and headers that let nothing load, run or frame.
enum HTMLPage {
    /// - Parameters:
    ///   - refreshSeconds: reload the page after this long (the completion page while it waits).
    ///   - allowsForms: whether forms may post back to this origin (the paywall's buy buttons).
    static func response(
        title: String, body: String, status: HTTPStatus = .ok, refreshSeconds: Int? = nil, allowsForms: Bool = false
    )
        -> HTTPResponse
    {
        let headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8",
            "Cache-Control": "no-store",
            // A page with forms leaves form-action open: its form posts here and is redirected
            // to the provider's hosted page, and browsers apply form-action to that redirect too.
            // Nothing on the page is the caller's (every value is escaped) and no script runs.
            "Content-Security-Policy":
                "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; \(allowsForms ? "" : "form-action 'none'; ")frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff",
            // The page's URL may carry a checkout id or a token: keep it out of Referer headers.
            "Referrer-Policy": "no-referrer",
        ]
        let refresh = refreshSeconds.map { #"<meta http-equiv="refresh" content="\#($0)">"# } ?? ""
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex">\(refresh)<title>\(escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222;text-align:center}
            .button{display:inline-block;padding:.75rem 1.5rem;border:0;border-radius:8px;background:#5423e7;color:#fff;text-decoration:none;font-size:1.1rem;cursor:pointer}
            .note{color:#666;font-size:.85rem}ul.products{list-style:none;padding:0}ul.products li{border:1px solid #ddd;border-radius:12px;padding:1rem;margin:1rem 0}
            .price{font-size:1.3rem;font-weight:600}code{word-break:break-all}</style></head>
            <body><main>\(body)</main></body></html>
            """
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }

    /// Escapes text for HTML content and double- or single-quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
