# The walkthroughs' two helpers, sourced by each of them (paste these first if you follow one by
# hand). G is the game's URL, e.g. G=http://127.0.0.1:8000/ludic.

# new_game SEATS: create a game with these seats, you at seat 0 (named "ana"); sets ID, and AUTH,
# the header that carries your seat token. The token is shown once: it is your seat.
new_game() {
  curl -s -X POST $G/games -H 'Content-Type: application/json' \
       -d "{\"seats\": $1, \"name\": \"ana\"}" > game.json
  ID=$(jq -r .game.id game.json); TOKEN=$(jq -r .token game.json)
  AUTH="Authorization: Bearer $TOKEN"
}

# mine: wait (up to 60 s) until you (seat 0) are to act; false if the game is over. The bots play
# through the worker as soon as the game waits on them.
mine() {
  for _ in $(seq 300); do
    case "$(curl -s $G/games/$ID | jq -r 'if .status == "finished" then "over"
            elif any(.to_act[]; . == 0) then "me" else "wait" end')" in me) return 0;; over) return 1;; esac
    sleep 0.2
  done
  return 1
}
