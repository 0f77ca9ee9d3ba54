#!/usr/bin/env bash
# A game of Ludic against two bots, with curl (and jq to pick fields out of the answers).
# With `make run` going in another terminal: `bash docs/walkthroughs/ludic.sh`, or paste the steps
# one by one. tests/integration/test_walkthroughs.py runs it against a real stack and checks
# that its output holds each text declared below (the rest of a `# prints: ` line, verbatim):
# prints: "valid":true
# prints: "winners"
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # new_game and mine
G=${G:-http://127.0.0.1:8000/ludic}

# The rule language is in services/ludic/LANGUAGE.md, the rules in services/ludic/RULES.md.

# Try a rule out, no game needed: is it readable, ambiguous, how many of the 576 sets obey it,
# and (given two initial sets) is it legal for them? A bad rule is a normal 200 with valid: false.
curl -s -X POST $G/rules/check -H 'Content-Type: application/json' \
     -d '{"rule": "The total is 15 or more"}' | jq -c '{valid, canonical, obeying_sets}'
curl -s -X POST $G/rules/check -H 'Content-Type: application/json' \
     -d '{"rule": "the high card is red"}' | jq -c '{valid, ambiguous, undefined_sets, reason: .errors[0].reason}'
curl -s -X POST $G/rules/check -H 'Content-Type: application/json' \
     -d '{"rule": "top is purple"}' | jq -c '.errors[0] | {reason, line, column, expected: .expected[0:4]}'
# A rule that can be read two ways is never judged silently: each reading, to resubmit the one meant
# (a guess or a rule like it is a 422 of type ambiguous-rule with the same readings).
curl -s -X POST $G/rules/check -H 'Content-Type: application/json' \
     -d '{"rule": "the top card is a red king, queen or jack"}' | jq -c '[.errors[0].readings[] | {canonical, obeying_sets}]'
curl -s -X POST $G/rules/check -H 'Content-Type: application/json' \
     -d '{"rule": "the top card is red", "obey_set": {"top": "QH", "bottom": "4S"},
          "break_set": {"top": "JS", "bottom": "3H"}}' | jq -c '{valid, legal}'

# Create a game: you (seat 0), a medium and an expert bot. The token is shown once: keep it.
new_game '["human", "bot:medium", "bot:expert"]'

# Everyone cuts; the low card is the first Vexer. Players tied for the low card cut again.
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "cut"}' | jq -c '.game.state.cuts'
for i in $(seq 150); do
  [ "$(curl -s $G/games/$ID | jq -r .state.phase)" != cut ] && break
  curl -s $G/games/$ID/actions -H "$AUTH" | jq -e '.actions[0].type == "cut"' > /dev/null &&
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d '{"type": "cut"}' > /dev/null
  sleep 0.2
done

# Who is the Vexer depends on the cut: the view says it (vexer, and your role: "vexer" or "seeker").
# The token marks the next Vexer if nobody finds the rule; turn is the Seeker to act.
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state | {phase, you, role, vexer, token, turn,
     cuts: [.cuts[] | "seat \(.seat): \(.card) (cut \(.attempt))"]}'

# **If you are the Vexer** (role `vexer`, phase `rule`) you have no legal action but a template:
# write the secret rule with a `write_rule` action. It must be unambiguous, obeyed by the initial
# set in the 'obey' column and broken by the one in the 'break' column (`turn_obey` / `turn_break`
# turn an initial set around first). A refused rule is a 422 whose `rule_error` says why, and the
# round waits. This function tries a few rules with `/rules/check` against the dealt initial sets
# and writes the first legal one (the last resort names the 'obey' top card exactly, so it always
# fits):

curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '{actions: (.actions | length), templates}'

write_rule() {
  V=$(curl -s $G/games/$ID -H "$AUTH")
  SETS=$(jq -c '.state.columns | {obey_set: (.obey[0] | {top, bottom}), break_set: (.break[0] | {top, bottom})}' <<<"$V")
  EXACT=$(jq -r '.state.columns.obey[0].top | (if test("[DH]$") then "red" else "black" end) as $c | .[:-1] as $r
                 | "the top card is a \($c) \({J: "jack", Q: "queen", K: "king"}[$r] // $r)"' <<<"$V")
  for R in "the top card is red" "the top card is black" "the bottom card is red" "the bottom card is black" \
           "the sum is even" "the sum is odd" "the top card outranks the bottom card" \
           "the bottom card outranks the top card" "$EXACT"; do
    jq -c --arg r "$R" '. + {rule: $r}' <<<"$SETS" |
      curl -s -X POST $G/rules/check -H 'Content-Type: application/json' -d @- | jq -e .valid > /dev/null && break
  done
  jq -nc --arg r "$R" '{type: "write_rule", rule: $r}' |
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
    jq -c '.game.state | {round, phase, rule, turn}'
}
[ "$(curl -s $G/games/$ID -H "$AUTH" | jq -r '.state | .role + " " + .phase')" = "vexer rule" ] && write_rule

# The Vexer only watches the round (the view's `rule` is yours alone); the Seeker who finds it
# becomes the next Vexer, so in the next round you are a Seeker. **As a Seeker** (whenever you are
# not the Vexer), wait for your turn:

mine; curl -s $G/games/$ID -H "$AUTH" | jq -c '.state | {round, phase, role, vexer, turn, hand, deck_count}'

# The columns: 'obey' under the black Ace, 'break' under the red Ace, the initial set first
curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.columns | map_values([.[] | "\(.top)/\(.bottom)"])'

# Your legal actions: every query and play of two cards of your hand (and draw with fewer than 4)
curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '[.actions[].type] | group_by(.) | map({(.[0]): length}) | add'

# Query: give the Vexer a set (top, bottom) of two cards of your hand; the server places it in the
# column it belongs to and deals you two cards. Your turn is over.
curl -s $G/games/$ID -H "$AUTH" | jq -c '{type: "query", top: .state.hand[0], bottom: .state.hand[1]}' |
  curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
  jq -c '.game.state | {placed: [.log[] | select(.seat == 0)][-1], hand}'

# Play a set to a column. Right: you get two cards and may guess (phase "guess"). Wrong: the set is
# moved to the other column and your turn is over. Play on your next turns until a play is right
# (with no cards left, draw two):
for try in $(seq 8); do
  mine || break
  [ "$(curl -s $G/games/$ID -H "$AUTH" | jq -r .state.phase)" = turn ] || break
  curl -s $G/games/$ID/actions -H "$AUTH" | jq -c 'first(.actions[] | select(.type == "play")) // {type: "draw"}' |
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- |
    jq -c '.game.state | {played: [.log[] | select(.seat == 0)][-1], phase}'
done

# Guess the rule in the language (any wording: a guess is right when it is logically equivalent).
# An ambiguous or unreadable guess is sent back (422, the Vexer asks for clarification): try again.
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "guess", "rule": "the high card is red"}' | jq -c '{status, detail}'
curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' \
     -d '{"type": "guess", "rule": "the top card is red or the sum is 14"}' |
  jq -c '.game.state | {said: [.log[] | select(.event == "guess")][-1], hint: .hints[-1]}'

# A wrong guess earns a hint: a set on which your guess and the rule disagree, with the column it
# belongs to (`obeys`), pointed to in a column when one is there (public), else built from the
# hintbook or written on a slip (private: in your `hints` only). If the play loop ended without a
# right play (the round was over first), the guess is refused with 409 and the problem lists your
# legal actions under `legal`. The public record of the round and the events:

curl -s $G/games/$ID -H "$AUTH" | jq -c '.state.log[]'
curl -s "$G/games/$ID/events?after=0" -H "$AUTH" | jq -c '.events[-6:][] | [.seq, .type, .data]'

# This loop plays your seat to the end: as a Seeker it takes the first legal action (a query while
# the deck lasts, then a play; it passes rather than guess), as the Vexer it writes a rule with
# `write_rule` above. The game ends when a player with 15 points (ludic) becomes the Vexer again (so
# the winner is not always the highest score); a few seconds with these bots.

for i in $(seq 3000); do
  V=$(curl -s $G/games/$ID -H "$AUTH")
  [ "$(jq -r .status <<<"$V")" = finished ] && break
  if ! jq -e 'any(.to_act[]; . == 0)' <<<"$V" > /dev/null; then sleep 0.2; continue; fi
  if [ "$(jq -r .state.phase <<<"$V")" = rule ]; then write_rule; continue; fi
  curl -s $G/games/$ID/actions -H "$AUTH" | jq -c '.actions[0]' |
    curl -s -X POST $G/games/$ID/actions -H "$AUTH" -H 'Content-Type: application/json' -d @- > /dev/null
done
curl -s $G/games/$ID | jq -c '.result'
# Every round with its Vexer, its rule (revealed at the end of the round) and how it ended
curl -s $G/games/$ID | jq -c '.state.rounds[] | {round, vexer, rule, ended_by, guesser, guess, points}'
# After the end: every action, every event and the seed, whose SHA-256 the game showed from the start
curl -s $G/games/$ID/replay | jq -c '{seed, seed_sha256, actions: (.actions | length), events: (.events | length)}'

# The walkthrough succeeded if the game is over
[ "$(curl -s $G/games/$ID | jq -r .status)" = finished ]
