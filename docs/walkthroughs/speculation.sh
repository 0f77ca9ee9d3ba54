#!/usr/bin/env bash
# A game of Speculation against the expert bot, with curl (and jq to pick fields out of the answers).
# With `make run` going in another terminal: `bash docs/walkthroughs/speculation.sh`, or paste the steps
# one by one. tests/integration/test_walkthroughs.py runs it against a real stack and checks
# that its output holds each text declared below (the rest of a `# prints: ` line, verbatim):
# prints: "clothing"
# prints: seed checks: True
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # new_game and mine
G=${G:-http://127.0.0.1:8000/speculation}

# Each player guesses the value cards hidden under the other's face cards: jacks, then queens, then
# kings, then the four values of the joker (services/speculation/RULES.md).

new_game '["human", "bot:expert"]'

# Your board, in full: the face cards left to right and the black value cards beneath them
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.boards[0].faces[] | {card, tier, values: [.cards[].value]}'
# The bot's board: you see only the cards you have found (none yet)
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.boards[1].faces[] | {card, cards: [.cards[].card]}'

# The clothing ritual: report how many items of clothing you have on (0 to 30); the most items
# guesses first. Reports are sealed: each seat sees only its own count until both have reported.
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '[.actions[].items] | [first, last]'
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "report_clothing", "items": 6}' | jq -c '.game.state.clothing'

# The bot reports after you, through the worker (a typical 4 to 7 items). On a tie the phase is
# "race": the first tied player to put on another item guesses first (a bot never wins it against you).
for i in $(seq 150); do [ "$(curl -s $G/games/$ID | jq -r .state.phase)" = clothing ] || break; sleep 0.2; done
[ "$(curl -s $G/games/$ID | jq -r .state.phase)" = race ] &&
  curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
       -d '{"type": "put_on_item"}' | jq -c '.game.state.clothing'
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state | {phase, clothing, first_guesser, guesser}'
curl -s "$G/games/$ID/events?after=0" -H "$AUTH" | jq -c '.events[1:][] | [.seq, .type, .data]'

# You attack the bot's lowest tier not yet cleared (the tier is implied: `boards[1].target`). `guess
# {value}` asks "does one of your jacks have a 7 beneath it?": **yes** finds one card of that value
# (a second copy needs its own guess) and you go again; **no** passes the turn.

mine; curl -s $G/games/$ID -H "$AUTH" | jq -c '{to_act, attacking: .state.boards[1].target}'
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions'
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "guess", "value": 7}' | jq -c '.game | {to_act, answer: .state.history[-1]}'

# With If-Match (the ETag, i.e. the version you saw) a move is refused with 412 if the game has
# moved on since: here the stale version 1
mine; curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -H 'If-Match: "1"' -d '{"type": "guess", "value": 4}' | jq -c '{status, title, detail}'
VERSION=$(curl -s $G/games/$ID -H "$AUTH" | jq .version)
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -H "If-Match: \"$VERSION\"" -d '{"type": "guess", "value": 4}' | jq -c '.game.state.history[-1]'

# Every guess so far with its answer (a "yes" names the card found), yours and the bot's
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.history[] | [.seat, .tier, .values, .answer, .card]'

# A sensible pick among the legal actions (close to what the `basic` bot does): on a tier, a value
# not answered "no" there yet, with a copy not found, preferring values of which no copy has been
# found (two copies unseen: twice as likely); at the joker, the first four values still possible
# (the eight value cards you have not found hold the joker's four) that agree with every joker
# answer you had. This loop plays your turns until your attack reaches the joker:

PICK='def n($k): map(select(. == $k)) | length;
  $v.state as $s | $s.boards[1].target as $t
  | [$s.boards[1].faces[].cards[] | select(.found) | .value] as $found
  | [$s.history[] | select(.seat == 0 and .tier == $t)] as $mine
  | .actions[0] as $any
  | [.actions[] | select(
      if .type == "guess" then .value as $x
        | ($found | n($x)) < 2 and all($mine[]; .values != [$x] or .answer != "no")
      else .values as $g
        | all(range(1; 11) as $k | ($g | n($k)) + ($found | n($k)) <= 2; .)
          and all($mine[]; .values as $h | .right == ([range(1; 11) as $k | [($g | n($k)), ($h | n($k))] | min] | add))
      end)]
  | min_by(if .type == "guess" then .value as $x | $found | n($x) else 0 end) // $any'
# (`?expand=true`: every guess listed, the joker's too, for the filter to choose among)
pick() { curl -s "$G/games/$ID/actions?expand=true" -H "$AUTH" | jq -c --argjson v "$(curl -s $G/games/$ID -H "$AUTH")" "$PICK"; }

for i in $(seq 100); do
  mine || break
  [ "$(curl -s $G/games/$ID | jq -r .state.boards[1].target)" = joker ] && break
  pick | curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
    jq -c '.game.state.history[-1] | [.tier, .values[0], .answer, .card]'
done

# Now **your record** (`records[0]`, kept by you) mirrors what you found on the bot's board: your
# red value card of each value found lies under the matching red face card (`JH JD QH QD KH KD
# JK2`), and `hand` holds the red cards not placed yet. `records[1]` is the bot's record of your
# board, and `boards[0]` shows which of your cards it found.

curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.records[0] | {record: [.faces[] | "\(.card): \(.cards | map(. // "__") | join(" "))"], hand}'
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.boards[0].faces[] | {card, found: [.cards[] | select(.found) | .card]}'

# Once both kings are down (the "yes" that clears the kings keeps the turn), every turn is one
# `guess_joker` with four values, a multiset in any order: the answer is how many are right
# (`right`, the size of the multiset intersection). Four right wins at once; otherwise the turn
# passes. If the bot was faster, the game is already over: `mine` is false and nothing is sent (any
# move after the end is refused with 409 game-over), and `actions` is empty. At the joker the
# listing is compact: one `guess_joker` template whose `domain` says which four values may be
# guessed (715 guesses, or 615 with at most two of a value); `?expand=true` lists every one.

curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '{listed: (.actions | length), template: .templates[0]}'
curl -s "$G/games/$ID/actions?expand=true" -H "$AUTH" | jq -c '{expanded: (.actions | length), first: .actions[0]}'
mine && pick | curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
  jq -c '.game.state.history[-1]'

# This loop plays on to the end, then shows the result (who won, how many tier and joker guesses
# each made), both boards revealed with the set-aside cards, and the replay:

for i in $(seq 100); do
  mine || break
  pick | curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
    jq -c '.game.state.history[-1] | [.tier, .values, .answer // .right]'
done
curl -s $G/games/$ID | jq -c '.result'
# Both players' joker guesses and how many values were right
curl -s $G/games/$ID | jq -c '[.state.history[] | select(.tier == "joker") | "seat \(.seat): \(.values) \(.right) right"]'
curl -s $G/games/$ID | jq -c '.state.boards[] | {owner, joker: [.faces[-1].cards[].value], set_aside}'
curl -s $G/games/$ID/replay | jq -c '{seed, seed_sha256, actions: (.actions | length), events: (.events | length)}'
# The seed is hex: its bytes hash to the seed_sha256 the game showed from the start
curl -s $G/games/$ID/replay | jq -r '.seed + " " + .seed_sha256' |
  python3 -c 'import hashlib,sys; s,h=sys.stdin.read().split(); print("seed checks:", hashlib.sha256(bytes.fromhex(s)).hexdigest()==h)'

# The walkthrough succeeded if the game is over
[ "$(curl -s $G/games/$ID | jq -r .status)" = finished ]
