// A whole game of any Ludoteca game, seat 0 a human against the game's bots, through the front
// door, written only against the types openapi-typescript generates from openapi/<game>.json
// (./gen/<game>.ts) and openapi-fetch: no `any`, no cast, no non-null assertion (checked by
// tests/clients/test_generators.py, which also runs `tsc --strict` on it and then node).
//
//   node dist/clients/ts/play.js <game> <front door URL>    e.g. ... ludix http://127.0.0.1:8000
//
// What is the game's own is in its folder: tests/<game>/client.ts, its adapter, compiled beside
// this file as in the repository (tests/clients/ts/play.ts, tests/<game>/client.ts, the generated
// types in tests/clients/ts/gen/<game>.ts) and loaded by the game's name. It calls `register` with
// its generated client (typed against `GameClient` below, so every route it needs is checked
// against the game's own document), the body that creates its table, and how a human plays it:
// what to choose among the listed actions (or how to fill a template: Ludic's Vexer writes a rule,
// Speculation's joker guess fills a domain), what its events tell, what its result's summary says.
//
// The human's choice: one of the listed actions (the listing is typed as the game's action union),
// or a template filled in from the typed view. One request a move: after its own move, the seat
// plays on from the answer (its `game`, and `next`, its listing at the new version while it may
// still act); it reads the game and lists its actions only when `next` is null (then it waits for
// the others' moves). On the way it meets a 412 (a stale If-Match) and a 409 (an action no longer
// legal, and a move after the end), each read as the typed problem; it prints one JSON line at the
// end.

/** A game's status, as every document types it (a game whose status differs fails to compile). */
export type Status = "waiting_for_players" | "active" | "finished";

/** What the shared loop reads of a game (each game's generated type has it, and more). */
export interface Envelope {
  id: string;
  version: number;
  status: Status;
  to_act: number[];
  may_act: number[];
  result: { winners: number[]; scores: number[] } | null;
}

/** A seat's legal actions at a version (GET .../actions, or a move's answer's `next`). */
export interface Listing<A> {
  version: number;
  actions: A[];
  templates: A[];
}

/** The members of a problem (RFC 9457) the loop reads: a 412's version, a 409's legal actions. */
export interface Problem<A> {
  type: string;
  title: string;
  status: number;
  current_version?: number;
  legal?: A[];
  game_status?: Status;
}

/** An openapi-fetch answer: the typed body, or the typed problem. */
export type Answer<T, A> =
  | { data: T; error?: never; response: Response }
  | { data?: never; error: Problem<A>; response: Response };

type Auth = { Authorization: string };
type GamePath = { path: { game_id: string } };

/** The routes the loop calls, as a game's generated client (`createClient<paths>`) must type
 * them: tsc checks the game's client against this, route by route. A action, G game, E event,
 * C the body that creates a game. */
export interface GameClient<A, G, E, C> {
  POST(url: "/games", init: { body: C }): Promise<Answer<{ game: G; token: string | null; seat: number | null }, A>>;
  GET(url: "/games/{game_id}", init: { params: GamePath & { header?: { "If-None-Match"?: string } }; headers: Auth }):
    Promise<Answer<G, A>>;
  GET(url: "/games/{game_id}/events", init: { params: GamePath & { query: { after: number; wait: number } };
    headers: Auth }): Promise<Answer<{ last_seq: number; events: E[] }, A>>;
  GET(url: "/games/{game_id}/actions", init: { params: GamePath; headers: Auth }): Promise<Answer<Listing<A>, A>>;
  POST(url: "/games/{game_id}/actions", init: { params: GamePath & { header: { "If-Match": string } }; body: A;
    headers: Auth }): Promise<Answer<{ game: G; events: { type: string }[]; next: Listing<A> | null }, A>>;
  GET(url: "/games/{game_id}/replay", init: { params: GamePath }): Promise<Answer<{ events: E[] }, A>>;
}

/** What a game's folder gives (tests/<game>/client.ts): its client, its table, how a human plays. */
export interface Adapter<A extends { type: string }, G extends Envelope, E extends { type: string }, C> {
  client: GameClient<A, G, E, C>;
  /** The body of POST /games: the human at seat 0, the game's bots, a quick game's options. */
  create: C;
  /** The human's choice among the listed actions, or a template filled in; undefined: none. */
  choose(game: G, actions: A[], templates: A[]): A | undefined;
  /** What an event tells, in a few words ("" for nothing worth printing). */
  told(event: E): string;
  /** What the finished game's typed result says (its summary), with the replay's event count. */
  ending(game: G, replayEvents: number): string;
}

/** What a move's answer was, read from the typed answer or the typed problem. */
type Played<A, G> =
  | { kind: "played"; version: number; events: string[]; game: G; next: Listing<A> | null }
  | { kind: "stale"; currentVersion: number; title: string }
  | { kind: "conflict"; problemType: string; legal: A[]; gameStatus: Status | undefined; title: string };

/** One game's calls, for the loop (built from the game's adapter by `calls`). */
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

/** The JSON line printed at the end (tests/clients/test_generators.py reads it). */
interface Seen {
  game: string;
  moves: number;
  listings: number;
  next_given: number;
  from_answer: number;
  stale: boolean;
  conflict: string;
  game_over: string;
  game_over_status: Status | null;
  event_types: string[];
  winners: number[];
  scores: number[];
  told: string[];
  ending: string;
}

export function fail(message: string): never {
  throw new Error(message);
}

export function pick<T>(items: T[]): T | undefined {
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

function bearer(token: string): Auth {
  return { Authorization: `Bearer ${token}` };
}

/** The loop's calls over a game's adapter: each through the game's generated client. */
function calls<A extends { type: string }, G extends Envelope, E extends { type: string }, C>(
  adapter: Adapter<A, G, E, C>): Game<A, G> {
  const { client } = adapter;
  let gameId = "";
  let auth = bearer("");
  const path = (): GamePath => ({ path: { game_id: gameId } });
  return {
    async create() {
      const { data, error } = await client.POST("/games", { body: adapter.create });
      if (data === undefined) fail(`create: ${error.title}`);
      gameId = data.game.id;
      auth = bearer(data.token ?? fail("no token"));
      return { gameId, token: data.token ?? "", seat: data.seat };
    },
    async look() {
      const { data, response } = await client.GET("/games/{game_id}", { params: path(), headers: auth });
      if (data === undefined) fail(`look: ${response.status}`);
      return { game: data, etag: response.headers.get("ETag") ?? fail("no ETag") };
    },
    async unchanged(etag) {
      const { response } = await client.GET("/games/{game_id}", {
        params: { ...path(), header: { "If-None-Match": etag } }, headers: auth });
      return response.status === 304;
    },
    async events(after, wait) {
      const { data } = await client.GET("/games/{game_id}/events", {
        params: { ...path(), query: { after, wait } }, headers: auth });
      if (data === undefined) fail("events");
      return { lastSeq: data.last_seq, types: data.events.map((e) => e.type), told: data.events.map(adapter.told) };
    },
    async listed() {
      const { data } = await client.GET("/games/{game_id}/actions", { params: path(), headers: auth });
      if (data === undefined) fail("actions");
      return data;
    },
    async play(action, ifMatch) {
      const { data, error, response } = await client.POST("/games/{game_id}/actions", {
        params: { ...path(), header: { "If-Match": ifMatch } }, body: action, headers: auth });
      if (data !== undefined)
        return { kind: "played", version: data.game.version, events: data.events.map((e) => e.type), game: data.game,
                 next: data.next };
      if (response.status === 412 && error.current_version !== undefined)
        return { kind: "stale", currentVersion: error.current_version, title: error.title };
      if (response.status === 409)
        return { kind: "conflict", problemType: error.type, title: error.title, legal: error.legal ?? [],
                 gameStatus: error.game_status };
      return fail(`play: ${error.status} ${error.title}`);
    },
    choose: (game, actions, templates) => adapter.choose(game, actions, templates),
    async ending(game) {
      const { data } = await client.GET("/games/{game_id}/replay", { params: path() });
      if (data === undefined) fail("replay");
      return adapter.ending(game, data.events.length);
    },
  };
}

async function playWholeGame<A extends { type: string }, G extends Envelope>(name: string, game: Game<A, G>):
  Promise<Seen> {
  const seen = { moves: 0, stale: false, conflict: "", eventTypes: new Set<string>(), gameOver: "", told: [""],
                 listings: 0, nextGiven: 0, fromAnswer: 0 };
  const played: A[] = [];
  const offered = new Map<string, A>(); // every action a listing of seat 0 held, by its canonical text
  const offer = (actions: A[]): void => actions.forEach((a) => offered.set(canonical(a), a));
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
      // an action listed before (played or not) that is not listed now: a 409 listing what is
      const known = new Set(listed.actions.map(canonical));
      const gone = [...offered.values()].find((a) => !known.has(canonical(a)));
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
    offer(listed.actions);
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

/** Each game's whole game, by name: filled by the adapters as they load. */
const games = new Map<string, (base: string) => Promise<Seen>>();

/** Called by tests/<game>/client.ts as it loads: the game's adapter, made for a front door URL. */
export function register<A extends { type: string }, G extends Envelope, E extends { type: string }, C>(
  name: string, adapter: (gameUrl: string) => Adapter<A, G, E, C>): void {
  games.set(name, (base) => playWholeGame(name, calls(adapter(`${base}/${name}`))));
}

async function main(): Promise<void> {
  const [name, base] = process.argv.slice(2);
  if (name === undefined || base === undefined) fail("usage: node dist/clients/ts/play.js <game> <front door URL>");
  const adapter = `tests/${name}/client.ts`;
  // the game's adapter, compiled beside this file as in the repository (dist/<game>/client.js)
  await import(`../../${name}/client.js`).catch((err: unknown) =>
    fail(`${name}: no adapter loaded: write ${adapter} (tests/pig/client.ts is the smallest); ${String(err)}`));
  const play = games.get(name) ?? fail(`${name}: ${adapter} did not register("${name}", ...)`);
  console.log(JSON.stringify(await play(base)));
}

// not awaited at the top: the adapter imports this module, which must be done evaluating first
main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
