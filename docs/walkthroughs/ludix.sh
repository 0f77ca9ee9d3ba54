#!/usr/bin/env bash
# A game of Ludix against the expert bot, with curl (and jq to pick fields out of the answers).
# With `make run` going in another terminal: `bash docs/walkthroughs/ludix.sh`, or paste the steps
# one by one. tests/integration/test_walkthroughs.py runs it against a real stack and checks
# that its output holds each text declared below (the rest of a `# prints: ` line, verbatim):
# prints: "to_act":[0]
# prints: seed checks: True
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # new_game and mine
G=${G:-http://127.0.0.1:8000/ludix}

# The exact odds of one throw of the four L-X-X-V-I-I dice, and the numerals of one throw
curl -s $G/odds | jq -c '{bust, expected_points, valid: (.valid | length)}'
curl -s "$G/numerals?dice=LXXI" | jq -c '[.numerals[] | "\(.numeral) = \(.value)"]'

# Create a game: you (seat 0) against the expert bot. The token is shown once: keep it.
new_game '["human", "bot:expert"]'

# Be the first to call "Alea jacta est": you start
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "alea_jacta_est"}' | jq -c '{to_act: .game.to_act}'

# Your legal actions, each exactly as the server accepts it
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions'

# Throw; then throw again or hold (optionally naming the numeral that counts, default the best).
# A throw that makes no numeral is a bust: the turn total is lost and the bot's turn begins, so
# the hold is refused (409, and the problem lists your legal actions under `legal`: none).
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "roll"}' | jq -c '.game.state | {throw, turn_total}'
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -H 'Idempotency-Key: my-hold-1' -d '{"type": "hold"}' |
  jq -c 'if .status then {status, title, legal} else {totals: .game.state.totals} end'

# The bot plays its turn through the worker; wait for something to happen (long-poll)
curl -s "$G/games/$ID/events?after=0&wait=10" -H "$AUTH" | jq -c '.events[] | [.seq, .type, .data]'

# Your view (ETag = version; send it back as If-Match to refuse a stale move with 412)
curl -si $G/games/$ID -H "$AUTH" | grep -i '^etag'

# Play to the end: roll while it is your turn, hold at 40 or more
for _ in $(seq 3000); do
  V=$(curl -s $G/games/$ID)
  [ "$(jq -r .status <<<"$V")" = finished ] && break
  if [ "$(jq -c .to_act <<<"$V")" != "[0]" ]; then sleep 0.2; continue; fi
  A=$([ "$(jq .state.turn_total <<<"$V")" -ge 40 ] && echo hold || echo roll)
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
