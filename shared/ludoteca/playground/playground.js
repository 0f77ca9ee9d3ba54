/* The Ludoteca playground: one page of plain JavaScript (no build step), served by the front
 * door at "/" (see ludoteca.entrypoints.frontdoor). It uses the public API only, as any client would:
 *
 *   GET /                          the mounted games (JSON, asked for with Accept: application/json)
 *   GET /<game>/openapi.json       the seat kinds (bot levels), seat counts and options of POST /games
 *   POST /<game>/games             a table: "human" + bots, or bots only (a spectator watches)
 *   GET /<game>/games/{id}         the caller's view (the seat token's, or the public one)
 *   GET /<game>/games/{id}/actions the caller's legal actions, each posted back as it is listed
 *   POST /<game>/games/{id}/actions  with If-Match (the listing's version) and an Idempotency-Key
 *   GET /<game>/games/{id}/events?after=N&wait=S   the long-poll that drives every refresh
 *
 * Every request has a timeout; the seat token stays in this page's memory (never stored).
 */
"use strict";

const LONG_POLL_SECONDS = 25; // a long-poll's wait (the services cap it at 30 s)
const REQUEST_TIMEOUT_MS = 45000; // above the long-poll: no request hangs the page
const RETRY_MS = 1000; // after a failed long-poll (e.g. a 503 while Redis restarts)
const MAX_EVENTS_SHOWN = 400;

const el = (id) => document.getElementById(id);
const page = { games: {}, game: null, base: "", setup: null, table: null };

// ---- HTTP ---------------------------------------------------------------------------------------

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

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ---- problems (RFC 9457) ------------------------------------------------------------------------

function showProblem(answer, what) {
  const p = answer.data || {};
  const box = el("problem");
  let text = `${what}: ${answer.status || ""} ${p.title || "Error"}${p.detail ? ": " + p.detail : ""}`;
  if (Array.isArray(p.legal)) text += ` (legal now: ${p.legal.map(label).join("; ") || "nothing"})`;
  box.textContent = text.replace(/\s+/g, " ");
  box.dataset.status = String(answer.status);
  box.hidden = false;
}

function clearProblem() {
  el("problem").hidden = true;
  el("problem").textContent = "";
}

// ---- the game's document: what POST /games accepts ---------------------------------------------

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
  const answer = await call("GET", `${page.base}openapi.json`);
  if (!answer.ok) return showProblem(answer, `GET ${page.base}openapi.json`);
  const setup = setupOf(answer.data);
  page.setup = setup;
  const seats = el("seats");
  seats.min = setup.min;
  seats.max = setup.max;
  seats.value = setup.min;
  const level = el("level");
  level.replaceChildren(...setup.levels.map((l) => new Option(l, l)));
  level.value = setup.levels.includes("basic") ? "basic" : setup.levels[Math.min(1, setup.levels.length - 1)];
  el("options").value = "{}";
  const help = Object.entries(setup.options).map(([key, prop]) => {
    const p = resolve(answer.data, prop);
    return `${key} (default ${JSON.stringify(p.default)})${p.description ? ": " + p.description : ""}`;
  });
  el("options-help").textContent = help.length ? "Options: " + help.join(" · ") : "This game has no options.";
  document.body.dataset.game = name;
}

// ---- a table ------------------------------------------------------------------------------------

class Table {
  constructor(game, base, grant) {
    this.game = game;
    this.base = base;
    this.id = grant.game.id;
    this.token = grant.token; // null for a spectator (bots only)
    this.version = -1;
    this.status = grant.game.status;
    this.after = 0;
    this.live = true;
    this.busy = false;
    this.refreshing = null; // the refresh running, if any (see refresh)
    this.again = false;
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

async function newTable(watch) {
  clearProblem();
  if (page.table) page.table.stop();
  page.table = null;
  let options;
  try {
    options = JSON.parse(el("options").value || "{}");
  } catch (err) {
    return showProblem({ status: 0, data: { title: "Options are not JSON", detail: String(err) } }, "New table");
  }
  const n = Number(el("seats").value);
  const bot = `bot:${el("level").value}`;
  const seats = watch ? Array(n).fill(bot) : ["human", ...Array(Math.max(n - 1, 0)).fill(bot)];
  const answer = await call("POST", `${page.base}games`, { body: { seats, options } });
  if (!answer.ok) return showProblem(answer, `POST ${page.base}games`);
  const table = new Table(page.game, page.base, answer.data);
  page.table = table;
  el("table").hidden = false;
  el("table").dataset.gameId = table.id;
  delete el("table").dataset.followed;
  el("events").replaceChildren();
  el("table-title").textContent = `${table.game} · game ${table.id}` + (watch ? " · bots only" : "");
  el("view-who").textContent = watch ? "(a spectator's)" : `(seat ${answer.data.seat}'s)`;
  el("moves").hidden = watch;
  render(table, answer.data.game);
  await refresh(table);
  follow(table);
}

// The long-poll drives the page: each answer (events, or none after LONG_POLL_SECONDS) is followed
// by a refresh of the view and the listing. Once the view says the game is over, the events still
// unread are read (without waiting) before it stops.
async function follow(table) {
  while (table.live) {
    const over = table.status === "finished";
    const wait = over ? 0 : LONG_POLL_SECONDS;
    const answer = await call("GET", table.url(`/events?after=${table.after}&wait=${wait}`),
                              { token: table.token, signal: table.stopper.signal });
    if (!table.live) return;
    if (!answer.ok) {
      showProblem(answer, "GET .../events");
      await sleep(RETRY_MS);
      continue;
    }
    addEvents(answer.data.events);
    table.after = answer.data.last_seq;
    if (over && !answer.data.events.length) {
      table.live = false;
      el("table").dataset.followed = "true"; // every event is shown
      return;
    }
    await refresh(table);
  }
}

// One refresh at a time per table: a refresh asked for while one runs makes it run once more,
// so the last thing shown is always the view and, for a player, the listing of that same version.
function refresh(table) {
  if (table.refreshing) {
    table.again = true;
    return table.refreshing;
  }
  table.refreshing = (async () => {
    try {
      for (let round = 0; round < 20 && table === page.table; round += 1) {
        table.again = false;
        await refreshOnce(table);
        if (!table.again) break;
      }
    } finally {
      table.refreshing = null;
    }
  })();
  return table.refreshing;
}

async function refreshOnce(table) {
  const view = await call("GET", table.url(), { token: table.token, signal: table.stopper.signal });
  if (table !== page.table) return;
  if (!view.ok) return showProblem(view, "GET /games/{id}");
  render(table, view.data);
  if (!table.token || table.status === "finished") return;
  const listed = await call("GET", table.url("/actions"), { token: table.token, signal: table.stopper.signal });
  if (table !== page.table) return;
  if (!listed.ok) return showProblem(listed, "GET /games/{id}/actions");
  if (listed.data.version === table.version) renderActions(table, listed.data);
  else table.again = true; // the game moved between the two reads: read both again
}

async function play(table, action, version) {
  if (table.busy || table !== page.table) return;
  table.busy = true;
  for (const b of el("moves").querySelectorAll("button")) b.disabled = true;
  const answer = await call("POST", table.url("/actions"), {
    token: table.token, body: action,
    headers: { "If-Match": `"${version}"`, "Idempotency-Key": idempotencyKey() },
  });
  table.busy = false;
  if (answer.ok) {
    clearProblem();
    render(table, answer.data.game);
  } else {
    showProblem(answer, `POST ${label(action)}`); // 409: not legal (the legal ones listed), 412: stale
  }
  await refresh(table);
}

// ---- rendering ----------------------------------------------------------------------------------

function label(action) {
  if (!action || typeof action !== "object") return JSON.stringify(action);
  const rest = Object.entries(action).filter(([k]) => k !== "type")
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
  return [action.type, ...rest].join(" ");
}

function render(table, game) {
  if (table !== page.table || game.version < table.version) return;
  if (game.version > table.version && table.token) { // the listing shown is now stale
    for (const b of el("moves").querySelectorAll("#actions button, #templates button")) b.disabled = true;
    el("moves-note").textContent = `Version ${game.version}: asking for your legal actions…`;
  }
  table.version = game.version;
  table.status = game.status;
  const summary = el("summary");
  const toAct = game.to_act.length ? `seat ${game.to_act.join(", ")} to act` : "nobody to act";
  const you = game.you === null || game.you === undefined ? "you watch" : `you are seat ${game.you}`
    + (!game.to_act.includes(game.you) && (game.may_act || []).includes(game.you) ? " (you may act out of turn)" : "");
  summary.textContent = `${game.status} · version ${game.version} · ${toAct} · ${you}`;
  summary.dataset.status = game.status;
  summary.dataset.version = String(game.version);
  el("seat-list").replaceChildren(...game.seats.map((s) => {
    const li = document.createElement("li");
    const who = s.kind === "bot" ? `bot (${s.level})` : `human${s.name ? ` "${s.name}"` : ""}`;
    li.textContent = `seat ${s.seat}: ${who}${s.seat === game.you ? " (you)" : ""}`
      + (game.to_act.includes(s.seat) ? " · to act" : "");
    return li;
  }));
  const result = el("result");
  result.hidden = game.status !== "finished" || !game.result;
  if (game.result) {
    const winners = (game.result.winners || []).map((w) => `seat ${w}`).join(", ");
    result.textContent = `Finished: won by ${winners || "nobody"} · scores ${JSON.stringify(game.result.scores)}`;
  }
  el("view").textContent = JSON.stringify(game.state, null, 2);
  if (game.status === "finished") renderActions(table, { actions: [], templates: [], version: game.version });
}

function renderActions(table, listed) {
  if (table !== page.table || table.busy) return;
  const version = listed.version;
  el("moves").dataset.version = String(version);
  const note = el("moves-note");
  if (table.status === "finished") note.textContent = "The game is over.";
  else if (!listed.actions.length && !listed.templates.length) note.textContent = "Nothing to do now: the bots play through the worker.";
  else note.textContent = `At version ${version}: click one to play it.`;
  el("actions").replaceChildren(...listed.actions.map((action) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "action";
    b.textContent = label(action);
    b.dataset.version = String(version);
    b.dataset.action = JSON.stringify(action);
    b.addEventListener("click", () => play(table, action, version));
    return b;
  }));
  el("templates").replaceChildren(...listed.templates.map((template) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "template";
    b.textContent = `fill in: ${label(template)}`;
    b.dataset.version = String(version);
    b.addEventListener("click", () => {
      el("custom").value = JSON.stringify(template, null, 1);
      el("custom-box").open = true;
      el("custom").focus();
    });
    return b;
  }));
  el("send").dataset.version = String(version);
  el("send").disabled = table.status === "finished";
}

function addEvents(events) {
  const list = el("events");
  for (const e of events) {
    const li = document.createElement("li");
    li.value = e.seq;
    li.dataset.type = e.type;
    li.textContent = `${e.type} ${JSON.stringify(e.data)}`;
    list.append(li);
  }
  while (list.children.length > MAX_EVENTS_SHOWN) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

// ---- start --------------------------------------------------------------------------------------

async function start() {
  el("new-table").addEventListener("submit", (e) => { e.preventDefault(); newTable(false); });
  el("watch").addEventListener("click", () => newTable(true));
  el("game").addEventListener("change", () => chooseGame(el("game").value));
  el("send").addEventListener("click", () => {
    const table = page.table;
    if (!table) return;
    let action;
    try {
      action = JSON.parse(el("custom").value);
    } catch (err) {
      return showProblem({ status: 0, data: { title: "Not JSON", detail: String(err) } }, "Send");
    }
    play(table, action, Number(el("send").dataset.version || table.version));
  });
  const answer = await call("GET", "/");
  if (!answer.ok || !answer.data || !answer.data.games) return showProblem(answer, "GET /");
  page.games = answer.data.games;
  const names = Object.keys(page.games).sort();
  el("game").replaceChildren(...names.map((n) => new Option(n, n)));
  const wanted = decodeURIComponent(location.hash.slice(1));
  el("game").value = names.includes(wanted) ? wanted : names[0];
  await chooseGame(el("game").value);
  document.body.dataset.ready = "true";
}

start();
