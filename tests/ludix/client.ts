// Ludix in the TypeScript client of the generated types (tests/clients/ts/play.ts, which plays
// a whole game of every registered game with its adapter from the game's test folder): the table a
// human creates, what it plays, what the events and the result say. Compiled beside play.ts and
// the types openapi-typescript generates from openapi/ludix.json (tests/clients/ts/gen/ludix.ts)
// by tests/clients/test_generators.py: no `any`, no cast, `tsc --strict`.

import createClient from "openapi-fetch";
import type { components, paths } from "../clients/ts/gen/ludix.js";
import { fail, pick, register } from "../clients/ts/play.js";

type S = components["schemas"];

register<S["LudixAction"], S["LudixGame"], S["LudixEvent"], S["LudixCreateGame"]>("ludix", (url) => ({
  client: createClient<paths>({ baseUrl: url }),
  create: { seats: ["human", "bot:steady"] },
  choose: (_game, actions) => pick(actions),
  told: (e) => (e.type === "DiceThrown" ? `seat ${e.data.seat} threw ${e.data.dice}`
    : e.type === "PointsBanked" ? `seat ${e.data.seat} banked ${e.data.points}` : ""),
  ending(game, events) {
    const r = game.result ?? fail("no result");
    return `totals ${r.summary.totals.join("/")}, ${r.summary.rounds} rounds, ${events} events`;
  },
}));
