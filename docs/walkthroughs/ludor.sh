#!/usr/bin/env bash
# A round of Ludor against three bots, with curl (and jq to pick fields out of the answers).
# With `make run` going in another terminal: `bash docs/walkthroughs/ludor.sh`, or paste the steps
# one by one. tests/integration/test_walkthroughs.py runs it against a real stack and checks
# that its output holds each text declared below (the rest of a `# prints: ` line, verbatim):
# prints: "hand"
# prints: "votes"
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # new_game and mine
G=${G:-http://127.0.0.1:8000/ludor}

# A shedding game with the Spanish deck, two jokers and the Autoplim: be the first to get rid of
# your cards (services/ludor/RULES.md).

# You (seat 0) against the greedy, the expert and the random bot; all 51 cards are dealt
new_game '["human", "bot:greedy", "bot:expert", "bot:random"]'

# Your hand, weakest first: rank then suit (O Oros, C Copas, E Espadas, B Bastos; 10 Sota,
# 11 Caballo, 12 Rey, 1 As), JK1/JK2 the jokers, the Autoplim, and 2O (the 2 de Oros) the highest.
# Everyone's card count; the holder of the 3 de Oros leads the first trick.
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state | {hand, hand_counts, dealer, leader: .trick.leader}'
# The same hand by rank: the sets you could lead (a joker completes any set; the 2 de Oros is
# always played alone)
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.hand | . as $h | group_by(if . == "2O" then . else sub("[OCEB]$"; "") end) | sort_by(.[0] as $c | $h | index($c)) | map(join(" "))'

# Wait for your turn, then look at the trick: "top" is the play to answer (null: you lead)
mine; curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.trick | {leader, turn, top,
     moves: [.moves[] | "seat \(.seat): \(.action) \(.cards | join(" "))"]}'
# Your legal actions: lead any set, or answer with as many cards of equal or higher rank (equal is
# a PLIM: it blocks the next player for the trick), or pass
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions'

# Play a set: your weakest legal play of two or more cards, else your weakest play. With no legal
# play (nothing in your hand beats the trick), pass and try again on your next turn. The answer to
# a move lists the events it caused.
for try in $(seq 10); do
  mine || break
  B=$(curl -s $G/games/$ID/actions -H "$AUTH" |
      jq -c 'first(.actions[] | select(.type == "play" and (.cards | length) > 1))
             // first(.actions[] | select(.type == "play")) // {type: "pass"}')
  curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d "$B" |
    jq -c '.events[] | [.type, .data]'
  [ "$(jq -r .type <<<"$B")" = play ] && break
done

# Pass: you are out of this trick until it closes. Only an answer may pass (a leader must play:
# 409), so on your next turns lead with your weakest play until there is a trick to pass on
for try in $(seq 10); do
  mine || break
  if [ "$(curl -s $G/games/$ID | jq -c .state.trick.top)" = null ]; then
    curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions[0]' |
      curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
      jq -c '.events[] | [.type, .data]'
  else
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
         -d '{"type": "pass"}' | jq -c '.events[] | [.type, .data]'
    break
  fi
done
# The tricks closed so far: who led, who won, and how (none yet if the first trick is still on)
curl -s $G/games/$ID -H "$AUTH" | jq -c 'if (.state.tricks | length) == 0 then "no trick closed yet" else
     .state.tricks[] | {leader, winner, closed_by, plays: [.moves[] | select(.action != "pass") | .cards | join(" ")]} end'

# **The Autoplim**: only its holder may play it, at any moment of the play, in turn or out of turn
# (even after passing). It clears the table and lies alone as the play to beat; only the 2 de Oros
# beats it. Declaring PLIM with it blocks the player who was about to throw if he holds cards
# matching the covered play. If you hold it, `GET .../actions` lists `play_autoplim` even when
# `to_act` is not you; if you do not, it is refused with 409 (illegal-action "you do not hold the
# Autoplim" in your turn, not-your-turn out of it):

if curl -s $G/games/$ID -H "$AUTH" | jq -e 'any(.state.hand[]; . == "Autoplim")' > /dev/null; then
  curl -s $G/games/$ID | jq -c '{to_act, on_the_table: .state.trick.top}'
  curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '[.actions[] | select(.type == "play_autoplim")]'
  # Declare PLIM when it is offered (not on an empty table: nothing lies under the Autoplim, 409)
  curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '[.actions[] | select(.type == "play_autoplim")] | last' |
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
    jq -c '.events[] | [.type, .data]'
else
  curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
       -d '{"type": "play_autoplim"}' | jq -c '{status, title, detail}'
fi

# This loop plays your turns (the first legal action: the weakest play, else a pass) until the round
# is over. The round ends when one player alone holds cards; titles go by finishing order
# (Presidente, Vicepresidente, Vice-culo, Culo with four players) with 3, 2, 1 and 0 points. Then
# everyone votes to end the game or play another round (with a card exchange first): you vote to
# end, the bots go along with the humans, and a strict majority ends the game.

for i in $(seq 600); do
  V=$(curl -s $G/games/$ID)    # one snapshot per step: phase and to_act must be of the same version
  [ "$(jq -r .state.phase <<<"$V")" = play ] || break
  if ! jq -e '.to_act == [0]' <<<"$V" > /dev/null; then sleep 0.2; continue; fi
  curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions[0]' |
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- > /dev/null
done
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state | {phase, finished, titles, points, votes}'
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions'
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "vote", "end": true}' | jq -c '.game | {status, to_act, votes: .state.votes}'
for i in $(seq 150); do [ "$(curl -s $G/games/$ID | jq -r .status)" = finished ] && break; sleep 0.2; done
curl -s $G/games/$ID | jq -c '{votes: .state.votes, result}'
curl -s $G/games/$ID/replay | jq -c '{seed, seed_sha256, actions: (.actions | length), events: (.events | length)}'
# The replay also shows what nobody saw: the cards the last player still held when the round ended
curl -s $G/games/$ID/replay | jq -c '.final_state.leftover'

# The walkthrough succeeded if the game is over
[ "$(curl -s $G/games/$ID | jq -r .status)" = finished ]
