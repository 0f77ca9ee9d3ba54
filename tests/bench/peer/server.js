// boardgame.io's server for Pig as it serves by default: in-memory storage, socket.io transport, the
// lobby API on the same port. Usage: node server.js PORT
const { Server, Origins } = require("boardgame.io/server");
const { Pig } = require("./pig");

const port = Number(process.argv[2] || 8100);
const server = Server({ games: [Pig], origins: [Origins.LOCALHOST] });
server.run(port, () => console.log(`boardgame.io pig server on ${port}`));
