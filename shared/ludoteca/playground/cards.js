/* The playground's cards and dice, drawn as inline SVG by this script (no image is fetched: the
 * page's Content-Security-Policy allows none but its own files, and needs none).
 *
 *   Cards.french("QC")      a French card: Ludic (10C, JD...) and Speculation (AC, 10S, JK1...)
 *   Cards.spanish("11E")    a Spanish card of Ludor: oros, copas, espadas, bastos, the jokers
 *                           (JK1, JK2), the Autoplim and the 2 de Oros (2O)
 *   Cards.back()            a card face down
 *   Cards.die("X")          one of Ludix's four dice (faces L, X, X, V, I, I)
 *   Cards.pips(4)           a six-sided die showing 1 to 6 pips (Pig's; null: not thrown yet)
 *   Cards.name(code, deck)  the card in words, for screen readers and the log ("queen of clubs")
 *
 * Each returns an <svg> element (aria-hidden: the element that holds it carries the name).
 */
"use strict";

const Cards = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs = {}, children = []) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    for (const child of children) node.append(child);
    return node;
  }

  function text(x, y, content, attrs = {}) {
    const t = svg("text", { x, y, "text-anchor": "middle", ...attrs });
    t.textContent = content;
    return t;
  }

  function frame(cls, children, fill = "#fffdf7") {
    const root = svg("svg", { viewBox: "0 0 60 84", class: `card ${cls}`, "aria-hidden": "true", focusable: "false" });
    root.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, fill, stroke: "#5b5b5b", "stroke-width": 1 }));
    for (const child of children) root.append(child);
    return root;
  }

  // ---- French suits (paths centred on 0,0, about 20 units tall) --------------------------------
  const FRENCH_SUITS = {
    H: { name: "hearts", color: "#b3141f", path: "M0,9 C-14,-1 -10,-13 0,-5 C10,-13 14,-1 0,9 Z" },
    D: { name: "diamonds", color: "#b3141f", path: "M0,-10 L8,0 L0,10 L-8,0 Z" },
    S: { name: "spades", color: "#161616", path: "M0,-10 C-13,1 -8,11 -1,4 L-4,10 L4,10 L1,4 C8,11 13,1 0,-10 Z" },
    C: { name: "clubs", color: "#161616", path: "M0,-10 A4.6,4.6 0 1 1 0,-0.8 A4.6,4.6 0 1 1 -5,6 L-1,2 L-4,10 L4,10 L1,2 L5,6 A4.6,4.6 0 1 1 0,-0.8 A4.6,4.6 0 1 1 0,-10 Z" },
  };
  const FRENCH_RANKS = { A: "ace", J: "jack", Q: "queen", K: "king", T: "10" };

  function frenchSuit(suit, x, y, scale) {
    const s = FRENCH_SUITS[suit];
    return svg("path", { d: s.path, fill: s.color, transform: `translate(${x} ${y}) scale(${scale})` });
  }

  function parseFrench(code) {
    if (code === "JK1" || code === "JK2") return { joker: true, color: code === "JK1" ? "black" : "red" };
    const suit = code.slice(-1);
    let rank = code.slice(0, -1);
    if (rank === "T") rank = "10";
    return { rank, suit };
  }

  function french(code) {
    const c = parseFrench(code);
    if (c.joker) {
      const color = c.color === "red" ? "#b3141f" : "#161616";
      return frame("french joker", [
        text(30, 16, "JOKER", { "font-size": 10, "font-weight": 700, fill: color, "font-family": "DejaVu Sans, sans-serif" }),
        svg("path", { d: "M30,28 L35,40 L48,40 L38,48 L42,61 L30,53 L18,61 L22,48 L12,40 L25,40 Z", fill: color }),
        text(30, 76, c.color, { "font-size": 8, fill: color, "font-family": "DejaVu Sans, sans-serif" }),
      ]);
    }
    const color = FRENCH_SUITS[c.suit].color;
    const font = { "font-family": "DejaVu Serif, serif", "font-weight": 700, fill: color };
    const parts = [
      text(11, 16, c.rank, { "font-size": c.rank === "10" ? 11 : 13, ...font }),
      frenchSuit(c.suit, 11, 25, 0.45),
      text(49, 76, c.rank, { "font-size": c.rank === "10" ? 11 : 13, ...font, transform: "rotate(180 49 72)" }),
    ];
    if ("JQK".includes(c.rank)) {
      parts.push(svg("rect", { x: 16, y: 18, width: 28, height: 48, rx: 3, fill: "#f3e6c4", stroke: color, "stroke-width": 1 }));
      parts.push(text(30, 48, c.rank, { "font-size": 24, ...font }));
      parts.push(frenchSuit(c.suit, 30, 58, 0.35));
    } else {
      parts.push(frenchSuit(c.suit, 30, 44, 1.1));
    }
    return frame(`french suit-${c.suit}`, parts);
  }

  function frenchName(code) {
    const c = parseFrench(code);
    if (c.joker) return `${c.color} joker`;
    return `${FRENCH_RANKS[c.rank] || c.rank} of ${FRENCH_SUITS[c.suit].name}`;
  }

  // ---- Spanish suits ----------------------------------------------------------------------------
  const SPANISH_SUITS = {
    O: { name: "oros", color: "#8a5a00" },
    C: { name: "copas", color: "#a3161f" },
    E: { name: "espadas", color: "#1f4f96" },
    B: { name: "bastos", color: "#2f6b1f" },
  };
  const SPANISH_RANKS = { 1: "As", 10: "Sota", 11: "Caballo", 12: "Rey" };

  function spanishSuit(suit, x, y, scale) {
    const g = svg("g", { transform: `translate(${x} ${y}) scale(${scale})` });
    if (suit === "O") { // a gold coin
      g.append(svg("circle", { r: 10, fill: "#e2b33b", stroke: "#8a5a00", "stroke-width": 2 }));
      g.append(svg("circle", { r: 5, fill: "none", stroke: "#8a5a00", "stroke-width": 1.5 }));
    } else if (suit === "C") { // a cup
      g.append(svg("path", { d: "M-9,-10 L9,-10 C9,0 4,3 1.5,3 L1.5,7 L6,10 L-6,10 L-1.5,7 L-1.5,3 C-4,3 -9,0 -9,-10 Z", fill: "#c8323b", stroke: "#6d0d12", "stroke-width": 1.2 }));
    } else if (suit === "E") { // a sword
      g.append(svg("path", { d: "M0,-12 L2.5,-8 L2.5,5 L-2.5,5 L-2.5,-8 Z", fill: "#9db4d8", stroke: "#1f4f96", "stroke-width": 1.2 }));
      g.append(svg("rect", { x: -7, y: 5, width: 14, height: 2.5, fill: "#1f4f96" }));
      g.append(svg("rect", { x: -1.5, y: 7.5, width: 3, height: 5, fill: "#7a4a1a" }));
    } else { // a club (basto)
      g.append(svg("path", { d: "M-3,12 L-4,-6 C-5,-12 5,-13 5,-7 L3,12 Z", fill: "#4f8a2f", stroke: "#2f4f1a", "stroke-width": 1.2 }));
      g.append(svg("circle", { cx: -1, cy: -3, r: 1.3, fill: "#2f4f1a" }));
      g.append(svg("circle", { cx: 1, cy: 4, r: 1.3, fill: "#2f4f1a" }));
    }
    return g;
  }

  function parseSpanish(code) {
    if (code === "Autoplim") return { autoplim: true };
    if (code === "JK1" || code === "JK2") return { joker: true, n: code.slice(2) };
    return { rank: code.slice(0, -1), suit: code.slice(-1) };
  }

  function spanish(code) {
    const c = parseSpanish(code);
    const sans = { "font-family": "DejaVu Sans, sans-serif", "font-weight": 700 };
    if (c.autoplim) {
      return frame("spanish autoplim", [
        svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4, fill: "#4b1f73" }),
        text(30, 30, "AUTO", { "font-size": 11, fill: "#ffe680", ...sans }),
        text(30, 46, "PLIM", { "font-size": 13, fill: "#ffe680", ...sans }),
        svg("path", { d: "M30,52 L34,60 L43,60 L36,65 L39,74 L30,68 L21,74 L24,65 L17,60 L26,60 Z", fill: "#ffe680" }),
      ]);
    }
    if (c.joker) {
      return frame("spanish joker", [
        text(30, 17, "JOKER", { "font-size": 10, fill: "#4b1f73", ...sans }),
        svg("circle", { cx: 30, cy: 44, r: 15, fill: "#f3d9ff", stroke: "#4b1f73", "stroke-width": 1.5 }),
        text(30, 50, "☺", { "font-size": 18, fill: "#4b1f73", ...sans }),
        text(30, 76, `comodín ${c.n}`, { "font-size": 7, fill: "#4b1f73", ...sans }),
      ]);
    }
    const color = SPANISH_SUITS[c.suit].color;
    const two = code === "2O";
    const parts = [
      text(10, 16, c.rank, { "font-size": 12, fill: color, ...sans }),
      text(50, 78, c.rank, { "font-size": 12, fill: color, ...sans }),
    ];
    if (SPANISH_RANKS[c.rank] && c.rank !== "1") {
      parts.push(text(30, 20, SPANISH_RANKS[c.rank], { "font-size": 8, fill: color, ...sans }));
      parts.push(svg("rect", { x: 15, y: 25, width: 30, height: 36, rx: 3, fill: "#f6ecd2", stroke: color }));
      parts.push(spanishSuit(c.suit, 30, 43, 1.1));
    } else {
      parts.push(spanishSuit(c.suit, 30, 42, c.rank === "1" ? 1.6 : 1.2));
    }
    if (two) parts.push(text(30, 71, "2 de Oros", { "font-size": 7, fill: "#8a5a00", ...sans }));
    const root = frame(`spanish suit-${c.suit}${two ? " two-of-oros" : ""}`, parts, two ? "#fff4cf" : "#fffdf7");
    if (two) root.append(svg("rect", { x: 3, y: 3, width: 54, height: 78, rx: 4, fill: "none", stroke: "#c99a12", "stroke-width": 2 }));
    return root;
  }

  function spanishName(code) {
    const c = parseSpanish(code);
    if (c.autoplim) return "the Autoplim";
    if (c.joker) return `joker ${c.n}`;
    if (code === "2O") return "the 2 de Oros";
    return `${SPANISH_RANKS[c.rank] || c.rank} de ${SPANISH_SUITS[c.suit].name}`;
  }

  function back(cls = "") {
    const root = svg("svg", { viewBox: "0 0 60 84", class: `card back ${cls}`, "aria-hidden": "true", focusable: "false" });
    root.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, fill: "#24476b", stroke: "#12263b" }));
    root.append(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, fill: "none", stroke: "#8fb3d9", "stroke-width": 1.5, "stroke-dasharray": "3 2" }));
    return root;
  }

  // ---- Ludix's dice -----------------------------------------------------------------------------
  const DIE_VALUE = { L: 50, X: 10, V: 5, I: 1 };

  function die(face) {
    const root = svg("svg", { viewBox: "0 0 60 60", class: `die face-${face || "blank"}`, "aria-hidden": "true", focusable: "false" });
    root.append(svg("rect", { x: 2, y: 2, width: 56, height: 56, rx: 10, fill: "#fbf6e9", stroke: "#6b5a3a", "stroke-width": 2 }));
    if (face) {
      root.append(text(30, 43, face, { "font-size": 34, "font-family": "DejaVu Serif, serif", "font-weight": 700, fill: "#7a1010" }));
    } else {
      root.append(text(30, 40, "?", { "font-size": 26, "font-family": "DejaVu Sans, sans-serif", fill: "#9a8a6a" }));
    }
    return root;
  }

  // ---- a six-sided die with pips (Pig) ------------------------------------------------------------
  const PIPS = { 1: [[30, 30]], 2: [[18, 18], [42, 42]], 3: [[16, 16], [30, 30], [44, 44]],
    4: [[18, 18], [42, 18], [18, 42], [42, 42]], 5: [[17, 17], [43, 17], [30, 30], [17, 43], [43, 43]],
    6: [[18, 15], [42, 15], [18, 30], [42, 30], [18, 45], [42, 45]] };

  function pips(face) {
    const root = svg("svg", { viewBox: "0 0 60 60", class: `die pips-${face || "blank"}`, "aria-hidden": "true", focusable: "false" });
    root.append(svg("rect", { x: 2, y: 2, width: 56, height: 56, rx: 10, fill: "#fbf6e9", stroke: "#6b5a3a", "stroke-width": 2 }));
    if (!PIPS[face]) root.append(text(30, 40, "?", { "font-size": 26, "font-family": "DejaVu Sans, sans-serif", fill: "#9a8a6a" }));
    for (const [cx, cy] of PIPS[face] || []) root.append(svg("circle", { cx, cy, r: 5.5, fill: face === 1 ? "#7a1010" : "#1b1b1b" }));
    return root;
  }

  return {
    french, spanish, back, die, pips, DIE_VALUE,
    name: (code, deck) => (deck === "spanish" ? spanishName(code) : frenchName(code)),
  };
})();
