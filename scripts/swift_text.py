"""Swift source as text for the lint scripts (count_webhook_path.py, check_provider_names.py):
comments blanked, string literals kept or blanked. Not a parser: enough to tell code,
strings and comments apart, nested block comments and raw (`#"…"#`) and multi-line
strings included."""

from __future__ import annotations

import re


def code_of(source: str, keep_strings: bool) -> str:
    """`source` without its comments (their line breaks kept); string literals kept
    as written, or each replaced by one space (interpolations go with them)."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            depth, start, i = 1, i, i + 2
            while i < n and depth:
                if source.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif source.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append("\n" * source.count("\n", start, i))
        elif source[i] == '"' or (source[i] == "#" and re.match(r'#+"', source[i:])):
            hashes = len(re.match(r"#*", source[i:]).group(0))
            quote = '"""' if source.startswith('"""', i + hashes) else '"'
            close = quote + "#" * hashes
            start, i = i, i + hashes + len(quote)
            while i < n and not source.startswith(close, i):
                i += 2 if source[i] == "\\" and not hashes else 1
            i += len(close)
            out.append(source[start:i] if keep_strings else " ")
        else:
            out.append(source[i])
            i += 1
    return "".join(out)
