// The board page: reads the position from the form (or the URL), asks
// the JSON API, and draws what it answers. Every figure comes from the
// server; this script only lays it out.
"use strict";

const $ = (id) => document.getElementById(id);
const pct = (x) => (100 * x).toFixed(2);
const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

let current = null; // {position, dice, ply, cubeless}: what the page shows
let shownBoard = null; // the board arrays of the position shown (show --json's)
let running = null; // the AbortController of a running rollout

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "" && v !== false) q.set(k, v === true ? "1" : v);
  }
  return q.toString();
}

async function api(path, params, method) {
  if (path.endsWith("board.svg") && $("home-left").checked) params = {...params, home: "left"};
  const response = await fetch(`/api/${path}?${query(params)}`, {method: method || "GET"});
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try { message = JSON.parse(text).error; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return path.endsWith(".svg") ? text : JSON.parse(text);
}

async function drawBoard(play) {
  const svg = await api("board.svg", {position: current.position, dice: current.dice, play, flip: $("flip").checked});
  $("board").innerHTML = svg;
  $("showing").hidden = !play;
  $("showing-text").textContent = play ? `After ${play}.` : "";
  for (const tr of document.querySelectorAll("tr.play")) {
    tr.classList.toggle("shown", tr.dataset.move === play);
  }
}

function scoreText(shown) {
  const m = shown.match;
  const owner = {centre: "centred", on_roll: "owned by the player on roll", opponent: "owned by the opponent"}[shown.cube.owner];
  const cube = m.crawford ? "no cube (Crawford game)" : `cube ${shown.cube.value}, ${owner}`;
  if (m.length === 0) return `money game; ${cube}`;
  return `${m.score.on_roll} (on roll) - ${m.score.opponent} in a ${m.length}-point match; ${cube}`;
}

function drawIds(shown) {
  shownBoard = shown.board;
  const ids = $("ids");
  ids.innerHTML = "";
  const rows = [
    ["Position ID", shown.position_id], ["Match ID", shown.match_id], ["XGID", shown.xgid],
    ["Pips", `${shown.pips.on_roll} (on roll) - ${shown.pips.opponent}`],
    ["Score", scoreText(shown)],
  ];
  for (const [k, v] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    ids.append(dt, dd);
  }
}

function cell(row, text, header) {
  const c = document.createElement(header ? "th" : "td");
  c.textContent = text;
  row.append(c);
  return c;
}

function table(headings) {
  const t = document.createElement("table");
  const head = t.createTHead().insertRow();
  for (const h of headings) cell(head, h, true);
  return t;
}

function playsTable(answer) {
  const match = answer.moves.some((m) => m.mwc !== undefined);
  const heads = ["#", "play", "ply", "win", "g", "bg", "lose g", "bg", `${answer.equity} ${match ? "EMG" : "equity"}`];
  if (match) heads.push("MWC");
  heads.push("loss");
  const t = table(heads);
  const best = answer.moves[0] ? answer.moves[0].equity : 0;
  answer.moves.forEach((m, i) => {
    const tr = t.insertRow();
    tr.className = "play";
    tr.tabIndex = 0;
    tr.dataset.move = m.move;
    cell(tr, i + 1);
    cell(tr, m.move);
    cell(tr, m.ply);
    for (const p of m.probs) cell(tr, pct(p));
    cell(tr, signed(m.equity));
    if (match) cell(tr, pct(m.mwc) + "%");
    cell(tr, i === 0 ? "" : (m.equity - best).toFixed(3));
    const show = () => drawBoard(m.move).catch((e) => showError(e.message));
    tr.addEventListener("click", show);
    tr.addEventListener("keydown", (e) => { if (e.key === "Enter") show(); });
  });
  return t;
}

function cubeTable(answer) {
  const div = document.createElement("div");
  div.className = "cube";
  const t = table(["cube action", answer.match_play ? "EMG" : "equity"]);
  for (const [name, key] of [["No double", "no_double"], ["Double, take", "double_take"], ["Double, pass", "double_pass"]]) {
    const tr = t.insertRow();
    cell(tr, name);
    cell(tr, signed(answer[key]));
  }
  const verdict = document.createElement("p");
  verdict.className = "verdict";
  verdict.textContent = `Proper cube action: ${answer.action}`;
  const p = answer.probs;
  const chances = document.createElement("p");
  chances.className = "note";
  chances.textContent = `${answer.ply}-ply, cubeless chances: win ${pct(p[0])}% (g ${pct(p[1])}, bg ${pct(p[2])}), lose g ${pct(p[3])}, bg ${pct(p[4])}; take point ${pct(answer.take_point)}%, cash point ${pct(answer.cash_point)}%`;
  div.append(verdict, t, chances);
  return div;
}

function showAnswer(answer) {
  const result = $("result");
  result.innerHTML = "";
  if (answer.moves) {
    const h = document.createElement("h2");
    h.textContent = `Plays of ${answer.dice}`;
    result.append(h, playsTable(answer));
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = "Click a play to see the board after it.";
    result.append(note);
  } else {
    const h = document.createElement("h2");
    h.textContent = "Cube decision";
    result.append(h, cubeTable(answer));
  }
}

function readForm() {
  return {
    position: $("position").value.trim(),
    dice: $("dice").value.trim(),
    ply: $("ply").value,
    cubeless: $("cubeless").checked,
  };
}

async function analyse(ask) {
  showError("");
  $("game").hidden = true;
  stopRollout();
  $("rollout").hidden = true;
  $("result").innerHTML = "";
  try {
    const shown = await api("position", {position: ask.position});
    current = {...ask, position: shown.xgid};
    drawIds(shown);
    await drawBoard(null);
    history.replaceState(null, "", "/?" + query({position: ask.position, dice: ask.dice, ply: ask.ply, cubeless: ask.cubeless}));
    $("result").textContent = "Thinking...";
    showAnswer(await api("hint", {position: current.position, dice: current.dice, ply: current.ply, cubeless: current.cubeless}));
  } catch (e) {
    $("result").innerHTML = "";
    showError(e.message);
  }
}

async function cubeDecision() {
  if (!current) return;
  showError("");
  try {
    // The cube is decided before the roll: the position without its dice.
    const shown = await api("position", {position: current.position});
    const answer = await api("cube", {position: noDice(shown), ply: current.ply});
    const result = $("result");
    result.innerHTML = "";
    const h = document.createElement("h2");
    h.textContent = "Cube decision";
    result.append(h, cubeTable(answer));
  } catch (e) {
    showError(e.message);
  }
}

// The XGID of `shown` with its dice field emptied (before the roll).
function noDice(shown) {
  const fields = shown.xgid.split(":");
  fields[4] = "00";
  return fields.join(":");
}

function rolloutRows(answer) {
  const rows = answer.moves ? answer.moves : [{...answer, move: "the position"}];
  const match = rows.some((r) => r.emg !== undefined);
  const key = rows.some((r) => r.cubeful_equity !== undefined) ? "cubeful_equity" : (match ? "emg" : "equity");
  const heads = ["#", "play", "win", "g", "bg", "lose g", "bg", key.replace("_", " "), "±"];
  if (match) heads.push("MWC");
  heads.push("trials");
  const t = table(heads);
  rows.forEach((r, i) => {
    const tr = t.insertRow();
    if (r.eliminated) tr.className = "dropped";
    cell(tr, i + 1);
    cell(tr, r.move + (r.eliminated ? " (dropped)" : ""));
    for (const p of r.probs) cell(tr, pct(p));
    cell(tr, signed(r[key]));
    cell(tr, r.se[key].toFixed(4));
    if (match) cell(tr, pct(key === "cubeful_equity" ? r.cubeful_mwc : r.mwc) + "%");
    cell(tr, r.trials);
  });
  return t;
}

function stopRollout() {
  if (running) running.abort();
  running = null;
  $("stop-btn").disabled = true;
  $("rollout-btn").disabled = false;
}

// Reads server-sent events from a fetch response, calling `on(event, data)`.
async function readEvents(response, on) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, {stream: true});
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (data) on(event, JSON.parse(data));
    }
  }
}

async function rollout() {
  if (!current) return;
  showError("");
  stopRollout();
  const controller = new AbortController();
  running = controller;
  $("rollout").hidden = false;
  $("rollout-btn").disabled = true;
  $("stop-btn").disabled = false;
  $("rollout-status").textContent = "starting...";
  $("rollout-table").innerHTML = "";
  const trials = $("trials").value;
  const params = {position: current.position, dice: current.dice, trials, truncate: $("truncate").value, cubeful: !current.cubeless};
  try {
    const response = await fetch(`/api/rollout?${query(params)}`, {signal: controller.signal});
    if (!response.ok) throw new Error((await response.json()).error);
    await readEvents(response, (event, data) => {
      if (event === "progress") {
        $("rollout-progress").max = data.of;
        $("rollout-progress").value = data.trials;
        $("rollout-status").textContent = `${data.trials} of ${data.of} trials`;
        $("rollout-table").replaceChildren(rolloutRows(data.answer));
      } else if (event === "result") {
        $("rollout-status").textContent = `done: ${data.moves ? data.moves[0].trials : data.trials} trials`;
        $("rollout-progress").value = $("rollout-progress").max;
        $("rollout-table").replaceChildren(rolloutRows(data));
      } else if (event === "error") {
        showError(data.error);
      }
    });
  } catch (e) {
    if (e.name === "AbortError") {
      $("rollout-status").textContent = `stopped at ${$("rollout-progress").value} trials`;
    } else {
      showError(e.message);
    }
  } finally {
    if (running === controller) {
      running = null;
      $("stop-btn").disabled = true;
      $("rollout-btn").disabled = false;
    }
  }
}

$("ask").addEventListener("submit", (e) => { e.preventDefault(); analyse(readForm()); });
$("back").addEventListener("click", (e) => { e.preventDefault(); drawBoard(null).catch((err) => showError(err.message)); });
$("cube-btn").addEventListener("click", cubeDecision);
$("flip").addEventListener("change", () => {
  if (review) go(review.at);
  else if (current) drawBoard($("showing").hidden ? null : document.querySelector("tr.play.shown")?.dataset.move).catch((e) => showError(e.message));
});
$("rollout-btn").addEventListener("click", rollout);
$("stop-btn").addEventListener("click", stopRollout);

// --- setting a position up by clicking ---------------------------------

const OPENING = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

// Each side's counts are show --json's: the bar, points 1 to 24 in that
// side's own numbering, borne off. The board's point p is the bottom
// player's p and the other player's 25 - p; the bar is index 0 for both.
function edited(board, point, who, remove) {
  const me = [...board.on_roll], opp = [...board.opponent];
  const mine = point === 25 ? 0 : point, theirs = point === 25 ? 0 : 25 - point;
  if (remove) {
    const [side, i] = who === "opp" || (point !== 25 && opp[theirs] > 0) ? [opp, theirs] : [me, mine];
    if (side[i] === 0) return null;
    side[i] -= 1;
    side[25] += 1;
    return {on_roll: me, opponent: opp};
  }
  const [side, i, other, j] = who === "opp" ? [opp, theirs, me, mine] : [me, mine, opp, theirs];
  if (point !== 25) {
    // A point is one side's: the other's checkers there go off.
    other[25] += other[j];
    other[j] = 0;
  }
  if (side[25] === 0) throw new Error("all 15 of that side's checkers are on the board: right-click one off first");
  side[25] -= 1;
  side[i] += 1;
  return {on_roll: me, opponent: opp};
}

async function setUp(board) {
  showError("");
  try {
    const shown = await api("setup", {on_roll: board.on_roll.join(","), opponent: board.opponent.join(",")});
    current = {position: shown.xgid, dice: "", ply: $("ply").value, cubeless: $("cubeless").checked};
    review = null;
    $("position").value = shown.position_id;
    $("dice").value = "";
    $("result").innerHTML = "";
    drawIds(shown);
    await drawBoard(null);
  } catch (e) {
    showError(e.message);
  }
}

function spotClicked(e, remove) {
  const spot = e.target.closest(".spot");
  if (!spot) return;
  if (!$("edit").checked && !remove && game && !$("game").hidden && game.awaiting.what === "move") {
    gameSpot(Number(spot.dataset.point));
    return;
  }
  if (!$("edit").checked || !shownBoard || spot.dataset.point === "0") return;
  e.preventDefault();
  try {
    const board = edited(shownBoard, Number(spot.dataset.point), e.shiftKey ? "opp" : "me", remove);
    if (board) setUp(board);
  } catch (err) {
    showError(err.message);
  }
}

$("board").addEventListener("click", (e) => spotClicked(e, false));
$("board").addEventListener("contextmenu", (e) => spotClicked(e, true));
$("edit").addEventListener("change", () => {
  $("edit-tools").hidden = !$("edit").checked;
  document.body.classList.toggle("editing", $("edit").checked);
  if ($("edit").checked && $("flip").checked) $("flip").click();
});
$("clear-btn").addEventListener("click", () => {
  // A position needs a checker on each side.
  const one = [0, 1, ...Array(23).fill(0), 14];
  setUp({on_roll: one, opponent: [...one]});
});
$("opening-btn").addEventListener("click", () => setUp({on_roll: OPENING, opponent: OPENING}));

// --- match review ------------------------------------------------------

let review = null; // {answer, at, marked}: the match reviewed, the decision shown
let reviewing = null; // the AbortController of a running annotation

const ANSWERS = ["Take", "Pass", "Beaver"];

// The first player's match-winning chance at decision `d`: each decision
// carries its own player's.
function firstMwc(answer, d) {
  return d.player === answer.players[0].name ? d.mwc : 1 - d.mwc;
}

function reviewSummary(answer) {
  const t = $("review-summary");
  t.innerHTML = "";
  const head = t.insertRow();
  for (const h of ["", ...answer.players.map((p) => p.name)]) cell(head, h, true);
  const rows = [
    ["PR", (p) => p.pr],
    ["error rate (mEMG a decision)", (p) => p.error_rate],
    ["checker / cube error rate", (p) => `${p.checker_error_rate} / ${p.cube_error_rate}`],
    ["marks: doubtful, bad, very bad", (p) => `${p.marks.doubtful || 0}, ${p.marks.bad || 0}, ${p.marks["very bad"] || 0}`],
    ["luck (EMG)", (p) => signed(p.luck)],
    ["rating", (p) => p.rating],
  ];
  for (const [label, f] of rows) {
    const tr = t.insertRow();
    cell(tr, label);
    for (const p of answer.players) cell(tr, f(p));
  }
}

function reviewGraph(answer) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const n = answer.decisions.length;
  const [w, h, pad] = [760, 160, 8];
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${answer.players[0].name}'s match-winning chance`);
  const x = (i) => pad + (w - 2 * pad) * (n > 1 ? i / (n - 1) : 0.5);
  const y = (m) => h - pad - (h - 2 * pad) * m;
  const mid = document.createElementNS(ns, "line");
  for (const [k, v] of [["x1", pad], ["x2", w - pad], ["y1", y(0.5)], ["y2", y(0.5)], ["stroke", "#bbb"]]) mid.setAttribute(k, v);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", answer.decisions.map((d, i) => `${x(i).toFixed(1)},${y(firstMwc(answer, d)).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#555");
  const label = document.createElementNS(ns, "text");
  for (const [k, v] of [["x", pad + 2], ["y", pad + 10], ["font-size", 11], ["fill", "#555"]]) label.setAttribute(k, v);
  label.textContent = `${answer.players[0].name}'s match-winning chance (line at 50%)`;
  svg.append(mid, line, label);
  answer.decisions.forEach((d, i) => {
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(firstMwc(answer, d)).toFixed(1));
    dot.setAttribute("r", d.mark === "none" ? 2.5 : 4.5);
    dot.setAttribute("fill", d.player === answer.players[0].name ? "#1f77b4" : "#ff7f0e");
    if (d.mark === "very bad") dot.setAttribute("stroke", "#c0392b");
    dot.dataset.index = i;
    const title = document.createElementNS(ns, "title");
    title.textContent = describe(d);
    dot.append(title);
    dot.addEventListener("click", () => go(i));
    svg.append(dot);
  });
  $("review-graph").replaceChildren(svg);
}

function describe(d) {
  const roll = d.dice ? ` rolled ${d.dice},` : "";
  const mark = d.mark === "none" ? "" : `, ${d.mark}`;
  const best = d.played === d.best ? "best" : `best ${d.best}, loss ${d.equity_loss.toFixed(3)}${mark}`;
  return `Game ${d.game}, move ${d.move}: ${d.player}${roll} ${d.played} (${best})`;
}

async function go(i) {
  if (!review) return;
  const ds = review.answer.decisions;
  review.at = Math.max(0, Math.min(ds.length - 1, i));
  const d = ds[review.at];
  $("decision").textContent = describe(d);
  for (const dot of document.querySelectorAll("#review-graph circle")) {
    dot.classList.toggle("current", Number(dot.dataset.index) === review.at);
  }
  for (const li of document.querySelectorAll("#mistakes li")) {
    li.classList.toggle("current", Number(li.dataset.index) === review.at);
  }
  const position = `${d.position_id}:${d.match_id}`;
  const checker = d.kind === "checker";
  current = {position, dice: d.dice || "", ply: $("ply").value, cubeless: $("cubeless").checked};
  try {
    const svg = await api("board.svg", {
      position, dice: d.dice || "",
      played: checker ? d.played : "", best: checker && d.best !== d.played ? d.best : "",
      flip: (ANSWERS.includes(d.played) || ANSWERS.includes(d.best)) !== $("flip").checked,
    });
    if (review && ds[review.at] === d) {
      $("board").innerHTML = svg;
      $("showing").hidden = true;
      drawIds(await api("position", {position}));
    }
  } catch (e) {
    showError(e.message);
  }
}

function nextMistake(step) {
  if (!review || review.marked.length === 0) return;
  const later = review.marked.filter((i) => (step > 0 ? i > review.at : i < review.at));
  const target = later.length ? (step > 0 ? later[0] : later[later.length - 1]) : review.at;
  go(target);
}

function showReview(answer) {
  if (answer.error) {
    $("review-status").textContent = "";
    showError(answer.error);
    return;
  }
  const marked = [];
  answer.decisions.forEach((d, i) => { if (d.mark !== "none") marked.push(i); });
  review = {answer, at: 0, marked};
  $("review-title").textContent = `Match review: ${answer.players.map((p) => p.name).join(" vs ")}` +
    (answer.length ? `, ${answer.length}-point match` : ", money session");
  $("review-status").textContent = `${answer.decisions.length} decisions, ${marked.length} mistakes marked (${answer.ply}-ply)`;
  reviewSummary(answer);
  reviewGraph(answer);
  const list = $("mistakes");
  list.innerHTML = "";
  for (const i of marked) {
    const li = document.createElement("li");
    li.dataset.index = i;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = describe(answer.decisions[i]);
    b.addEventListener("click", () => go(i));
    li.append(b);
    list.append(li);
  }
  $("review-body").hidden = false;
  go(marked.length ? marked[0] : 0);
}

async function reviewFile(file) {
  showError("");
  stopRollout();
  $("game").hidden = true;
  if (reviewing) reviewing.abort();
  const controller = new AbortController();
  reviewing = controller;
  review = null;
  $("result").innerHTML = "";
  $("review").hidden = false;
  $("review-body").hidden = true;
  $("review-title").textContent = `Match review: ${file.name}`;
  $("review-progress").value = 0;
  $("review-status").textContent = "reading...";
  try {
    const body = await file.arrayBuffer();
    const params = {name: file.name, ply: $("ply").value, cubeless: $("cubeless").checked};
    const response = await fetch(`/api/annotate?${query(params)}`, {method: "POST", body, signal: controller.signal});
    if (!response.ok) throw new Error((await response.json()).error);
    await readEvents(response, (event, data) => {
      if (event === "progress") {
        $("review-progress").max = data.of;
        $("review-progress").value = data.rolls;
        $("review-status").textContent = `${data.rolls} of ${data.of} rolls judged`;
      } else if (event === "result") {
        $("review-progress").value = $("review-progress").max;
        showReview(data);
      }
    });
  } catch (e) {
    if (e.name !== "AbortError") {
      $("review-status").textContent = "";
      showError(e.message);
    }
  } finally {
    if (reviewing === controller) reviewing = null;
  }
}

$("match-file").addEventListener("change", (e) => { if (e.target.files[0]) reviewFile(e.target.files[0]); });
document.addEventListener("dragover", (e) => { e.preventDefault(); document.body.classList.add("dragging"); });
document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
document.addEventListener("drop", (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  if (e.dataTransfer.files[0]) reviewFile(e.dataTransfer.files[0]);
});
$("prev-btn").addEventListener("click", () => go(review ? review.at - 1 : 0));
$("next-btn").addEventListener("click", () => go(review ? review.at + 1 : 0));
$("next-mistake-btn").addEventListener("click", () => nextMistake(1));
$("analyse-decision-btn").addEventListener("click", () => {
  if (!review) return;
  const d = review.answer.decisions[review.at];
  $("position").value = `${d.position_id}:${d.match_id}`;
  $("dice").value = d.dice || "";
  analyse(readForm());
});
document.addEventListener("keydown", (e) => {
  if (!review || e.target.closest("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
  const keys = {ArrowRight: () => go(review.at + 1), j: () => go(review.at + 1),
                ArrowLeft: () => go(review.at - 1), k: () => go(review.at - 1),
                n: () => nextMistake(1), p: () => nextMistake(-1)};
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});

// --- playing a game ------------------------------------------------------

let game = null; // the game's state, as the server answers it
let picked = []; // the [from, to] moves clicked so far, in the mover's numbering
let pickedFrom = null; // the point clicked first, waiting for where it goes

const pointName = (p) => (p === 25 ? "bar" : p === 0 ? "off" : String(p));

// The single-die steps of a play ([from, to] each) that carry the clicked
// `moves` (a checker's whole way each), and the steps left; null when
// the play cannot carry them.
function carry(steps, moves) {
  const left = steps.map((s) => s.slice());
  const used = [];
  const walk = (from, to) => {
    for (let i = 0; i < left.length; i++) {
      const s = left[i];
      if (!s || s[0] !== from) continue;
      left[i] = null;
      if (s[1] === to) return [s];
      const rest = walk(s[1], to);
      if (rest) return [s, ...rest];
      left[i] = s;
    }
    return null;
  };
  for (const [from, to] of moves) {
    const chain = walk(from, to);
    if (!chain) return null;
    used.push(...chain);
  }
  return {used, left: left.filter(Boolean)};
}

// The play the clicked moves make, when they make a whole one.
function clickedPlay() {
  if (!game || game.awaiting.what !== "move" || !picked.length) return null;
  const whole = game.awaiting.plays.find((p) => {
    const c = carry(p.steps, picked);
    return c && c.left.length === 0;
  });
  return whole ? whole.move : null;
}

async function drawGame() {
  const play = clickedPlay() || (game.awaiting.what === "move" && $("g-plays").value) || null;
  const params = {id: game.id};
  if (play) params.play = play;
  else if (picked.length) params.steps = picked.map(([f, t]) => `${pointName(f)}/${pointName(t)}`).join(" ");
  $("board").innerHTML = await api("game/board.svg", params);
  $("showing").hidden = true;
  if (pickedFrom !== null) {
    const spot = document.querySelector(`#board .spot[data-point="${pickedFrom}"]`);
    if (spot) spot.classList.add("picked");
  }
}

function gameSpot(point) {
  showError("");
  if (pickedFrom === null) {
    if (point === 0) return;
    pickedFrom = point;
    drawGame().catch((e) => showError(e.message));
    return;
  }
  const from = pickedFrom;
  pickedFrom = null;
  if (from !== point) {
    const moves = [...picked, [from, point]];
    if (!game.awaiting.plays.some((p) => carry(p.steps, moves))) {
      showError(`no legal play of ${game.awaiting.dice} moves a checker from ${pointName(from)} to ${pointName(point)}${picked.length ? " after the moves clicked before" : ""}`);
    } else {
      picked = moves;
      $("g-plays").value = "";
      $("g-move").value = clickedPlay() || moves.map(([f, t]) => `${pointName(f)}/${pointName(t)}`).join(" ");
    }
  }
  drawGame().catch((e) => showError(e.message));
}

const STATUS = {
  roll: (g, who) => (g.awaiting.may_double ? `${who}: roll or double.` : `${who}: roll.`),
  move: (g, who) => `${who}: play ${g.awaiting.dice}.`,
  take: (g, who) => `${who}: take or pass the cube at ${2 * g.cube.value}${g.awaiting.may_beaver ? " (or beaver)" : ""}?`,
  resignation: (g, who) => `${who}: accept or reject the resignation of a ${g.awaiting.kind === "single" ? "single game" : g.awaiting.kind}?`,
  "next game": () => "The game is over.",
  nothing: (g) => (g.seed ? `The session is over. Dice seed ${g.seed}: check every roll with sheshbesh verify ${g.seed} ${g.commitment} FILE.mat` : "The session is over."),
};

function showGame(state) {
  // The board turns round when the game's side does (swap-sides), and
  // otherwise stays as the player set it.
  if (!game || game.id !== state.id || game.home !== state.home) $("home-left").checked = state.home === "left";
  game = state;
  picked = [];
  pickedFrom = null;
  review = null;
  $("review").hidden = true;
  $("game").hidden = false;
  const a = state.awaiting;
  const who = a.player === undefined ? "" : state.names[a.player];
  const r = state.rules;
  const length = r.match ? `${r.match}-point match` : "money";
  $("game-title").textContent = `${state.names[0]} ${state.score[0]}, ${state.names[1]} ${state.score[1]} (${length}${state.crawford_game ? ", Crawford game" : ""}); game ${state.game}`;
  $("game-status").textContent = STATUS[a.what](state, who);
  const shown = {
    "g-roll": a.what === "roll", "g-double": a.what === "roll" && a.may_double,
    "g-take": a.what === "take", "g-drop": a.what === "take", "g-beaver": a.what === "take" && a.may_beaver,
    "g-accept": a.what === "resignation", "g-reject": a.what === "resignation",
    "g-next": a.what === "next game", "g-hint": ["roll", "move", "take"].includes(a.what),
    "g-resign": ["roll", "move"].includes(a.what), "g-resign-kind": ["roll", "move"].includes(a.what),
    "g-end": !state.ended,
  };
  for (const [id, on] of Object.entries(shown)) $(id).hidden = !on;
  $("g-move-form").hidden = a.what !== "move";
  $("g-move").value = "";
  const plays = $("g-plays");
  plays.innerHTML = "";
  if (a.what === "move") {
    plays.append(new Option(`the ${a.plays.length} legal plays`, ""));
    for (const p of a.plays) plays.append(new Option(p.move, p.move));
  }
  $("g-record").href = `/api/game/record?id=${state.id}`;
  $("g-dice").textContent = `Dice commitment (SHA-256 of the secret seed): ${state.commitment}`;
  $("g-hint-text").textContent = "";
  const log = $("g-log");
  log.innerHTML = "";
  for (const line of [...state.log].reverse()) {
    const li = document.createElement("li");
    li.textContent = line;
    log.append(li);
  }
  return drawGame();
}

async function order(params) {
  showError("");
  $("result").innerHTML = "";
  try {
    await showGame(await api("game/act", {id: game.id, ...params}, "POST"));
  } catch (e) {
    showError(e.message);
  }
}

async function startGame() {
  showError("");
  stopRollout();
  const v = (id) => $(id).value.trim();
  const params = {match: v("g-match"), games: v("g-games"), level: v("g-level"), players: v("g-players"),
                  names: v("g-names"), seed: v("g-seed"), "auto-doubles": v("g-auto-doubles"),
                  home: $("home-left").checked ? "left" : "right"};
  for (const flag of ["jacoby", "beavers", "bg-counts-two", "israeli", "no-crawford", "swap-sides"]) {
    params[flag] = $(`g-${flag}`).checked;
  }
  try {
    $("result").innerHTML = "";
    await showGame(await api("game", params, "POST"));
    $("new-game").open = false;
  } catch (e) {
    showError(e.message);
  }
}

async function gameHint() {
  showError("");
  const a = game.awaiting;
  try {
    current = {position: game.board, dice: "", ply: $("ply").value, cubeless: $("cubeless").checked};
    $("flip").checked = game.flip;
    $("result").textContent = "Thinking...";
    if (a.what === "move") {
      showAnswer(await api("hint", {position: game.board, ply: current.ply, cubeless: current.cubeless}));
    } else {
      const answer = await api("cube", {position: game.board, ply: current.ply});
      $("result").innerHTML = "";
      $("result").append(cubeTable(answer));
    }
  } catch (e) {
    $("result").innerHTML = "";
    showError(e.message);
  }
}

$("game-form").addEventListener("submit", (e) => { e.preventDefault(); startGame(); });
for (const [id, what] of [["g-roll", "roll"], ["g-double", "double"], ["g-take", "take"], ["g-drop", "drop"],
                          ["g-beaver", "beaver"], ["g-accept", "accept"], ["g-reject", "reject"],
                          ["g-next", "next"], ["g-end", "end"]]) {
  $(id).addEventListener("click", () => order({do: what}));
}
$("g-resign").addEventListener("click", () => order({do: "resign", kind: $("g-resign-kind").value}));
$("g-hint").addEventListener("click", gameHint);
$("g-move-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const move = $("g-move").value.trim() || $("g-plays").value;
  if (!move) { showError("no play: click the board, type one, or choose one of the legal plays"); return; }
  order({do: "play", move});
});
$("g-undo").addEventListener("click", () => {
  picked = [];
  pickedFrom = null;
  $("g-move").value = "";
  $("g-plays").value = "";
  drawGame().catch((e) => showError(e.message));
});
$("g-plays").addEventListener("change", () => {
  picked = [];
  $("g-move").value = $("g-plays").value;
  drawGame().catch((e) => showError(e.message));
});
$("home-left").addEventListener("change", () => {
  if (game && !$("game").hidden) drawGame().catch((e) => showError(e.message));
  else if (review) go(review.at);
  else if (current) drawBoard(null).catch((e) => showError(e.message));
});

// `/?position=ID[:MATCHID]&dice=31&ply=2` opens that position.
(() => {
  const q = new URLSearchParams(location.search);
  // A "+" of a Position ID typed into a URL by hand arrives as a space;
  // no position text has spaces.
  $("position").value = (q.get("position") || "start").replace(/ /g, "+");
  $("dice").value = q.get("dice") || "";
  if (q.get("ply")) $("ply").value = q.get("ply");
  $("cubeless").checked = q.get("cubeless") === "1";
  if (q.get("position")) analyse(readForm());
})();
