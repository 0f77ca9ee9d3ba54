/* The Ludoteca playground: plain JavaScript (no build step), served by the front door at "/" (see
 * ludoteca.entrypoints.frontdoor). It is a client of the public API only, as any client would be:
 *
 *   GET /                          the mounted games and services (JSON, asked for with Accept: application/json)
 *   POST /players                  a guest player (its name; its token, shown once, kept in localStorage)
 *   GET /players/me                the kept player is still known (a 401: it is dropped)
 *   GET /players/me/games          "My games": the player's games of every kind, your turn or not
 *   GET /<game>/openapi.json       the seat kinds (bot levels), seat counts and options of POST /games
 *   POST /<game>/games             a table: "human" + bots (with the player's token: the seat is the
 *                                  player's), or bots only (a spectator watches)
 *   GET /<game>/games/{id}         the caller's view (the seat token's, or the public one)
 *   GET /<game>/games/{id}/actions the caller's legal actions: the only moves the page lets you build
 *   POST /<game>/games/{id}/actions  with If-Match (the listing's version) and an Idempotency-Key; its
 *                                  answer's `next` is the listing at the new version (one request a move)
 *   GET /<game>/games/{id}/events?after=N&wait=S   the long-poll that drives every refresh
 *   POST /ludic/rules/check        the Vexer's rule editor's live verdict (debounced)
 *
 * The page draws each game's table (the game's own playground.js, gathered into tables.js by `make
 * generate`; drawn with games.js's pieces and the cards and dice of cards.js); a move is built
 * by clicking, and only a listed action can be built: the page matches what was clicked against the
 * listing and posts that action as it was listed. The events are shown one by one at the chosen
 * speed (the table is read again once they are all shown, if they went beyond it). The page keeps a
 * guest player (the players service's, when the front door mounts it) whose token is the bearer of
 * every table it plays, so a reload (the address ends with #<game>/<id>) or "My games" brings your
 * seat back; without a players service, the seat token is kept under the game's id instead.
 */
"use strict";

const LONG_POLL_SECONDS = 25; // a long-poll's wait (the services cap it at 30 s)
const REQUEST_TIMEOUT_MS = 45000; // above the long-poll: no request hangs the page
const RETRY_MS = 1000; // after a failed long-poll (e.g. a 503 while Redis restarts)
const MAX_LOG = 400;
const DOUBLE_CLICK_MS = 500; // a move's buttons stay inert at least this long after a click
const MAX_SEATS_KEPT = 20; // seat tokens kept in localStorage, newest first
const SPEEDS = { slow: 1600, normal: 800, fast: 250, instant: 0 }; // ms between two events shown
const MY_GAMES_GAP_MS = 1000; // "My games" is read at most this often (after moves, on coming back)
// localStorage: { player: {id, name, token}, seats: {"<game>/<id>": {token, seat} or {player, seat}}, speed }
const STORE = "ludoteca.playground";

const el = (id) => document.getElementById(id);
const page = { games: {}, players: null, docs: {}, game: null, base: "", setup: null, table: null };

// ---- small DOM helpers (used by the tables too) ---------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ---- storage --------------------------------------------------------------------------------------

function stored() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE) || "{}");
    return { seats: {}, ...data };
  } catch (err) {
    return { seats: {} };
  }
}

function store(change) {
  const data = stored();
  change(data);
  try { localStorage.setItem(STORE, JSON.stringify(data)); } catch (err) { /* private mode: no memory */ }
}

// ---- HTTP -----------------------------------------------------------------------------------------

async function call(method, url, { token = null, body, headers = {}, signal = null } = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  const onAbort = () => controller.abort();
  if (signal) signal.addEventListener("abort", onAbort);
  const sent = { Accept: "application/json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  try {
    const r = await fetch(url, {
      method, headers: sent, cache: "no-store", signal: controller.signal,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (err) { data = { detail: text.slice(0, 300) }; }
    return { status: r.status, ok: r.ok, data };
  } catch (err) {
    const aborted = err.name === "AbortError";
    return { status: 0, ok: false, aborted, data: { title: aborted ? "No answer" : "Network error", detail: String(err) } };
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener("abort", onAbort);
  }
}

function idempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return "playground-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- problems (RFC 9457) and notes ---------------------------------------------------------------

function showProblem(answer, what) {
  const p = answer.data || {};
  const box = el("problem");
  let text = `${what}: ${p.title || "Error"}${p.detail ? ": " + p.detail : ""}`;
  if (answer.status) text = `${answer.status} ${text}`;
  if (Array.isArray(p.legal)) text += p.legal.length ? ` (${p.legal.length} legal move${p.legal.length > 1 ? "s" : ""} now: see the table)` : " (no move is legal for you now)";
  box.textContent = text.replace(/\s+/g, " ");
  box.dataset.status = String(answer.status);
  box.hidden = false;
}

function clearProblem() {
  el("problem").hidden = true;
  el("problem").textContent = "";
  delete el("problem").dataset.status;
}

function note(text) {
  el("note").textContent = text;
}

// ---- the game's document: what POST /games accepts -----------------------------------------------

function resolve(doc, schema) {
  let s = schema || {};
  for (let depth = 0; depth < 32; depth += 1) {
    if (s.$ref) {
      s = s.$ref.replace(/^#\//, "").split("/")
        .reduce((node, key) => (node || {})[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc) || {};
    } else if (Array.isArray(s.allOf) && s.allOf.length === 1) {
      s = s.allOf[0];
    } else {
      return s;
    }
  }
  return s;
}

function enumOf(doc, schema) {
  const s = resolve(doc, schema);
  if (Array.isArray(s.enum)) return s.enum.filter((v) => v !== null);
  for (const part of [...(s.anyOf || []), ...(s.oneOf || [])]) {
    const found = enumOf(doc, part);
    if (found.length) return found;
  }
  return [];
}

function setupOf(doc) {
  const post = doc.paths["/games"].post;
  const body = resolve(doc, post.requestBody.content["application/json"].schema);
  const seats = resolve(doc, body.properties.seats);
  const kinds = enumOf(doc, seats.items);
  const options = resolve(doc, body.properties.options);
  return {
    min: seats.minItems || 2, max: seats.maxItems || 8,
    levels: kinds.filter((k) => k.startsWith("bot:")).map((k) => k.slice(4)),
    options: options.properties || {},
  };
}

async function chooseGame(name) {
  page.game = name;
  page.base = page.games[name];
  el("docs").href = `${page.base}docs`;
  delete document.body.dataset.game;
  el("game-blurb").textContent = (GAMES[name] && GAMES[name].blurb) || "";
  let doc = page.docs[name];
  if (!doc) {
    const answer = await call("GET", `${page.base}openapi.json`);
    if (!answer.ok) return showProblem(answer, `GET ${page.base}openapi.json`);
    doc = page.docs[name] = answer.data;
  }
  const setup = setupOf(doc);
  page.setup = setup;
  const seats = el("seats");
  seats.min = setup.min;
  seats.max = setup.max;
  const wanted = (GAMES[name] && GAMES[name].seats) || setup.min;
  seats.value = Math.min(Math.max(wanted, setup.min), setup.max);
  const level = el("level");
  level.replaceChildren(...setup.levels.map((l) => new Option(l, l)));
  const preferred = (GAMES[name] && GAMES[name].level) || "basic";
  level.value = setup.levels.includes(preferred) ? preferred : setup.levels[Math.min(1, setup.levels.length - 1)];
  el("options").value = "{}";
  const help = Object.entries(setup.options).map(([key, prop]) => {
    const p = resolve(doc, prop);
    const byDefault = p.default === undefined ? "" : ` (default ${JSON.stringify(p.default)})`;
    return `${key}${byDefault}${p.description ? ": " + p.description : ""}`;
  });
  el("options-help").textContent = help.length ? "Options: " + help.join(" · ") : "This game has no options.";
  if (page.game === name) document.body.dataset.game = name; // the form is this game's
}

// ---- the guest player and "My games" ----------------------------------------------------------------
// When the front door mounts the players service (GET / lists it under "services"), the page keeps
// one guest player in localStorage, made on the first table played (POST /players, the name typed);
// its token is the bearer of every table it plays, so a table's seat needs nothing else kept.

const player = () => (page.players && stored().player) || null;

async function ensurePlayer() {
  if (!page.players) return null;
  const known = player();
  if (known) return known;
  const name = el("player-name").value.trim() || "Guest";
  const answer = await call("POST", page.players, { body: { name } });
  if (!answer.ok) { // the table is still played, by its seat token
    showProblem(answer, `Making you a player (POST ${page.players})`);
    return null;
  }
  const made = { id: answer.data.player.id, name: answer.data.player.name, token: answer.data.token };
  store((d) => { d.player = made; });
  drawPlayer();
  return made;
}

// The kept player is still known (a 401: it is not, e.g. its records are gone: dropped).
async function checkPlayer() {
  const known = player();
  if (!known) return;
  const answer = await call("GET", `${page.players}me`, { token: known.token });
  if (answer.status === 401) {
    forgetPlayer();
    note(`The player ${known.name} kept in this browser is not known any more: the next table makes a new one.`);
  } else if (answer.ok && answer.data.name !== known.name) {
    store((d) => { d.player = { ...known, name: answer.data.name }; });
  }
}

function forgetPlayer() {
  const known = stored().player;
  store((d) => {
    delete d.player;
    if (known) d.seats = Object.fromEntries(Object.entries(d.seats).filter(([, s]) => s.player !== known.id));
  });
  const table = page.table;
  if (known && table && table.token === known.token) { // your table, watched now
    openTable(table.game, table.id, null, null);
  }
  drawPlayer();
}

function drawPlayer() {
  el("player").hidden = !page.players;
  const known = player();
  el("player-new").hidden = !!known;
  el("player-known").hidden = !known;
  el("forget-ask").hidden = true;
  el("my-games").hidden = !known;
  el("player").dataset.player = known ? known.id : "";
  if (known) el("player-shown").textContent = el("forget-name").textContent = known.name;
  else el("my-games-list").replaceChildren();
  if (known) myGamesSoon();
}

const STATUS_WORDS = { waiting_for_players: "waiting for players", active: "being played", finished: "over" };

// One read of "My games" at a time, at most one a MY_GAMES_GAP_MS: asked for again meanwhile, it
// runs once more after.
function myGamesSoon() {
  const m = page.myGames || (page.myGames = { running: false, again: false, last: 0 });
  if (!player()) return;
  if (m.running) {
    m.again = true;
    return;
  }
  m.running = true;
  (async () => {
    try {
      do {
        m.again = false;
        const wait = MY_GAMES_GAP_MS - (Date.now() - m.last);
        if (wait > 0) await sleep(wait);
        m.last = Date.now();
        await readMyGames();
      } while (m.again);
    } finally {
      m.running = false;
    }
  })();
}

async function readMyGames() {
  const known = player();
  if (!known) return;
  const answer = await call("GET", `${page.players}me/games?page_size=20`, { token: known.token });
  const now = player();
  if (!now || now.id !== known.id) return; // forgotten meanwhile
  if (!answer.ok) {
    el("my-games-none").hidden = false;
    el("my-games-none").textContent = `My games could not be read (${answer.status || "no answer"}): try Refresh.`;
    return;
  }
  el("my-games-none").textContent = "No games yet: play a table and it is listed here.";
  page.myGamesRows = answer.data.games;
  el("my-games").dataset.read = String(Date.now());
  drawMyGames();
}

function drawMyGames() {
  const rows = page.myGamesRows || [];
  const open = page.table ? `${page.table.game}/${page.table.id}` : null;
  el("my-games-none").hidden = rows.length > 0;
  el("my-games-list").replaceChildren(...rows.map((r) => {
    const here = `${r.game}/${r.id}` === open;
    const title = GAMES[r.game] ? GAMES[r.game].title : r.game;
    const state = r.left ? `you left (${STATUS_WORDS[r.status] || r.status})`
      : r.status === "active" ? (r.your_turn ? "your turn" : "their turn") : STATUS_WORDS[r.status] || r.status;
    return h("li", { class: `my-game${r.your_turn ? " your-turn" : ""}`, dataset: { game: r.game, id: r.id, yourTurn: String(r.your_turn), status: r.status } },
      h("span", { class: "what" }, `${title} · seat ${r.seat} · `, h("strong", {}, state)),
      page.games[r.game]
        ? h("a", { href: `#${r.game}/${r.id}`, "aria-current": here ? "true" : null, "aria-label": `${here ? "Shown" : "Open"}: ${title} ${r.id.slice(0, 8)}, ${state}` }, here ? "shown" : "open")
        : null,
      h("small", {}, ` ${r.id.slice(0, 8)}`));
  }));
}

// The table the address names (#<game>/<id>): your seat there (the player's token, or a seat
// token kept for it), else watched.
function openFromAddress() {
  const [wanted, id] = decodeURIComponent(location.hash.slice(1)).split("/");
  if (!id || !page.games[wanted]) return false;
  if (page.table && page.table.game === wanted && page.table.id === id) return true;
  const kept = stored().seats[`${wanted}/${id}`];
  const known = player();
  if (kept && kept.token) openTable(wanted, id, kept.token, kept.seat);
  else if (known) openTable(wanted, id, known.token, kept ? kept.seat : null, null, true);
  else openTable(wanted, id, null, null);
  return true;
}

// ---- a table --------------------------------------------------------------------------------------

class Table {
  constructor(game, base, id, token, seat) {
    this.game = game;
    this.base = base;
    this.id = id;
    this.token = token; // null for a spectator
    this.seat = seat;
    this.view = null; // the game document shown
    this.listing = null; // the legal actions of this.view's version (null: not read yet)
    this.version = -1;
    this.after = 0; // the last event read
    this.shown = 0; // the version of the last event shown
    this.force = false; // the next refresh shows the view even if it is ahead of the events shown
    this.queue = []; // events read, not shown yet
    this.pumping = false;
    this.live = true;
    this.busy = false; // a move is in flight (or just answered: the double-click guard)
    this.answering = null; // a promise while a move waits for its answer
    this.byPlayer = false; // the token is the guest player's (a game without its seat opens watched)
    this.refreshing = null;
    this.again = false;
    this.sel = {}; // what has been clicked towards the next move (the table's), reset by a new version
    this.ui = {}; // per-table state of the game's page (the rule editor's text...)
    this.seats = [];
    this.stopper = new AbortController();
  }

  url(path = "") {
    return `${this.base}games/${encodeURIComponent(this.id)}${path}`;
  }

  stop() {
    this.live = false;
    this.stopper.abort();
  }
}

function drawSeat(table) {
  el("table").dataset.seat = table.seat === null ? "" : String(table.seat);
  el("seat-shown").textContent = table.token && table.seat !== null ? `· your seat: ${table.seat}` : "";
}

function seatName(table, seat) {
  if (seat === null || seat === undefined) return "nobody";
  if (table.seat !== null && seat === table.seat) return "You";
  const s = table.seats[seat];
  if (s && s.kind === "bot") return `Seat ${seat} (${s.level})`;
  return `Seat ${seat}`;
}

async function newTable(watch) {
  clearProblem();
  let options;
  try {
    options = JSON.parse(el("options").value || "{}");
  } catch (err) {
    return showProblem({ status: 0, data: { title: "Options are not JSON", detail: String(err) } }, "New table");
  }
  const n = Number(el("seats").value);
  const bot = `bot:${el("level").value}`;
  const seats = watch ? Array(n).fill(bot) : ["human", ...Array(Math.max(n - 1, 0)).fill(bot)];
  el("play").disabled = el("watch").disabled = true;
  const me = watch ? null : await ensurePlayer(); // null: no players service (or it refused): a seat token
  const answer = await call("POST", `${page.base}games`, { body: { seats, options }, token: me && me.token });
  el("play").disabled = el("watch").disabled = false;
  if (!answer.ok) return showProblem(answer, `POST ${page.base}games`);
  const grant = answer.data;
  const mine = watch ? null : me ? me.token : grant.token || null;
  if (mine) {
    store((d) => {
      // the player's token is the seat (the seat token is not kept); without a player, the seat token
      d.seats[`${page.game}/${grant.game.id}`] = me ? { player: me.id, seat: grant.seat, at: Date.now() }
        : { token: grant.token, seat: grant.seat, at: Date.now() };
      const kept = Object.entries(d.seats).sort((a, b) => (b[1].at || 0) - (a[1].at || 0)).slice(0, MAX_SEATS_KEPT);
      d.seats = Object.fromEntries(kept); // the newest tables' seats only
    });
  }
  history.replaceState(null, "", `#${page.game}/${grant.game.id}`);
  openTable(page.game, grant.game.id, mine, watch ? null : grant.seat, grant.game, !!me);
  myGamesSoon();
}

function openTable(game, id, token, seat, first = null, byPlayer = false) {
  if (page.table) page.table.stop();
  const table = new Table(game, page.games[game], id, token, seat);
  table.byPlayer = byPlayer;
  page.table = table;
  document.body.dataset.game = game;
  el("table").hidden = false;
  el("table").dataset.gameId = id;
  el("table").dataset.role = token ? "player" : "spectator";
  markTurn(table); // false until this table's listing is read (not the last table's turn)
  delete el("table").dataset.followed;
  el("log").replaceChildren();
  el("latest").textContent = "";
  el("board").replaceChildren();
  el("result").hidden = true;
  el("table-title").textContent = `${GAMES[game] ? GAMES[game].title : game}` + (token ? "" : " · watching the bots");
  el("game-id").textContent = `game ${id}`;
  drawSeat(table);
  drawMyGames();
  if (first) render(table, first, null);
  refresh(table, true).then(() => follow(table));
  el("table").scrollIntoView({ block: "start" });
}

// The long-poll: events are queued and shown one by one (pump); once the game is over, the events
// still unread are read without waiting before it stops.
async function follow(table) {
  while (table.live) {
    const over = table.view && table.view.status === "finished";
    const wait = over ? 0 : LONG_POLL_SECONDS;
    const answer = await call("GET", table.url(`/events?after=${table.after}&wait=${wait}`),
                              { token: table.token, signal: table.stopper.signal });
    if (!table.live) return;
    if (!answer.ok) {
      showProblem(answer, "Following the game");
      await sleep(RETRY_MS);
      continue;
    }
    table.queue.push(...answer.data.events);
    table.after = answer.data.last_seq;
    if (over && !answer.data.events.length) {
      table.live = false;
      await pump(table);
      el("table").dataset.followed = "true"; // every event is shown
      return;
    }
    if (answer.data.events.length) await pump(table); // shows them, then reads the table
    else await refresh(table, true); // nothing new for a while: show the table as it is
  }
}

function pace() {
  return SPEEDS[el("speed").value] ?? SPEEDS.normal;
}

function setSpeed(value) {
  if (SPEEDS[value] === undefined) return;
  el("speed").value = value;
  el("table-speed").value = value;
  store((d) => { d.speed = value; });
}

// Shows the queued events one at a time: those the table already shows (your own move's, or those
// read with the view) at once, the others `pace()` apart; then reads the table again, unless the
// table already shows every event's version with its listing (your own move's events after its
// answer's `next`: nothing to read).
function pump(table) {
  // cleared once it is over (`finally` runs after this assignment even when nothing was awaited)
  if (!table.pumping) table.pumping = showQueued(table).finally(() => { table.pumping = null; });
  return table.pumping;
}

async function showQueued(table) {
  let newest = -1;
  // a move of yours in flight: its answer first (its own events, brought by the long-poll as soon
  // as it is played, are then shown at once, and the table is not read for them)
  if (table.answering) await table.answering;
  while (table.queue.length && table === page.table) {
    const e = table.queue.shift();
    newest = Math.max(newest, e.version);
    const ms = e.version > table.version ? pace() : 0;
    if (ms) {
      el("table").dataset.pacing = "true";
      await sleep(ms);
    }
    logEvent(table, e);
  }
  delete el("table").dataset.pacing;
  const current = !!table.listing && table.listing.version === table.version && newest <= table.version;
  if (table === page.table && !current) await refresh(table);
}

function logEvent(table, e) {
  const g = GAMES[table.game];
  let text;
  try {
    text = g && g.describe ? g.describe(e, ctxOf(table)) : null;
  } catch (err) {
    text = null;
  }
  table.shown = Math.max(table.shown, e.version);
  // every event has its line; those not worth reading (text "") are hidden
  const li = h("li", { dataset: { type: e.type, seq: String(e.seq) }, hidden: text === "" }, text || genericLine(table, e));
  li.value = e.seq;
  const list = el("log");
  list.append(li);
  if (text !== "") el("latest").textContent = li.textContent; // the last thing that happened, over the table
  while (list.children.length > MAX_LOG) list.firstElementChild.remove();
  el("log-scroll").scrollTop = el("log-scroll").scrollHeight;
  if (g && g.onEvent) g.onEvent(e, ctxOf(table));
}

function genericLine(table, e) {
  const words = e.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const who = typeof (e.data || {}).seat === "number" ? `${seatName(table, e.data.seat)}: ` : "";
  return `${who}${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

// One refresh at a time per table: a refresh asked for while one runs makes it run once more, so
// the last thing shown is the view and, for a player, the listing of that same version. At a pace,
// a view newer than the events shown so far waits (unless `force`): the long-poll brings those
// events, they are shown one by one, and the table is read again after them, so the bots' moves
// are seen one at a time rather than the table jumping to their end.
function refresh(table, force = false) {
  table.force = table.force || force;
  if (table.refreshing) {
    table.again = true;
    return table.refreshing;
  }
  table.refreshing = (async () => {
    for (let round = 0; round < 20 && table === page.table; round += 1) {
      table.again = false;
      await refreshOnce(table);
      if (!table.again) break;
    }
  })().finally(() => { table.refreshing = null; });
  return table.refreshing;
}

async function refreshOnce(table) {
  const view = await call("GET", table.url(), { token: table.token, signal: table.stopper.signal });
  if (table !== page.table || !table.live && !view.ok) return;
  if (view.status === 401 && table.byPlayer && table.version < 0) { // no seat of yours there: watched
    table.token = null;
    table.seat = null;
    table.byPlayer = false;
    el("table").dataset.role = "spectator";
    drawSeat(table);
    table.again = true;
    return;
  }
  if (!view.ok) return showProblem(view, "Reading the table");
  if (table.token && view.data.you === null) { // a seat you left (a bot plays it): watched
    table.token = null;
    table.seat = null;
    table.byPlayer = false;
    el("table").dataset.role = "spectator";
    drawSeat(table);
  }
  const ahead = view.data.version > Math.max(table.shown, table.version);
  if (ahead && pace() > 0 && table.live && !table.force) return; // its events come first
  table.force = false;
  if (!table.token || view.data.status === "finished") {
    render(table, view.data, { actions: [], templates: [], version: view.data.version });
    return;
  }
  const listed = await call("GET", table.url("/actions"), { token: table.token, signal: table.stopper.signal });
  if (table !== page.table) return;
  if (!listed.ok) return showProblem(listed, "Reading your moves");
  if (listed.data.version === view.data.version) render(table, view.data, listed.data);
  else table.again = true; // the game moved between the two reads: read both again
}

// A move: posted as listed, with the listing's version as If-Match and a fresh Idempotency-Key.
// While it is in flight the table is inert (a double click plays once); a 412 (a bot moved first)
// is absorbed by reading the table again.
async function play(table, action) {
  if (table.busy || table !== page.table || !table.listing) return;
  table.busy = true;
  const started = performance.now();
  const board = el("board");
  board.inert = true;
  board.dataset.busy = "true";
  const version = table.listing.version;
  let answer;
  let next = null; // the listing the move's answer carries (one request a move)
  let answered = () => {};
  table.answering = new Promise((done) => { answered = done; }); // the events wait for the answer (pump)
  try {
    answer = await call("POST", table.url("/actions"), {
      token: table.token, body: action,
      headers: { "If-Match": `"${version}"`, "Idempotency-Key": idempotencyKey() },
    });
    if (answer.ok) {
      clearProblem();
      table.sel = {};
      const given = answer.data.next;
      next = given && given.version === answer.data.game.version ? given : null;
      render(table, answer.data.game, next);
    } else if (answer.status === 412) {
      note("Someone moved first: the table is up to date again, make your move.");
      table.sel = {};
      table.listing = null; // stale: no move is offered until the table is read again, at once
      markTurn(table);
      drawBoard(table);
    } else {
      showProblem(answer, "Your move was refused");
    }
    table.answering = null;
    answered();
    // the table stays inert a moment: a double click's second click lands on nothing, not on
    // the next move's button drawn in its place
    const left = DOUBLE_CLICK_MS - (performance.now() - started);
    if (left > 0) await sleep(left);
  } finally {
    table.answering = null;
    answered();
    table.busy = false;
    board.inert = false;
    delete board.dataset.busy;
  }
  // the answer's `next` is the listing of the version shown: nothing to read (the long-poll brings
  // this move's events, shown at once); else (null: you may not act now, or a newer version is
  // shown already) the table is read again
  if (next && table.listing === next && table.version === next.version) return;
  await refresh(table, answer.status === 412);
}

// ---- rendering --------------------------------------------------------------------------------------

function ctxOf(table) {
  return {
    table, view: table.view, state: table.view ? table.view.state : null, you: table.seat,
    listing: table.listing, actions: table.listing ? table.listing.actions : [],
    templates: table.listing ? table.listing.templates : [],
    sel: table.sel, ui: table.ui,
    name: (seat) => seatName(table, seat),
    play: (action) => play(table, action),
    rerender: () => drawBoard(table),
    myTurn: () => mayAct(table),
  };
}

// Whether the listing held for the version shown offers you a move.
function mayAct(table) {
  return !!table.listing && (table.listing.actions.length + table.listing.templates.length) > 0;
}

// `data-your-turn` (what the page's styles, the status line and the browser tests read), derived
// here only: true while the listing held offers a move and the game is not over; no listing held
// (none read yet, or a 412 dropped it) offers none. Returns whether it changed.
function markTurn(table) {
  const yourTurn = String(mayAct(table) && !!table.view && table.view.status !== "finished");
  const changed = el("table").dataset.yourTurn !== yourTurn;
  el("table").dataset.yourTurn = yourTurn;
  return changed;
}

function render(table, game, listing) {
  if (table !== page.table || game.version < table.version) return;
  const moved = game.version !== table.version;
  if (moved) table.sel = {};
  const before = table.listing;
  if (table.token && Number.isInteger(game.you) && game.you !== table.seat) { // the view says whose seat it is
    table.seat = game.you;
    drawSeat(table);
  }
  table.view = game;
  table.version = game.version;
  table.seats = game.seats;
  if (listing && listing.version === game.version) table.listing = listing;
  else if (moved) table.listing = null;
  el("table").dataset.version = String(game.version);
  el("table").dataset.status = game.status;
  if (markTurn(table) || (moved && game.status === "finished")) myGamesSoon();
  if (moved || (listing && !same(listing, before))) drawBoard(table);
  drawStatus(table);
  drawResult(table);
  el("raw-view").textContent = JSON.stringify(game.state, null, 1);
}

function drawStatus(table) {
  const game = table.view;
  let text;
  if (game.status === "finished") text = "The game is over.";
  else if (game.status !== "active") text = `Waiting (${game.status}).`;
  else if (el("table").dataset.yourTurn === "true") {
    text = game.to_act.includes(table.seat) ? "Your move." : "You may play out of turn.";
  }
  else if (table.seat === null) text = `${game.to_act.map((s) => seatName(table, s)).join(", ") || "Nobody"} to play.`;
  else if (!table.listing && game.to_act.includes(table.seat)) text = "…";
  else text = `Waiting for ${game.to_act.map((s) => seatName(table, s)).join(", ") || "the table"}.`;
  el("status").textContent = text;
  if (el("table").dataset.yourTurn === "true") note("");
}

function drawBoard(table) {
  const g = GAMES[table.game];
  const board = el("board");
  const ctx = ctxOf(table);
  const focused = document.activeElement && document.activeElement.id;
  board.replaceChildren(...(g ? [g.render(ctx)].flat() : [h("pre", {}, JSON.stringify(table.view.state, null, 1))]));
  board.dataset.version = String(table.version);
  if (focused) {
    const again = document.getElementById(focused);
    if (again && board.contains(again)) again.focus();
  }
  drawAdvanced(table);
}

function drawResult(table) {
  const game = table.view;
  const box = el("result");
  if (game.status !== "finished" || !game.result) {
    box.hidden = true;
    return;
  }
  const r = game.result;
  const g = GAMES[table.game];
  const winners = r.winners || [];
  const headline = winners.includes(table.seat) ? (winners.length > 1 ? "You share the win!" : "You win!")
    : winners.length ? `${winners.map((w) => seatName(table, w)).join(" and ")} ${winners.length > 1 ? "share the win" : "wins"}.`
      : "Nobody wins.";
  const extra = g && g.resultColumns ? g.resultColumns(ctxOf(table)) : [];
  const rows = game.seats.map((s) => h("tr", { class: winners.includes(s.seat) ? "winner" : "" },
    h("th", { scope: "row" }, seatName(table, s.seat)),
    h("td", {}, String(r.scores[s.seat])),
    ...extra.map((c) => h("td", {}, c.value(s.seat)))));
  box.replaceChildren(...[
    h("h3", { id: "result-title" }, "Game over"),
    h("p", { class: "headline" }, headline),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"),
        ...extra.map((c) => h("th", { scope: "col" }, c.title)))),
      h("tbody", {}, rows)),
    g && g.resultNotes ? g.resultNotes(ctxOf(table)) : null,
    h("button", { type: "button", onclick: () => { el("setup").scrollIntoView(); el("play").focus(); } }, "Play again"),
  ].filter(Boolean));
  box.hidden = false;
}

// The developers' fold: the listing as JSON, and any action typed and sent as JSON.
function drawAdvanced(table) {
  const listing = table.listing;
  el("raw-actions").textContent = listing ? JSON.stringify([...listing.actions, ...listing.templates.map((t) => ({ template: t }))], null, 1) : "";
  el("send").disabled = !table.token || table.view.status === "finished";
}

// ---- start ------------------------------------------------------------------------------------------

async function start() {
  el("new-table").addEventListener("submit", (e) => { e.preventDefault(); newTable(false); });
  el("watch").addEventListener("click", () => newTable(true));
  el("game").addEventListener("change", () => chooseGame(el("game").value));
  const speed = stored().speed;
  if (speed && SPEEDS[speed] !== undefined) el("speed").value = el("table-speed").value = speed;
  el("speed").addEventListener("change", () => setSpeed(el("speed").value));
  el("table-speed").addEventListener("change", () => setSpeed(el("table-speed").value));
  el("send").addEventListener("click", () => {
    const table = page.table;
    if (!table) return;
    let action;
    try {
      action = JSON.parse(el("custom").value);
    } catch (err) {
      return showProblem({ status: 0, data: { title: "Not JSON", detail: String(err) } }, "Send");
    }
    play(table, action);
  });
  el("forget").addEventListener("click", () => { el("forget-ask").hidden = false; el("forget-no").focus(); });
  el("forget-no").addEventListener("click", () => { el("forget-ask").hidden = true; el("forget").focus(); });
  el("forget-yes").addEventListener("click", () => { forgetPlayer(); el("player-name").focus(); });
  el("my-games-refresh").addEventListener("click", () => myGamesSoon());
  // coming back to the page (another tab, another window) reads "My games" again
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") myGamesSoon(); });
  window.addEventListener("focus", () => myGamesSoon());
  window.addEventListener("hashchange", () => openFromAddress());
  const answer = await call("GET", "/");
  if (!answer.ok || !answer.data || !answer.data.games) return showProblem(answer, "GET /");
  page.games = answer.data.games;
  page.players = (answer.data.services || {}).players || null; // "/players/" when mounted
  if (page.players) await checkPlayer();
  drawPlayer();
  const names = Object.keys(page.games).sort();
  el("game").replaceChildren(...names.map((n) => new Option(GAMES[n] ? GAMES[n].title : n, n)));
  const wanted = decodeURIComponent(location.hash.slice(1)).split("/")[0];
  el("game").value = names.includes(wanted) ? wanted : names[0];
  await chooseGame(el("game").value);
  openFromAddress(); // a reload: the same table, your seat in it
  document.body.dataset.ready = "true";
}

start();
