// The board page: reads the position from the form (or the URL), asks
// the JSON API, and draws what it answers. Every figure comes from the
// server; this script only lays it out.
"use strict";

const $ = (id) => document.getElementById(id);
const pct = (x) => (100 * x).toFixed(2);
const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

let current = null; // {position, dice, ply, cubeless}: what the page shows
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

async function api(path, params) {
  const response = await fetch(`/api/${path}?${query(params)}`);
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try { message = JSON.parse(text).error; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return path.endsWith(".svg") ? text : JSON.parse(text);
}

async function drawBoard(play) {
  const svg = await api("board.svg", {position: current.position, dice: current.dice, play});
  $("board").innerHTML = svg;
  $("showing").hidden = !play;
  $("showing-text").textContent = play ? `After ${play}.` : "";
  for (const tr of document.querySelectorAll("tr.play")) {
    tr.classList.toggle("shown", tr.dataset.move === play);
  }
}

function drawIds(shown) {
  const ids = $("ids");
  ids.innerHTML = "";
  const rows = [
    ["Position ID", shown.position_id], ["Match ID", shown.match_id], ["XGID", shown.xgid],
    ["Pips", `${shown.pips.on_roll} (on roll) - ${shown.pips.opponent}`],
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
$("rollout-btn").addEventListener("click", rollout);
$("stop-btn").addEventListener("click", stopRollout);

// `/?position=ID[:MATCHID]&dice=31&ply=2` opens that position.
(() => {
  const q = new URLSearchParams(location.search);
  $("position").value = q.get("position") || "start";
  $("dice").value = q.get("dice") || "";
  if (q.get("ply")) $("ply").value = q.get("ply");
  $("cubeless").checked = q.get("cubeless") === "1";
  if (q.get("position")) analyse(readForm());
})();
