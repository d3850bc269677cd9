"""Writes tickets.jsonl, the 1,000 tickets of the batch example (deterministic):

    python make_tickets.py

Every 97th ticket names a customer crm.py does not know (its item fails in the tool),
and line 500 is not JSON at all (its item is an error naming the line)."""

import json
import random

WORDS = {
    "billing": ["invoice", "refund", "charged", "payment", "price"],
    "shipping": ["parcel", "delivery", "tracking", "late", "arrived"],
    "account": ["password", "login", "account", "email", "locked"],
    "bug": ["crashes", "error", "broken", "bug", "freezes"],
}
FILLER = ["my", "the", "is", "again", "please", "help", "since", "monday", "with", "order",
          "app", "today", "still", "not", "thanks"]


def ticket(rng, n):
    topic = rng.choice(sorted(WORDS) + ["none"])
    words = rng.sample(FILLER, 6)
    if topic != "none":
        words += rng.sample(WORDS[topic], 2)
    if rng.random() < 0.1:
        words.append("urgent")
    rng.shuffle(words)
    customer = "C999" if n % 97 == 0 else f"C{rng.randrange(1, 200):03d}"
    return {"id": f"T{n:04d}", "customer": customer, "text": " ".join(words)}


def main():
    rng = random.Random(12)
    with open("tickets.jsonl", "w", encoding="utf-8") as fh:
        for n in range(1, 1001):
            if n == 500:
                fh.write('{"id": "T0500", "customer": "C001", "text": "cut off\n')
                continue
            fh.write(json.dumps(ticket(rng, n)) + "\n")


if __name__ == "__main__":
    main()
