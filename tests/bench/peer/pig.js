// Pig in boardgame.io: the same rules as services/pig (RULES.md there), the constants in rules.json
// (tests/bench/test_peer.py checks them against services/pig's engine). Two to six players share one
// six-sided die; on your turn, roll: a 1 loses the turn total and passes the turn, any other face adds
// to it; or hold (once the turn has gathered points): bank the turn total and pass. The first player
// is drawn, and the first to bank the target wins. Both moves run on the server only (client: false):
// the server is the one that throws the die, as ours does.
const { INVALID_MOVE } = require("boardgame.io/core");
const RULES = require("./rules.json");

function roll({ G, playerID, random, events }) {
  const die = random.Die(RULES.faces);
  G.lastRoll = { seat: Number(playerID), die };
  if (die === RULES.bust) {
    G.turnTotal = 0;
    events.endTurn();
  } else {
    G.turnTotal += die;
  }
}

function hold({ G, playerID, events }) {
  if (G.turnTotal <= 0) return INVALID_MOVE;
  G.scores[Number(playerID)] += G.turnTotal;
  G.turnTotal = 0;
  if (G.scores[Number(playerID)] < RULES.target) events.endTurn();
}

const Pig = {
  name: "pig",
  minPlayers: RULES.min_players,
  maxPlayers: RULES.max_players,
  setup: ({ ctx }) => ({ scores: Array(ctx.numPlayers).fill(0), turnTotal: 0, lastRoll: null }),
  turn: {
    order: {
      first: ({ ctx, random }) => random.Die(ctx.numPlayers) - 1,
      next: ({ ctx }) => (ctx.playOrderPos + 1) % ctx.numPlayers,
    },
  },
  moves: {
    roll: { move: roll, client: false },
    hold: { move: hold, client: false },
  },
  endIf: ({ G }) => {
    const best = Math.max(...G.scores);
    if (best >= RULES.target) return { winner: String(G.scores.indexOf(best)) };
    return undefined;
  },
};

module.exports = { Pig, RULES };
