"""'Did you mean' suggestions (SPEC section 2): the candidate at the smallest Levenshtein
distance, at most 2, ties to the one listed first; None when nothing is that close."""


def distance(a, b, limit=3):
    """Levenshtein distance of a and b; anything >= limit is reported as limit."""
    if abs(len(a) - len(b)) >= limit:
        return limit
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        best = i
        for j, cb in enumerate(b, 1):
            d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            cur.append(d)
            best = min(best, d)
        if best >= limit:
            return limit
        prev = cur
    return min(prev[-1], limit)


def suggest(name, candidates, max_distance=2):
    best, best_d = None, max_distance + 1
    for c in candidates:
        if c == name:
            continue
        d = distance(name, c, max_distance + 1)
        if d < best_d:
            best, best_d = c, d
    return best


def did_you_mean(name, candidates):
    """'; did you mean 'x'?' or '' (ready to append to a message)."""
    s = suggest(name, candidates)
    return f"; did you mean '{s}'?" if s else ""
