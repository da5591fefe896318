#!/usr/bin/env python3
"""Writes support-turns.jsonl: a week of a support agent's recorded turns.

Each line is one turn as the runtime reports it (`contrib compose --format
json` prints them under `turns`), trimmed to `number` and `at`, with the two
fields a host adds from what it saw: `conversation`, an id the turns of one
conversation share, and `calls`, what the model called on that turn. See
docs/cache.md, "Usage files".

The rates are invented but shaped like a support desk: most conversations
look up the account and read an object, a third close a ticket, refunds and
escalations are less common, merging tickets is rare. Seeded, so running it
again writes the same file.
"""

import json
import random
from datetime import datetime, timedelta, timezone

# Item -> chance that a conversation needs it at some turn.
NEEDS = {
    ("tool", "read_object"): 0.70,
    ("op", "look-up-account"): 0.60,
    ("tool", "search_code"): 0.40,
    ("op", "close-ticket"): 0.35,
    ("tool", "read_memory"): 0.25,
    ("op", "issue-refund"): 0.18,
    ("tool", "fetch_url"): 0.12,
    ("op", "escalate"): 0.08,
    ("op", "merge-tickets"): 0.03,
}


def call(item):
    kind, name = item
    if kind == "tool":
        return {"tool": name}
    return {"skill": "support-desk", "operation": name}


def main():
    rng = random.Random(15)
    start = datetime(2026, 2, 23, 8, 0, tzinfo=timezone.utc)
    lines = []
    for index in range(160):
        conversation = f"c-{index:04d}"
        turns = 1 + int(7 * rng.random() ** 2)
        at = start + timedelta(minutes=rng.randrange(6 * 24 * 60))
        # Which turn first needs each item, if the conversation needs it.
        first = {
            item: rng.randrange(turns)
            for item, chance in NEEDS.items()
            if rng.random() < chance
        }
        for number in range(1, turns + 1):
            calls = [call(item) for item, turn in first.items() if turn == number - 1]
            # A conversation calls what it loaded again, now and then.
            calls += [
                call(item)
                for item, turn in first.items()
                if turn < number - 1 and rng.random() < 0.3
            ]
            lines.append(
                {
                    "conversation": conversation,
                    "number": number,
                    "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "calls": calls,
                }
            )
            at += timedelta(minutes=1 + rng.randrange(20))
    with open(__file__.replace("generate.py", "support-turns.jsonl"), "w") as out:
        for line in lines:
            out.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
