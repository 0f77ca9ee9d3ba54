#!/usr/bin/env bash
# A game of Pig against the hold20 bot, with curl (and jq to pick fields out of the answers).
# With `make run` going in another terminal: `bash docs/walkthroughs/pig.sh`, or paste the steps
# one by one. tests/integration/test_walkthroughs.py runs it against a real stack and checks
# that its output holds each text declared below (the rest of a `# prints: ` line, verbatim):
# prints: "legal":[{"type":"roll"}]
# prints: seed checks: True
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # new_game and mine
G=${G:-http://127.0.0.1:8000/pig}

# Create a game: you (seat 0) against the hold20 bot. The token is shown once: keep it. The first
# player is drawn with the game's secret seed, whose SHA-256 is public from the start
new_game '["human", "bot:hold20"]'
jq -c '{first_player: .game.state.first_player, seed_sha256: .game.seed_sha256}' game.json

# Wait for your turn: when the bot was drawn to start, the worker plays its turn first
mine

# Your legal actions, each exactly as the server accepts it: a turn starts with a roll
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions'

# Holding before you have rolled is refused: 409, and the problem lists your legal actions
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "hold"}' | jq -c '{status, title, legal}'

# Roll: the die and your turn total (a 1 loses the turn total and the bot's turn begins)
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -H 'Idempotency-Key: my-roll-1' -d '{"type": "roll"}' | jq -c '[.events[] | [.type, .data]]'

# Your view (ETag = version; send it back as If-Match to refuse a stale move with 412)
curl -si $G/games/$ID -H "$AUTH" | grep -i '^etag'
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state | {scores, current, turn_total, last_roll}'

# Play to the end as hold20 does: roll until the turn total reaches 20 (or your score would reach
# the target), then hold; the bot's turns come through the worker (long-poll for their events)
AFTER=0
for _ in $(seq 3000); do
  V=$(curl -s $G/games/$ID -H "$AUTH")
  [ "$(jq -r .status <<<"$V")" = finished ] && break
  if [ "$(jq -c .to_act <<<"$V")" != "[0]" ]; then
    AFTER=$(curl -s "$G/games/$ID/events?after=$AFTER&wait=5" -H "$AUTH" | jq -r "[.events[].seq, $AFTER] | max")
    continue
  fi
  A=$(jq -r '.state | if .turn_total >= 20 or .scores[0] + .turn_total >= .target then "hold" else "roll" end' <<<"$V")
  curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
       -d "{\"type\": \"$A\"}" > /dev/null
done
curl -s $G/games/$ID | jq -c '.result'

# After the end: every action, every event and the seed (64 hex digits); the SHA-256 of the
# seed's 32 bytes is the seed_sha256 shown from the start (checked here with Python)
curl -s $G/games/$ID/replay | jq -c '{seed, seed_sha256, actions: (.actions | length)}'
curl -s $G/games/$ID/replay | jq -r '.seed + " " + .seed_sha256' |
  python3 -c 'import hashlib,sys; s,h=sys.stdin.read().split(); print("seed checks:", hashlib.sha256(bytes.fromhex(s)).hexdigest()==h)'

[ "$(curl -s $G/games/$ID | jq -r .status)" = finished ]
