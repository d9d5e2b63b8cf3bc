// The play page. Every string from the server is shown with textContent: never markup.
"use strict";
const $ = (id) => document.getElementById(id);
let ws = null, person = "", secret = "", token = "", current = null, game = null;
let drafts = {}, opponents = [], refusal = "", options = {};
let queue = [], queueAt = 0;  // the waiting moves and when their times were read
const sent = new Set();  // answered ids: a queue update racing the answer must not re-ask
const cards = new Map();  // a match's card in "Your matches", by the server's card id
// Each person's secret stays in this browser (localStorage, this server's origin only): a
// returning person joins under their name without typing it. An invite link carries it
// after "#", which the browser never sends to any server.
const KEPT = "xent-arena-play-people", LAST = "xent-arena-play-last";

function kept() {
  try { return JSON.parse(localStorage.getItem(KEPT) || "{}") || {}; } catch (e) { return {}; }
}
function keep(name, value) {
  try {
    const all = kept(); all[name] = value;
    localStorage.setItem(KEPT, JSON.stringify(all)); localStorage.setItem(LAST, name);
  } catch (e) { /* storage off: the person keeps the link instead */ }
}
function inviteLink(name, value) {
  return location.origin + "/#person=" + encodeURIComponent(name) + "&secret=" + encodeURIComponent(value);
}
function readInvite() {
  const found = new URLSearchParams(location.hash.slice(1));
  if (found.get("person") && found.get("secret")) {
    keep(found.get("person"), found.get("secret"));
    history.replaceState(null, "", location.pathname);  // the secret leaves the address bar
  }
  try { return localStorage.getItem(LAST) || found.get("person") || ""; } catch (e) { return found.get("person") || ""; }
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}
// One rounding everywhere on the page: bits to 0.01 (the resolution of the totals a seat
// gets over text it did not see), ratings to whole points.
function bits(value) { return Number(value).toFixed(2); }
function points(value) { return String(Math.round(Number(value))); }
function clock(seconds) {
  const s = Math.max(0, Math.round(seconds)), h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60), r = String(s % 60).padStart(2, "0");
  return h ? h + ":" + String(m).padStart(2, "0") + ":" + r : m + ":" + r;
}
function headers() {
  const h = {"Content-Type": "application/json"};
  if (token) h["X-Play-Token"] = token;
  if (person && secret) { h["X-Play-Person"] = person; h["X-Play-Secret"] = secret; }
  return h;
}
async function post(path, data) {
  const reply = await fetch(path, {method: "POST", headers: headers(), body: JSON.stringify(data)});
  return reply.json();
}
function status(text) { $("status").textContent = text; }

// The dashboard, when the organiser runs one beside this page (`arena dashboard --play`):
// ":PORT" means this page's host on that port.
function dashboard(path) {
  const base = options.dashboard || "";
  if (!base) return "";
  const root = base.startsWith(":") ? location.protocol + "//" + location.hostname + base : base;
  return root + path;
}
function link(text, href) {
  const a = el("a", text);
  a.href = href; a.target = "_blank"; a.rel = "noopener";
  return a;
}

async function loadOptions() {
  const reply = await fetch("/api/options", {headers: headers()});
  const data = await reply.json();
  if (!data.games) { status(data.error || "refused"); return false; }
  options = data;
  $("game").replaceChildren(...data.games.map((g) => el("option", g)));
  opponents = data.opponents;
  const board = dashboard("/leaderboard?tournament=" + encodeURIComponent(data.ladder));
  if (board) {
    $("nav-leaderboard").href = board; $("nav-leaderboard").hidden = false;
    $("nav-dashboard").href = dashboard("/"); $("nav-dashboard").hidden = false;
  }
  $("ladder-note").textContent = "Your match is stored in the ladder tournament '" + data.ladder +
    "'. Then " + (data.models.length ? data.models.join(", ") + " play the same map in your seat " +
    "against the same players, and you are rated against them (Bradley–Terry)." :
    "no model plays it (the organiser listed none).") + " A pasted game is practice: not rated.";
  return true;
}

function gameRequest() {
  const source = $("source").value.trim();
  return source ? {source} : {game: $("game").value};
}

// The rules as a person reads them (the server builds them from the game's header and
// code, never its developer notes).
function rulesView(rules, mine) {
  const box = el("div", undefined, "rules");
  box.appendChild(el("h3", rules.title));
  if (rules.about) box.appendChild(el("p", rules.about, "about"));
  const list = el("dl");
  const add = (term, content) => {
    list.appendChild(el("dt", term));
    const dd = el("dd");
    if (typeof content === "string") dd.textContent = content; else dd.appendChild(content);
    list.appendChild(dd);
  };
  if (rules.measures) add("What it measures", rules.measures);
  const seats = el("ul");
  for (const [role, words] of Object.entries(rules.roles)) {
    const item = el("li", role + (role === mine ? " (you)" : "") + (words ? ": " + words : ""));
    if (role === mine) item.className = "you";
    seats.appendChild(item);
  }
  for (const extra of rules.extra) seats.appendChild(el("li", extra));
  add("Seats", seats);
  if (rules.rounds) add("Rounds", rules.rounds + (rules.rounds === 1 ? " round" : " rounds, your best counts"));
  const score = el("ul");
  for (const line of rules.score) score.appendChild(el("li", line));
  add("Score", score);
  box.appendChild(list);
  return box;
}

async function checkGame() {
  $("diagnostics").textContent = "";
  $("start-button").disabled = true;
  const data = await post("/api/check", gameRequest());
  if (!data.ok) { $("diagnostics").textContent = data.error; $("seat-box").hidden = true; return; }
  game = data;
  $("role").replaceChildren(...data.roles.map((r) => el("option", r)));
  $("rules-box").hidden = false; $("seat-box").hidden = false;
  showOthers();
  $("start-button").disabled = data.roles.length === 0;
}

function showOthers() {
  const mine = $("role").value;
  $("rules").replaceChildren(rulesView(game.rules, mine));
  const rows = game.roles.filter((r) => r !== mine).map((r) => {
    const label = el("label", r + " is played by ");
    const pick = el("select");
    pick.dataset.role = r; pick.className = "other";
    pick.replaceChildren(...opponents.map((p) => el("option", p.spec)));
    const script = el("input");  // the text of a scripted:* seat, written here
    script.dataset.role = r; script.className = "other-text"; script.placeholder = "move one|move two";
    const help = el("span", "", "hint field-help");
    const shown = () => {
      const chosen = opponents[pick.selectedIndex];
      script.hidden = !chosen.text; help.textContent = chosen.help;
    };
    pick.addEventListener("change", shown);
    shown();
    label.append(pick, script, help);
    return label;
  });
  $("others").replaceChildren(...rows);
}

async function startMatch() {
  const others = {};
  for (const pick of document.querySelectorAll("select.other")) {
    const chosen = opponents[pick.selectedIndex];
    const text = document.querySelector("input.other-text[data-role='" + pick.dataset.role + "']").value;
    others[pick.dataset.role] = chosen.text ? chosen.spec.slice(0, -1) + text : chosen.spec;
  }
  const data = await post("/api/start", {...gameRequest(), role: $("role").value,
    others, rounds: Number($("rounds").value || 1)});
  if (!data.ok) { $("diagnostics").textContent = data.error; return; }
  $("diagnostics").textContent = "";
  status("Started match #" + data.match + ": " + data.label + ".");
  card(data.card, "#" + data.match + " " + data.label);
}

function join() {
  person = $("person").value.trim();
  secret = kept()[person] || "";
  token = $("token").value;
  refusal = "";
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(scheme + location.host + "/ws");
  ws.onopen = () => ws.send(JSON.stringify({person, secret, token}));
  ws.onmessage = (message) => onFrame(JSON.parse(message.data));
  // A refusal comes as an error frame just before the close: keep it on screen.
  ws.onclose = () => {
    status(refusal ? refusal + " (Disconnected.)" : "Disconnected: reload the page to play on.");
    $("join-form").hidden = false; $("who").textContent = "";
  };
}

async function onFrame(frame) {
  if (frame.type === "hello") {
    refusal = "";
    person = frame.person;
    status("Playing as " + frame.person + ".");
    $("who").textContent = "Playing as " + frame.person;
    $("join-form").hidden = true;
    if (frame.secret) {  // a new name: its secret, said once; this browser keeps it
      secret = frame.secret;
      keep(frame.person, frame.secret);
      $("invite").textContent = inviteLink(frame.person, frame.secret);
      $("invite-box").hidden = false;
    } else {
      keep(frame.person, secret);
    }
    if (await loadOptions()) {
      $("setup").hidden = false; $("queue-box").hidden = false; $("rating-box").hidden = false;
    }
  } else if (frame.type === "error") {
    refusal = frame.message;
    status(frame.message);
  } else if (frame.type === "queue") {
    queue = frame.moves; queueAt = Date.now();
    showQueue();
    if (!frame.moves.length) { $("turn").hidden = true; current = null; }
  } else if (frame.type === "request") {
    if (!sent.has(frame.id) && (!current || current.id !== frame.id)) showRequest(frame);
  } else if (frame.type === "feedback") {
    showFeedback(frame);
  } else if (frame.type === "round") {
    const box = card(frame.card);
    const score = frame.score === null ? "forfeited" : bits(frame.score) + " bits";
    box.log.appendChild(el("p", "Round " + frame.round + " (" + frame.role + "): " + score, "round"));
    if (frame.best !== null) box.best.textContent = bits(frame.best) + " bits";
  } else if (frame.type === "failed") {
    card(frame.card).log.appendChild(el("p", "Round " + frame.round + ", line " + frame.line +
      ": your move broke a rule (" + frame.failures + " of " + frame.budget + " failed tries used).", "error"));
  } else if (frame.type === "forfeit") {
    card(frame.card).log.appendChild(el("p", "Forfeited round " + frame.round + ": " + frame.reason, "error"));
  } else if (frame.type === "done") {
    showDone(frame);
  } else if (frame.type === "rating") {
    showRating(frame);
  }
}

function showQueue() {
  const waited = (Date.now() - queueAt) / 1000;
  $("queue-empty").hidden = queue.length > 0;
  $("queue").replaceChildren(...queue.map((m) => {
    const item = el("li", itemText(m, waited));
    if (current && current.id === m.id) item.className = "now";
    return item;
  }));
  if (current) $("turn-meta").textContent = metaText(current.item, waited);
}
function itemText(m, waited) {
  const parts = [(m.match ? "#" + m.match + " " : "") + m.game + " as " + m.role];
  const against = Object.entries(m.opponents).map(([r, s]) => r + ": " + s).join(", ");
  if (against) parts.push("vs " + against);
  if (m.map === "new") parts.push("new map");
  if (!m.match && m.tournament) parts.push("tournament " + m.tournament);
  parts.push("round " + m.round + "/" + m.rounds);
  if (m.attempt > 1) parts.push("try " + m.attempt);
  if (m.seconds_left !== null) parts.push(clock(m.seconds_left - waited) + " left");
  return parts.join(" · ");
}
function metaText(m, waited) {
  const parts = [];
  if (m.match) parts.push("match #" + m.match);
  parts.push("round " + m.round + " of " + m.rounds, "line " + m.line);
  if (m.seconds_left !== null) parts.push(clock(m.seconds_left - waited) + " left for this move");
  return parts.join(" · ");
}

function section(title, rows) {
  const box = el("div");
  box.appendChild(el("h3", title));
  if (!rows.length) box.appendChild(el("p", "(nothing)", "hint"));
  for (const [label, value] of rows) {
    box.appendChild(el("b", label));
    box.appendChild(el("span", value === "" ? "(empty)" : value, "value"));
  }
  return box;
}

function historyLine(item) {
  if (item.kind === "move") return "line " + item.line + ": you played " +
    Object.entries(item.moves).map(([r, v]) => r + " = " + JSON.stringify(v)).join(", ") +
    (item.cut.length ? " (cut to its first tokens)" : "");
  if (item.kind === "reward") return "line " + item.line + ": reward " + bits(item.reward) + " bits";
  if (item.kind === "failed_ensure") return "line " + item.line + ": your move broke the rule " + item.condition;
  if (item.kind === "reveal" && item.reveal) return "line " + item.line + ": revealed " + item.reveal.label;
  return "line " + item.line + ": " + item.kind;
}

function showRequest(frame) {
  const r = frame.request;
  current = {id: frame.id, request: r, item: frame.item};
  if (frame.item.match) card("m" + frame.item.match, "#" + frame.item.match + " " + r.game.name + " as " + r.role);
  $("turn").hidden = false;
  $("turn-title").textContent = "Your move: " + r.game.name + ", you are " + r.role;
  $("turn-meta").textContent = metaText(frame.item, (Date.now() - queueAt) / 1000);
  $("turn-rules").replaceChildren(rulesView(r.rules, r.role));
  $("failed").hidden = !r.failed_condition;
  $("failed-rule").textContent = r.failed_condition ?
    "Your last move broke a rule: " + r.failed_condition : "";
  $("failed-why").replaceChildren(...r.failed_why.map((line) => el("li", line)));
  $("seen").replaceChildren(
    section("What you see", Object.entries(r.visible)),
    section("Revealed to you", r.reveals.map((v) => [v.label + " (line " + v.line + ")", v.value])));
  const history = el("div");
  history.appendChild(el("h3", "This round so far"));
  if (!r.history.length) history.appendChild(el("p", "(your first move of the round)", "hint"));
  for (const item of r.history) history.appendChild(el("div", historyLine(item)));
  for (const memory of r.previous_rounds) history.appendChild(el("div", "round " + memory.round +
    ": " + (memory.score === null ? "forfeited" : bits(memory.score) + " bits")));
  $("history").replaceChildren(history);
  const inputs = r.registers.map((reg) => {
    const label = el("label", "Your move for " + reg + " (at most " + r.max_len + " tokens; longer moves are cut)");
    const box = el("textarea");
    box.rows = 2; box.dataset.register = reg; box.className = "move";
    box.value = drafts[reg] || "";
    const counter = el("span", "0/" + r.max_len + " tokens", "count");
    box.addEventListener("input", () => count(box, counter, r.max_len));
    box.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send(); }
    });
    label.append(box, counter);
    return label;
  });
  $("inputs").replaceChildren(...inputs);
  for (const box of document.querySelectorAll("textarea.move")) box.dispatchEvent(new Event("input"));
  showQueue();
  const first = document.querySelector("textarea.move");
  if (first) first.focus();
}

let counting = 0;
async function count(box, counter, maxLen) {
  const ticket = ++counting;
  drafts[box.dataset.register] = box.value;
  const data = await post("/api/count", {id: current && current.id, text: box.value});
  if (ticket !== counting || !data.ok) return;
  counter.textContent = data.tokens + "/" + maxLen + " tokens" + (data.tokens > maxLen ? " (will be cut)" : "");
  counter.classList.toggle("over", data.tokens > maxLen);
}

function undo() {
  for (const box of document.querySelectorAll("textarea.move")) {
    box.value = ""; box.dispatchEvent(new Event("input"));
  }
}

function send() {
  if (!current) return;
  const moves = {};
  for (const box of document.querySelectorAll("textarea.move")) moves[box.dataset.register] = box.value;
  ws.send(JSON.stringify({type: "move", id: current.id, moves}));
  sent.add(current.id);
  drafts = {};
  current = null;
  $("turn").hidden = true;
}

// A match's card in "Your matches": its best score so far (of this match only), its
// rounds, rewards and end.
function card(id, title) {
  let found = cards.get(id);
  if (!found) {
    const box = el("div", undefined, "match-card");
    const head = el("h3", title || "Match");
    const best = el("span", "–", "best");
    const line = el("p", "Best score so far: ");
    line.appendChild(best);
    const log = el("div");
    box.append(head, line, log);
    $("feedback").prepend(box);
    $("results").hidden = false;
    found = {box, head, best, log};
    cards.set(id, found);
  } else if (title) {
    found.head.textContent = title;
  }
  return found;
}

function showFeedback(frame) {
  const box = el("div", undefined, "feedback");
  box.appendChild(el("h4", "Round " + frame.round + ", line " + frame.line + ": reward " +
    bits(frame.total) + " bits (" + frame.role + ")"));
  for (const term of frame.terms) {
    box.appendChild(el("div", term.source + " = " + bits(term.total) + " bits" +
      (term.hidden ? " (over text you did not see: total only, to 0.01 bits)" : "")));
    if (term.tokens.length) {
      const reading = el("div", undefined, "reading");
      term.tokens.forEach((tok, i) => {
        const span = el("span", tok, "xa-token");
        span.title = bits(term.coefficient * term.bits[i]) + " bits";
        span.style.background = term.shades[i][0];
        span.style.color = term.shades[i][1];
        reading.appendChild(span);
      });
      box.appendChild(reading);
    }
  }
  card(frame.card).log.appendChild(box);
}

function showDone(frame) {
  const box = card(frame.card);
  const result = frame.status === "done" ? "finished" : frame.status;
  const end = el("p", "Finished: " + frame.label + " (" + result + ")", "done");
  if (frame.best !== null && frame.best !== undefined) box.best.textContent = bits(frame.best) + " bits";
  box.log.appendChild(end);
  if (frame.replay && dashboard(frame.replay)) {
    const where = el("p", "");
    where.appendChild(link("Replay this match on the dashboard", dashboard(frame.replay)));
    box.log.appendChild(where);
  }
  if (frame.error) box.log.appendChild(el("p", frame.error, "error match-error"));
  if (frame.status === "done" && frame.models) {
    box.log.appendChild(el("p", "The models now play your map in your seat; your rating follows.", "hint models"));
  }
}

function showRating(frame) {
  $("rating-box").hidden = false;
  if (frame.rating === undefined) {
    $("rating").textContent = "No rating yet: finish a match of the ladder '" + frame.tournament +
      "'; the models then play your map and you get one.";
  } else {
    $("rating").textContent = points(frame.rating) + " (95% interval " + points(frame.ci_low) +
      " to " + points(frame.ci_high) + "), from " + frame.n_comparisons + " comparison" +
      (frame.n_comparisons === 1 ? "" : "s") + "; rank " + frame.rank + " of " + frame.rated +
      " on the ladder '" + frame.tournament + "' (" + frame.participant + ").";
  }
  const note = $("rating-note");
  note.replaceChildren(el("span", "Each match you finish adds a comparison with every model on " +
    "your map (the higher match score wins); the interval narrows as they add up. "));
  const board = dashboard(frame.leaderboard);
  if (board) note.appendChild(link("See the Leaderboard", board));
}

window.addEventListener("DOMContentLoaded", async () => {
  $("person").value = readInvite();
  if ($("person").value && kept()[$("person").value]) {
    status("Welcome back, " + $("person").value + ": this browser keeps your secret. Join to play on.");
  }
  const reply = await fetch("/api/options").catch(() => null);
  const data = reply ? await reply.json().catch(() => ({})) : {};
  if (data.token_needed) $("token-box").hidden = false;  // only when the server wants one
  $("join-button").addEventListener("click", join);
  $("person").addEventListener("keydown", (e) => { if (e.key === "Enter") join(); });
  $("check-button").addEventListener("click", checkGame);
  $("role").addEventListener("change", showOthers);
  $("start-button").addEventListener("click", startMatch);
  $("send-button").addEventListener("click", send);
  $("undo-button").addEventListener("click", undo);
  setInterval(() => { if (queue.length) showQueue(); }, 1000);
});
