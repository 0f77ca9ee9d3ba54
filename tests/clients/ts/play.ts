// A whole game of each Ludoteca game, seat 0 a human against the game's bots, through the front
// door, written only against the types openapi-typescript generates from openapi/<game>.json
// (./gen/<game>.ts) and openapi-fetch: no `any`, no cast, no non-null assertion (checked by
// tests/clients/test_generators.py, which also runs `tsc --strict` on it and then node).
//
//   node dist/play.js <game> <front door URL>    e.g. node dist/play.js ludix http://127.0.0.1:8000
//
// The human's choice: a random listed action (the listing is typed as the game's action union),
// or, when only a template is offered (Ludic's Vexer), the rule filled in from the typed view.
// One request a move: after its own move, the seat plays on from the answer (its `game`, and `next`,
// its listing at the new version while it may still act); it reads the game and lists its actions
// only when `next` is null (then it waits for the others' moves).
// On the way it meets a 412 (a stale If-Match) and a 409 (an action no longer legal, and a move
// after the end), each read as the typed problem; it prints one JSON line at the end.

import createClient from "openapi-fetch";
import type { components as LudicTypes, paths as LudicPaths } from "./gen/ludic.js";
import type { components as LudixTypes, paths as LudixPaths } from "./gen/ludix.js";
import type { components as LudorTypes, paths as LudorPaths } from "./gen/ludor.js";
import type { components as PigTypes, paths as PigPaths } from "./gen/pig.js";
import type { components as SpeculationTypes, paths as SpeculationPaths } from "./gen/speculation.js";

type Status = LudixTypes["schemas"]["GameStatus"];

interface Envelope {
  id: string;
  version: number;
  status: Status;
  to_act: number[];
  may_act: number[];
  result: { winners: number[]; scores: number[] } | null;
}

/** A seat's legal actions at a version (GET .../actions, or a move's answer's `next`). */
interface Listing<A> {
  version: number;
  actions: A[];
  templates: A[];
}

/** What a move's answer was, read from the typed answer or the typed problem. */
type Played<A, G> =
  | { kind: "played"; version: number; events: string[]; game: G; next: Listing<A> | null }
  | { kind: "stale"; currentVersion: number; title: string }
  | { kind: "conflict"; problemType: string; legal: A[]; gameStatus: Status | undefined; title: string };

/** One game's calls, each through its generated client (the paths and bodies differ per game). */
interface Game<A extends { type: string }, G extends Envelope> {
  create(): Promise<{ gameId: string; token: string; seat: number | null }>;
  look(): Promise<{ game: G; etag: string }>;
  unchanged(etag: string): Promise<boolean>;
  events(after: number, wait: number): Promise<{ lastSeq: number; types: string[]; told: string[] }>;
  listed(): Promise<Listing<A>>;
  play(action: A, ifMatch: string): Promise<Played<A, G>>;
  choose(game: G, actions: A[], templates: A[]): A | undefined;
  /** What the typed result's summary says, and the replay's event count. */
  ending(game: G): Promise<string>;
}

function fail(message: string): never {
  throw new Error(message);
}

function pick<T>(items: T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

/** A stable text of a JSON value (object keys sorted), to compare actions. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

async function playWholeGame<A extends { type: string }, G extends Envelope>(name: string, game: Game<A, G>) {
  const seen = { moves: 0, stale: false, conflict: "", eventTypes: new Set<string>(), gameOver: "", told: [""],
                 listings: 0, nextGiven: 0, fromAnswer: 0 };
  const played: A[] = [];
  const grant = await game.create();
  if (grant.seat !== 0) fail(`${name}: the creator got seat ${grant.seat}`);
  let after = 0;
  // the last move's answer when it carried `next`: the game and the listing to play on from
  let onward: { game: G; listed: Listing<A> } | null = null;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (Date.now() > deadline) fail(`${name}: not finished in 240 s`);
    let g: G;
    let listed: Listing<A>;
    let etag: string;
    if (onward !== null) { // one request a move: neither the game nor the listing is read again
      ({ game: g, listed } = onward);
      etag = `"${g.version}"`; // the version's ETag
      onward = null;
      seen.fromAnswer += 1;
    } else {
      const looked = await game.look();
      g = looked.game;
      etag = looked.etag;
      if (g.status === "finished") break;
      if (!(await game.unchanged(looked.etag)) && g.status === "waiting_for_players") fail("no 304");
      if (!g.to_act.includes(0)) {
        const page = await game.events(after, 5);
        after = page.lastSeq;
        page.types.forEach((t) => seen.eventTypes.add(t));
        seen.told.push(...page.told);
        continue;
      }
      listed = await game.listed();
      seen.listings += 1;
      if (listed.version !== g.version) continue; // a bot moved in between
    }
    // (a compact listing's template stands for bodies not listed one by one: no probe then; nor
    // when the seat may act only out of turn (Ludor's Autoplim, listed in a move's `next`): an
    // action of its turn is then refused as not its turn, without the same list)
    if (seen.conflict === "" && g.to_act.includes(0) && !listed.templates.some((t) => "domain" in t)) {
      const known = new Set(listed.actions.map(canonical));
      const gone = played.find((a) => !known.has(canonical(a)));
      if (gone !== undefined) {
        const answer = await game.play(gone, etag); // judged at the version listed
        if (answer.kind === "conflict") {
          if (canonical(answer.legal) !== canonical(listed.actions)) {
            fail(`${name}: 409 legal differs at v${g.version} (to act ${JSON.stringify(g.to_act)}): `
              + `${canonical(answer.legal).slice(0, 300)} against ${canonical(listed.actions).slice(0, 300)}`);
          }
          seen.conflict = answer.problemType;
        } else if (answer.kind === "played") {
          fail(`${name}: an action no longer listed was played`);
        }
        continue;
      }
    }
    const action = game.choose(g, listed.actions, listed.templates) ?? fail(`${name}: nothing to play`);
    if (!seen.stale && g.version > 1) {
      const answer = await game.play(action, `"${g.version - 1}"`);
      if (answer.kind !== "stale" || answer.currentVersion < g.version) fail(`${name}: no typed 412`);
      seen.stale = true;
    }
    const answer = await game.play(action, etag);
    if (answer.kind === "conflict") fail(`${name}: 409 ${answer.title}`);
    if (answer.kind === "played") {
      answer.events.forEach((t) => seen.eventTypes.add(t));
      played.push(action);
      seen.moves += 1;
      if (answer.next !== null) {
        if (answer.next.version !== answer.game.version) fail(`${name}: next is not the answer's version`);
        onward = { game: answer.game, listed: answer.next };
        seen.nextGiven += 1;
      }
    }
  }
  const { game: end } = await game.look();
  const result = end.result ?? fail(`${name}: finished without a result`);
  const late = played.at(-1) ?? fail(`${name}: no move played`);
  const answer = await game.play(late, `"${end.version}"`);
  if (answer.kind !== "conflict") fail(`${name}: a move after the end was not a 409`);
  seen.gameOver = answer.problemType;
  return {
    game: name,
    moves: seen.moves,
    listings: seen.listings,
    next_given: seen.nextGiven,
    from_answer: seen.fromAnswer,
    stale: seen.stale,
    conflict: seen.conflict,
    game_over: seen.gameOver,
    game_over_status: answer.gameStatus ?? null,
    event_types: [...seen.eventTypes].sort(),
    winners: result.winners,
    scores: result.scores,
    told: seen.told.filter((t) => t !== "").slice(0, 5),
    ending: await game.ending(end),
  };
}

function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

// -- Ludix ---------------------------------------------------------------------------------------
function ludix(base: string): Game<LudixTypes["schemas"]["LudixAction"], LudixTypes["schemas"]["LudixGame"]> {
  const client = createClient<LudixPaths>({ baseUrl: `${base}/ludix` });
  let gameId = "";
  let auth = bearer("");
  return {
    async create() {
      const { data, error } = await client.POST("/games", { body: { seats: ["human", "bot:steady"] } });
      if (data === undefined) fail(`create: ${error.title}`);
      gameId = data.game.id;
      auth = bearer(data.token ?? fail("no token"));
      return { gameId, token: data.token ?? "", seat: data.seat };
    },
    async look() {
      const { data, response } = await client.GET("/games/{game_id}", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail(`look: ${response.status}`);
      return { game: data, etag: response.headers.get("ETag") ?? fail("no ETag") };
    },
    async unchanged(etag) {
      const { response } = await client.GET("/games/{game_id}", {
        params: { path: { game_id: gameId }, header: { "If-None-Match": etag } }, headers: auth });
      return response.status === 304;
    },
    async events(after, wait) {
      const { data } = await client.GET("/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after, wait } }, headers: auth });
      if (data === undefined) fail("events");
      return { lastSeq: data.last_seq, types: data.events.map((e) => e.type),
               told: data.events.map((e) => (e.type === "DiceThrown" ? `seat ${e.data.seat} threw ${e.data.dice}` : e.type === "PointsBanked" ? `seat ${e.data.seat} banked ${e.data.points}` : "")) };
    },
    async listed() {
      const { data } = await client.GET("/games/{game_id}/actions", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail("actions");
      return data;
    },
    async play(action, ifMatch) {
      const { data, error, response } = await client.POST("/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "If-Match": ifMatch } }, body: action, headers: auth });
      if (data !== undefined)
        return { kind: "played", version: data.game.version, events: data.events.map((e) => e.type), game: data.game,
                 next: data.next };
      if (response.status === 412 && "current_version" in error && error.current_version !== undefined)
        return { kind: "stale", currentVersion: error.current_version, title: error.title };
      if (response.status === 409)
        return { kind: "conflict", problemType: error.type, title: error.title,
                 legal: "legal" in error && error.legal !== undefined ? error.legal : [],
                 gameStatus: "game_status" in error ? error.game_status : undefined };
      return fail(`play: ${error.status} ${error.title}`);
    },
    choose(_game, actions) {
      return pick(actions);
    },
    async ending(game) {
      const { data } = await client.GET("/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
      if (data === undefined) fail("replay");
      const r = game.result ?? fail("no result");
      return `totals ${r.summary.totals.join("/")}, ${r.summary.rounds} rounds, ${data.events.length} events`;
    },
  };
}

// -- Ludic ---------------------------------------------------------------------------------------
function ludic(base: string): Game<LudicTypes["schemas"]["LudicAction"], LudicTypes["schemas"]["LudicGame"]> {
  const client = createClient<LudicPaths>({ baseUrl: `${base}/ludic` });
  let gameId = "";
  let auth = bearer("");
  const rank: Record<string, string> = { J: "jack", Q: "queen", K: "king" };
  return {
    async create() {
      const { data, error } = await client.POST("/games", {
        body: { seats: ["human", "bot:expert", "bot:expert"], options: { round_limit: 1 } } });
      if (data === undefined) fail(`create: ${error.title}`);
      gameId = data.game.id;
      auth = bearer(data.token ?? fail("no token"));
      return { gameId, token: data.token ?? "", seat: data.seat };
    },
    async look() {
      const { data, response } = await client.GET("/games/{game_id}", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail(`look: ${response.status}`);
      return { game: data, etag: response.headers.get("ETag") ?? fail("no ETag") };
    },
    async unchanged(etag) {
      const { response } = await client.GET("/games/{game_id}", {
        params: { path: { game_id: gameId }, header: { "If-None-Match": etag } }, headers: auth });
      return response.status === 304;
    },
    async events(after, wait) {
      const { data } = await client.GET("/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after, wait } }, headers: auth });
      if (data === undefined) fail("events");
      return { lastSeq: data.last_seq, types: data.events.map((e) => e.type),
               told: data.events.map((e) => (e.type === "SetPlayed" ? `seat ${e.data.seat} played ${e.data.top}/${e.data.bottom} to ${e.data.chosen}` : e.type === "RoundEnded" ? `round ${e.data.round}: ${e.data.rule ?? "?"}` : "")) };
    },
    async listed() {
      const { data } = await client.GET("/games/{game_id}/actions", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail("actions");
      return data;
    },
    async play(action, ifMatch) {
      const { data, error, response } = await client.POST("/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "If-Match": ifMatch } }, body: action, headers: auth });
      if (data !== undefined)
        return { kind: "played", version: data.game.version, events: data.events.map((e) => e.type), game: data.game,
                 next: data.next };
      if (response.status === 412 && "current_version" in error && error.current_version !== undefined)
        return { kind: "stale", currentVersion: error.current_version, title: error.title };
      if (response.status === 409)
        return { kind: "conflict", problemType: error.type, title: error.title,
                 legal: "legal" in error && error.legal !== undefined ? error.legal : [],
                 gameStatus: "game_status" in error ? error.game_status : undefined };
      return fail(`play: ${error.status} ${error.title}`);
    },
    choose(game, actions, templates) {
      const passes = actions.filter((a) => a.type === "pass"); // a Seeker leaves the guessing to the bots
      if (passes.length > 0) return passes[0];
      const plays = actions.filter((a) => a.type !== "guess");
      if (plays.length > 0) return pick(plays);
      if (templates.some((t) => t.type === "write_rule")) {
        // the Vexer: a rule the 'obey' initial set obeys and the 'break' one breaks (its top card, exactly)
        const top = game.state.columns.obey[0]?.top ?? fail("no initial set");
        const colour = /[DH]$/.test(top) ? "red" : "black";
        const value = top.slice(0, -1);
        return { type: "write_rule", rule: `the top card is a ${colour} ${rank[value] ?? value}` };
      }
      return undefined;
    },
    async ending(game) {
      const { data } = await client.GET("/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
      if (data === undefined) fail("replay");
      const r = game.result ?? fail("no result");
      return `${r.summary.won_by}, ${r.summary.rounds} rounds, ${data.events.length} events`;
    },
  };
}

// -- Speculation ---------------------------------------------------------------------------------
function speculation(base: string): Game<SpeculationTypes["schemas"]["SpeculationAction"],
  SpeculationTypes["schemas"]["SpeculationGame"]> {
  const client = createClient<SpeculationPaths>({ baseUrl: `${base}/speculation` });
  let gameId = "";
  let auth = bearer("");
  return {
    async create() {
      const { data, error } = await client.POST("/games", { body: { seats: ["human", "bot:basic"] } });
      if (data === undefined) fail(`create: ${error.title}`);
      gameId = data.game.id;
      auth = bearer(data.token ?? fail("no token"));
      return { gameId, token: data.token ?? "", seat: data.seat };
    },
    async look() {
      const { data, response } = await client.GET("/games/{game_id}", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail(`look: ${response.status}`);
      return { game: data, etag: response.headers.get("ETag") ?? fail("no ETag") };
    },
    async unchanged(etag) {
      const { response } = await client.GET("/games/{game_id}", {
        params: { path: { game_id: gameId }, header: { "If-None-Match": etag } }, headers: auth });
      return response.status === 304;
    },
    async events(after, wait) {
      const { data } = await client.GET("/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after, wait } }, headers: auth });
      if (data === undefined) fail("events");
      return { lastSeq: data.last_seq, types: data.events.map((e) => e.type),
               told: data.events.map((e) => (e.type === "ValueGuessed" ? `seat ${e.data.seat}: ${e.data.tier} ${e.data.value}? ${e.data.answer}` : e.type === "JokerGuessed" ? `seat ${e.data.seat}: joker ${e.data.values.join(",")}, ${e.data.right} right` : "")) };
    },
    async listed() {
      const { data } = await client.GET("/games/{game_id}/actions", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail("actions");
      return data;
    },
    async play(action, ifMatch) {
      const { data, error, response } = await client.POST("/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "If-Match": ifMatch } }, body: action, headers: auth });
      if (data !== undefined)
        return { kind: "played", version: data.game.version, events: data.events.map((e) => e.type), game: data.game,
                 next: data.next };
      if (response.status === 412 && "current_version" in error && error.current_version !== undefined)
        return { kind: "stale", currentVersion: error.current_version, title: error.title };
      if (response.status === 409)
        return { kind: "conflict", problemType: error.type, title: error.title,
                 legal: "legal" in error && error.legal !== undefined ? error.legal : [],
                 gameStatus: "game_status" in error ? error.game_status : undefined };
      return fail(`play: ${error.status} ${error.title}`);
    },
    choose(_game, actions, templates) {
      if (actions.length > 0) return pick(actions);
      // the compact listing (at the joker): one guess_joker template with its domain, filled here
      for (const t of templates) {
        if (t.type !== "guess_joker" || t.domain === undefined) continue;
        const { size, min, max, max_repeats: most } = t.domain;
        const values: number[] = [];
        while (values.length < size) {
          const v = min + Math.floor(Math.random() * (max - min + 1));
          if (values.filter((x) => x === v).length < most) values.push(v);
        }
        return { type: "guess_joker", values: values.sort((a, b) => a - b) };
      }
      return undefined;
    },
    async ending(game) {
      const { data } = await client.GET("/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
      if (data === undefined) fail("replay");
      const r = game.result ?? fail("no result");
      return `winner ${r.summary.winner ?? "shared"}, tier guesses ${r.summary.tier_guesses.join("/")}, ${data.events.length} events`;
    },
  };
}

// -- Ludor ---------------------------------------------------------------------------------------
function ludor(base: string): Game<LudorTypes["schemas"]["LudorAction"], LudorTypes["schemas"]["LudorGame"]> {
  const client = createClient<LudorPaths>({ baseUrl: `${base}/ludor` });
  let gameId = "";
  let auth = bearer("");
  return {
    async create() {
      const { data, error } = await client.POST("/games", {
        body: { seats: ["human", "bot:greedy", "bot:greedy"], options: { round_limit: 1, deck: "forty" } } });
      if (data === undefined) fail(`create: ${error.title}`);
      gameId = data.game.id;
      auth = bearer(data.token ?? fail("no token"));
      return { gameId, token: data.token ?? "", seat: data.seat };
    },
    async look() {
      const { data, response } = await client.GET("/games/{game_id}", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail(`look: ${response.status}`);
      return { game: data, etag: response.headers.get("ETag") ?? fail("no ETag") };
    },
    async unchanged(etag) {
      const { response } = await client.GET("/games/{game_id}", {
        params: { path: { game_id: gameId }, header: { "If-None-Match": etag } }, headers: auth });
      return response.status === 304;
    },
    async events(after, wait) {
      const { data } = await client.GET("/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after, wait } }, headers: auth });
      if (data === undefined) fail("events");
      return { lastSeq: data.last_seq, types: data.events.map((e) => e.type),
               told: data.events.map((e) => (e.type === "CardsPlayed" ? `seat ${e.data.seat} played ${e.data.cards.join(" ")} (${e.data.combo.kind})` : e.type === "RoundEnded" ? `round ${e.data.round}: ${e.data.titles.join(", ")}` : "")) };
    },
    async listed() {
      const { data } = await client.GET("/games/{game_id}/actions", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail("actions");
      return data;
    },
    async play(action, ifMatch) {
      const { data, error, response } = await client.POST("/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "If-Match": ifMatch } }, body: action, headers: auth });
      if (data !== undefined)
        return { kind: "played", version: data.game.version, events: data.events.map((e) => e.type), game: data.game,
                 next: data.next };
      if (response.status === 412 && "current_version" in error && error.current_version !== undefined)
        return { kind: "stale", currentVersion: error.current_version, title: error.title };
      if (response.status === 409)
        return { kind: "conflict", problemType: error.type, title: error.title,
                 legal: "legal" in error && error.legal !== undefined ? error.legal : [],
                 gameStatus: "game_status" in error ? error.game_status : undefined };
      return fail(`play: ${error.status} ${error.title}`);
    },
    choose(_game, actions) {
      const plays = actions.filter((a) => a.type !== "pass");
      return pick(plays.length > 0 ? plays : actions);
    },
    async ending(game) {
      const { data } = await client.GET("/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
      if (data === undefined) fail("replay");
      const r = game.result ?? fail("no result");
      return `points ${r.summary.points.join("/")}, titles ${r.summary.titles.join(", ")}, ${data.events.length} events`;
    },
  };
}

// -- Pig -----------------------------------------------------------------------------------------
function pig(base: string): Game<PigTypes["schemas"]["PigAction"], PigTypes["schemas"]["PigGame"]> {
  const client = createClient<PigPaths>({ baseUrl: `${base}/pig` });
  let gameId = "";
  let auth = bearer("");
  return {
    async create() {
      const { data, error } = await client.POST("/games", { body: { seats: ["human", "bot:hold20"], options: { target: 50 } } });
      if (data === undefined) fail(`create: ${error.title}`);
      gameId = data.game.id;
      auth = bearer(data.token ?? fail("no token"));
      return { gameId, token: data.token ?? "", seat: data.seat };
    },
    async look() {
      const { data, response } = await client.GET("/games/{game_id}", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail(`look: ${response.status}`);
      return { game: data, etag: response.headers.get("ETag") ?? fail("no ETag") };
    },
    async unchanged(etag) {
      const { response } = await client.GET("/games/{game_id}", {
        params: { path: { game_id: gameId }, header: { "If-None-Match": etag } }, headers: auth });
      return response.status === 304;
    },
    async events(after, wait) {
      const { data } = await client.GET("/games/{game_id}/events", {
        params: { path: { game_id: gameId }, query: { after, wait } }, headers: auth });
      if (data === undefined) fail("events");
      return { lastSeq: data.last_seq, types: data.events.map((e) => e.type),
               told: data.events.map((e) => (e.type === "DieRolled" ? `seat ${e.data.seat} rolled ${e.data.die}` : e.type === "PointsBanked" ? `seat ${e.data.seat} banked ${e.data.points}` : "")) };
    },
    async listed() {
      const { data } = await client.GET("/games/{game_id}/actions", { params: { path: { game_id: gameId } }, headers: auth });
      if (data === undefined) fail("actions");
      return data;
    },
    async play(action, ifMatch) {
      const { data, error, response } = await client.POST("/games/{game_id}/actions", {
        params: { path: { game_id: gameId }, header: { "If-Match": ifMatch } }, body: action, headers: auth });
      if (data !== undefined)
        return { kind: "played", version: data.game.version, events: data.events.map((e) => e.type), game: data.game,
                 next: data.next };
      if (response.status === 412 && "current_version" in error && error.current_version !== undefined)
        return { kind: "stale", currentVersion: error.current_version, title: error.title };
      if (response.status === 409)
        return { kind: "conflict", problemType: error.type, title: error.title,
                 legal: "legal" in error && error.legal !== undefined ? error.legal : [],
                 gameStatus: "game_status" in error ? error.game_status : undefined };
      return fail(`play: ${error.status} ${error.title}`);
    },
    choose(_game, actions) {
      return pick(actions);
    },
    async ending(game) {
      const { data } = await client.GET("/games/{game_id}/replay", { params: { path: { game_id: gameId } } });
      if (data === undefined) fail("replay");
      const r = game.result ?? fail("no result");
      return `scores ${r.summary.scores.join("/")} of ${r.summary.target}, seat ${r.summary.first_player} first, ${data.events.length} events`;
    },
  };
}

async function main(): Promise<void> {
  const [name, base] = process.argv.slice(2);
  if (name === undefined || base === undefined) fail("usage: node dist/play.js <game> <front door URL>");
  const games = { ludix, ludic, speculation, ludor, pig };
  const seen =
    name === "ludix" ? await playWholeGame(name, games.ludix(base))
    : name === "ludic" ? await playWholeGame(name, games.ludic(base))
    : name === "speculation" ? await playWholeGame(name, games.speculation(base))
    : name === "ludor" ? await playWholeGame(name, games.ludor(base))
    : name === "pig" ? await playWholeGame(name, games.pig(base))
    : fail(`unknown game ${name}`);
  console.log(JSON.stringify(seen));
}

await main();
