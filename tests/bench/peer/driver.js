// Plays Pig on a boardgame.io server as real clients do: TABLES matches at once, each with its two
// players' clients (boardgame.io's Client over socket.io, one connection each), the player to act
// rolling until the turn total reaches HOLD_AT (rules.json) and then holding, MOVES moves a table
// a round (a finished match is replaced by a new one, its setup counted in the round, as the Python
// driver of make bench counts a new game's). Usage: node driver.js PORT TABLES
// It connects every table, prints "ready", then for each line "play MOVES" on its stdin plays a round
// and prints one JSON line (moves, seconds, moves/s, p50 ms, games finished); "quit" (or the end of
// stdin) ends it.
const { Client, LobbyClient } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");
const { Pig, RULES } = require("./pig");

const [port, tables] = process.argv.slice(2, 4).map(Number);
const server = `http://127.0.0.1:${port}`;
const lobby = new LobbyClient({ server });

async function match() {
  const { matchID } = await lobby.createMatch("pig", { numPlayers: 2 });
  const players = [];
  for (const playerID of ["0", "1"]) {
    const { playerCredentials } = await lobby.joinMatch("pig", matchID, { playerID, playerName: `p${playerID}` });
    const client = Client({ game: Pig, multiplayer: SocketIO({ server }), matchID, playerID,
                            credentials: playerCredentials, debug: false });
    client.start();
    players.push(client);
  }
  await Promise.all(players.map((c) => new Promise((resolve) => {
    const stop = c.subscribe((s) => { if (s !== null && s.isConnected) { stop(); resolve(); } });
  })));
  return players;
}

function choose(G) {
  return G.turnTotal >= RULES.hold_at ? "hold" : "roll";
}

// One table: plays `count` moves, each timed from its send to the state that answers it.
async function play(t, count, latencies, finished) {
  let done = 0;
  while (done < count) {
    const state = t.players[0].getState();
    if (state.ctx.gameover !== undefined) {
      finished.count += 1;
      t.players.forEach((c) => c.stop());
      t.players = await match();
      continue;
    }
    const seat = Number(state.ctx.currentPlayer);
    const [mover, other] = [t.players[seat], t.players[1 - seat]];
    const before = state._stateID;
    const t0 = process.hrtime.bigint();
    // the move is answered once both players' clients hold the new state (the next move is chosen from it)
    await Promise.all([mover, other].map((c) => new Promise((resolve) => {
      const stop = c.subscribe((s) => { if (s !== null && s._stateID > before) { stop(); resolve(); } });
    })).concat([Promise.resolve(mover.moves[choose(state.G)]())]));
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    done += 1;
  }
}

async function main() {
  const all = await Promise.all(Array.from({ length: tables }, async () => ({ players: await match() })));
  console.log("ready");
  const lines = require("readline").createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [command, arg] = line.trim().split(/\s+/);
    if (command !== "play") break;
    const latencies = [];
    const finished = { count: 0 };
    const t0 = process.hrtime.bigint();
    await Promise.all(all.map((t) => play(t, Number(arg), latencies, finished)));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    latencies.sort((a, b) => a - b);
    console.log(JSON.stringify({ moves: latencies.length, seconds, rate: latencies.length / seconds,
                                 p50_ms: latencies[Math.floor(latencies.length / 2)], finished: finished.count }));
  }
  all.forEach((t) => t.players.forEach((c) => c.stop()));
  process.exit(0);
}

main().catch((err) => { console.error(err); process.exit(1); });
