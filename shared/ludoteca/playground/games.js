/* The shared pieces of the playground's tables (used by playground.js): the registry of the tables
 * and the helpers they draw with. Each game's table is its own file, in the game's package
 * (services/<folder>/<package>/playground.js); `make generate` gathers the installed games' files
 * into tables.js (loaded after this file), where each registers itself:
 *
 *   Playground.register("<game>", { title, blurb, seats, level, render(ctx), describe(event, ctx),
 *                                   onEvent(event, ctx), resultColumns(ctx), resultNotes(ctx) })
 *
 * A table draws its game's view, builds a move by clicking (only from the listed legal actions: a
 * button exists, enabled, only when the action it posts is in GET .../actions), says how an event
 * reads in the log, and adds the result screen's columns. A game without a table is still offered:
 * its view as JSON and the JSON action box.
 *
 * `ctx` (playground.js, ctxOf): view, state, you, actions, templates, sel (the clicks towards the
 * next move, cleared by a new version), ui (kept for the table), name(seat), play(action), rerender().
 */
"use strict";

// ---- the tables, by game name -------------------------------------------------------------------------

const GAMES = {};

const Playground = {
  // `name`: the game's registry name (its entry point's); a second table for one name is refused
  register(name, table) {
    if (Object.hasOwn(GAMES, name)) {
      console.error(`playground: a second table for ${name} is ignored`);
      return;
    }
    GAMES[name] = table;
  },
};

// ---- shared pieces -----------------------------------------------------------------------------------

function cardFace(code, deck) {
  return deck === "spanish" ? Cards.spanish(code) : Cards.french(code);
}

// A card: a toggle button when `onclick` is given, else an image with its name.
function card(code, deck, { onclick = null, pressed = null, cls = "", badge = null, label = null } = {}) {
  const name = label || Cards.name(code, deck);
  const face = code ? cardFace(code, deck) : Cards.back();
  const inner = [face, badge ? h("span", { class: "badge" }, badge) : null];
  if (onclick) {
    return h("button", {
      type: "button", class: `card-btn ${cls}`, "aria-label": name, "aria-pressed": pressed === null ? null : String(pressed),
      dataset: { card: code }, onclick,
    }, inner);
  }
  return h("span", { class: `card-img ${cls}`, role: "img", "aria-label": code ? name : (label || "a card face down"), dataset: code ? { card: code } : {} }, inner);
}

function backs(n, label) {
  return h("span", { class: "card-img small", role: "img", "aria-label": label }, Cards.back(), h("span", { class: "badge" }, String(n)));
}

// A move button: enabled only for a listed action (`action` null: shown disabled, or not at all).
function move(ctx, label, action, { cls = "", hideIfNone = false, id = null } = {}) {
  if (!action && hideIfNone) return null;
  return h("button", {
    type: "button", class: `move ${cls}`, disabled: !action, id,
    dataset: action ? { move: JSON.stringify(action) } : {},
    onclick: () => action && ctx.play(action),
  }, label);
}

const listed = (ctx, pred) => ctx.actions.find(pred) || null;
const template = (ctx, type) => ctx.templates.find((t) => t.type === type) || null;

// The body a compact listing's template stands for (a template with a `domain`: Speculation's joker
// guesses), its domain's field filled with `value` when the domain allows it (`size` whole numbers
// from `min` to `max`, none more than `max_repeats` times); else null.
function fromDomain(ctx, type, value) {
  const t = ctx.templates.find((x) => x.type === type && x.domain);
  if (!t || !Array.isArray(value)) return null;
  const d = t.domain;
  if (value.length !== d.size) return null;
  const counts = new Map();
  for (const v of value) {
    if (!Number.isInteger(v) || v < d.min || v > d.max) return null;
    counts.set(v, (counts.get(v) || 0) + 1);
    if (counts.get(v) > d.max_repeats) return null;
  }
  return { type, [d.field]: value };
}
const who = (ctx, seat) => ctx.name(seat);
const verb = (ctx, seat, you, other) => (seat === ctx.you ? you : other);
const seatOf = (ctx, seat) => (seat === ctx.you ? "your" : `${ctx.name(seat)}'s`);

function panel(title, cls, ...children) {
  const id = `p-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return h("section", { class: `panel ${cls}`, "aria-labelledby": id }, h("h3", { id }, title), ...children);
}

function seatsWord(n) {
  return n === 1 ? "1 card" : `${n} cards`;
}
