// Speculation in the TypeScript client of the generated types (tests/clients/ts/play.ts, which plays
// a whole game of every registered game with its adapter from the game's test folder): the table a
// human creates, what it plays, what the events and the result say. Compiled beside play.ts and
// the types openapi-typescript generates from openapi/speculation.json (tests/clients/ts/gen/speculation.ts)
// by tests/clients/test_generators.py: no `any`, no cast, `tsc --strict`.
// At the joker the listing is compact (one guess_joker template with its domain): the human fills it.

import createClient from "openapi-fetch";
import type { components, paths } from "../clients/ts/gen/speculation.js";
import { fail, pick, register } from "../clients/ts/play.js";

type S = components["schemas"];

register<S["SpeculationAction"], S["SpeculationGame"], S["SpeculationEvent"], S["SpeculationCreateGame"]>("speculation", (url) => ({
  client: createClient<paths>({ baseUrl: url }),
  create: { seats: ["human", "bot:basic"] },
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
  told: (e) => (e.type === "ValueGuessed" ? `seat ${e.data.seat}: ${e.data.tier} ${e.data.value}? ${e.data.answer}`
    : e.type === "JokerGuessed" ? `seat ${e.data.seat}: joker ${e.data.values.join(",")}, ${e.data.right} right` : ""),
  ending(game, events) {
    const r = game.result ?? fail("no result");
    return `winner ${r.summary.winner ?? "shared"}, tier guesses ${r.summary.tier_guesses.join("/")}, ${events} events`;
  },
}));
