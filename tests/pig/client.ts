// Pig in the TypeScript client of the generated types (tests/clients/ts/play.ts, which plays a
// whole game of every registered game with its adapter from the game's test folder): the table a
// human creates, what it plays, what the events and the result say. Compiled beside play.ts and
// the types openapi-typescript generates from openapi/pig.json (tests/clients/ts/gen/pig.ts) by
// tests/clients/test_generators.py: no `any`, no cast, `tsc --strict`. The smallest adapter: copy
// it for a new game.

import createClient from "openapi-fetch";
import type { components, paths } from "../clients/ts/gen/pig.js";
import { fail, pick, register } from "../clients/ts/play.js";

type S = components["schemas"];

register<S["PigAction"], S["PigGame"], S["PigEvent"], S["PigCreateGame"]>("pig", (url) => ({
  client: createClient<paths>({ baseUrl: url }),
  create: { seats: ["human", "bot:hold20"], options: { target: 50 } },
  choose: (_game, actions) => pick(actions),
  told: (e) => (e.type === "DieRolled" ? `seat ${e.data.seat} rolled ${e.data.die}`
    : e.type === "PointsBanked" ? `seat ${e.data.seat} banked ${e.data.points}` : ""),
  ending(game, events) {
    const r = game.result ?? fail("no result");
    return `scores ${r.summary.scores.join("/")} of ${r.summary.target}, seat ${r.summary.first_player} first, ${events} events`;
  },
}));
