// The play page. Every string from the server is shown with textContent: never markup.
"use strict";
const $ = (id) => document.getElementById(id);
let ws = null, person = "", secret = "", token = "", current = null, best = null, game = null;
let drafts = {}, opponents = [], refusal = "";
const sent = new Set();  // answered ids: a queue update racing the answer must not re-ask
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

async function loadOptions() {
  const reply = await fetch("/api/options", {headers: headers()});
  const data = await reply.json();
  if (!data.games) { status(data.error || "refused"); return false; }
  $("game").replaceChildren(...data.games.map((g) => el("option", g)));
  opponents = data.opponents;
  $("kinds").textContent = opponents.map((p) => p.spec + " (" + p.help + ")").join("; ");
  return true;
}

function gameRequest() {
  const source = $("source").value.trim();
  return source ? {source} : {game: $("game").value};
}

async function checkGame() {
  $("diagnostics").textContent = "";
  $("start-button").disabled = true;
  const data = await post("/api/check", gameRequest());
  if (!data.ok) { $("diagnostics").textContent = data.error; return; }
  game = data;
  $("rules").replaceChildren(...data.rules.map((r) => el("li", r)));
  $("role").replaceChildren(...data.roles.map((r) => el("option", r)));
  showOthers();
  $("start-button").disabled = data.roles.length === 0;
}

function showOthers() {
  const mine = $("role").value;
  const rows = game.roles.filter((r) => r !== mine).map((r) => {
    const label = el("label", r + " is played by ");
    const pick = el("select");
    pick.dataset.role = r; pick.className = "other";
    pick.replaceChildren(...opponents.map((p) => el("option", p.spec)));
    const script = el("input");  // the text of a scripted:* seat, written here
    script.dataset.role = r; script.className = "other-text"; script.placeholder = "move one|move two";
    const shown = () => { script.hidden = !opponents[pick.selectedIndex].text; };
    pick.addEventListener("change", shown);
    shown();
    label.append(pick, script);
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
  status("Started: " + data.label);
}

function join() {
  person = $("person").value.trim();
  secret = kept()[person] || "";
  token = $("token").value;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(scheme + location.host + "/ws");
  ws.onopen = () => ws.send(JSON.stringify({person, secret, token}));
  ws.onmessage = (message) => onFrame(JSON.parse(message.data));
  // A refusal comes as an error frame just before the close: keep it on screen.
  ws.onclose = () => status(refusal ? refusal + " (Disconnected.)" : "Disconnected.");
}

async function onFrame(frame) {
  if (frame.type === "hello") {
    refusal = "";
    status("Playing as " + frame.person + ".");
    if (frame.secret) {  // a new name: its secret, said once; this browser keeps it
      secret = frame.secret;
      keep(frame.person, frame.secret);
      $("invite").textContent = inviteLink(frame.person, frame.secret);
      $("invite-box").hidden = false;
    }
    if (await loadOptions()) { $("setup").hidden = false; $("queue-box").hidden = false; }
  } else if (frame.type === "error") {
    refusal = frame.message;
    status(frame.message);
  } else if (frame.type === "queue") {
    $("queue").replaceChildren(...frame.moves.map((m) =>
      el("li", m.game + " as " + m.role + ", round " + m.round + "/" + m.rounds + ", line " + m.line)));
    if (!frame.moves.length) { $("turn").hidden = true; current = null; }
  } else if (frame.type === "request") {
    if (!sent.has(frame.id) && (!current || current.id !== frame.id)) showRequest(frame);
  } else if (frame.type === "feedback") {
    showFeedback(frame);
  } else if (frame.type === "round") {
    const score = frame.score === null ? "forfeited" : frame.score.toFixed(3) + " bits";
    $("feedback").appendChild(el("p", "Round " + frame.round + " (" + frame.role + "): " + score, "round"));
    if (frame.best !== null && (best === null || frame.best > best)) best = frame.best;
    $("best").textContent = best === null ? "–" : best.toFixed(3) + " bits";
  } else if (frame.type === "forfeit") {
    $("feedback").appendChild(el("p", "Forfeited round " + frame.round + ": " + frame.reason, "error"));
  } else if (frame.type === "done") {
    const line = el("p", "Finished: " + frame.label + " (" + frame.status + ")", "done");
    $("feedback").appendChild(line);
    if (frame.error) $("feedback").appendChild(el("p", frame.error, "error match-error"));
  }
}

function section(title, rows) {
  const box = el("div");
  box.appendChild(el("h3", title));
  for (const [label, value] of rows) {
    const row = el("div");
    row.appendChild(el("b", label + ": "));
    row.appendChild(el("span", value === "" ? "(empty)" : value, "value"));
    box.appendChild(row);
  }
  return box;
}

function historyLine(item) {
  if (item.kind === "move") return "line " + item.line + ": you played " +
    Object.entries(item.moves).map(([r, v]) => r + " = " + JSON.stringify(v)).join(", ") +
    (item.cut.length ? " (cut)" : "");
  if (item.kind === "reward") return "line " + item.line + ": reward " + item.reward.toFixed(3) + " bits";
  if (item.kind === "failed_ensure") return "line " + item.line + ": failed " + item.condition;
  if (item.kind === "reveal" && item.reveal) return "line " + item.line + ": revealed " + item.reveal.label;
  return "line " + item.line + ": " + item.kind;
}

function showRequest(frame) {
  const r = frame.request;
  current = {id: frame.id, request: r};
  $("turn").hidden = false;
  $("turn-title").textContent = r.game.name + ": you are " + r.role + ", round " + r.round +
    "/" + r.rounds + ", line " + r.line;
  $("turn-rules").replaceChildren(...r.rules.filter((x) => x).map((x) => el("li", x)));
  $("seen").replaceChildren(
    section("What you see", Object.entries(r.visible)),
    section("Revealed to you", r.reveals.map((v) => [v.label + " (line " + v.line + ")", v.value])));
  const history = el("div");
  history.appendChild(el("h3", "This round"));
  for (const item of r.history) history.appendChild(el("div", historyLine(item)));
  for (const memory of r.previous_rounds) history.appendChild(el("div", "round " + memory.round +
    ": " + (memory.score === null ? "forfeited" : memory.score.toFixed(3) + " bits")));
  $("history").replaceChildren(history);
  $("failed").textContent = r.failed_condition ?
    "Attempt " + r.attempt + ": your last move failed " + r.failed_condition : "";
  const inputs = r.registers.map((reg) => {
    const label = el("label", "Your move for " + reg + " (at most " + r.max_len + " tokens) ");
    const box = el("textarea");
    box.rows = 2; box.cols = 60; box.dataset.register = reg; box.className = "move";
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

function showFeedback(frame) {
  const box = el("div", undefined, "feedback");
  // A total over text the seat did not see arrives rounded to 0.01 bits (docs/information_sets.md),
  // so it is shown as such: printing three decimals would suggest a precision it lacks.
  const rounded = frame.terms.some((term) => term.hidden);
  const bits = (value, hidden) => hidden ? "≈ " + value.toFixed(2) : value.toFixed(3);
  box.appendChild(el("h3", "Round " + frame.round + ", line " + frame.line + ": reward " +
    bits(frame.total, rounded) + " bits (" + frame.role + ")"));
  for (const term of frame.terms) {
    box.appendChild(el("div", term.source + " = " + bits(term.total, term.hidden) + " bits" +
      (term.hidden ? " (over text you did not see: total only, rounded to 0.01 bits)" : "")));
    if (term.tokens.length) {
      const reading = el("div", undefined, "reading");
      term.tokens.forEach((tok, i) => {
        const span = el("span", tok, "xa-token");
        const gained = term.coefficient * term.bits[i];
        span.title = gained.toFixed(3) + " bits";
        span.style.background = term.shades[i][0];
        span.style.color = term.shades[i][1];
        reading.appendChild(span);
      });
      box.appendChild(reading);
    }
  }
  $("feedback").appendChild(box);
}

window.addEventListener("DOMContentLoaded", async () => {
  $("person").value = readInvite();
  const data = await (await fetch("/api/options")).json().catch(() => ({}));
  if (data.token_needed || data.ok === false) $("token-box").hidden = false;
  $("join-button").addEventListener("click", join);
  $("check-button").addEventListener("click", checkGame);
  $("role").addEventListener("change", showOthers);
  $("start-button").addEventListener("click", startMatch);
  $("send-button").addEventListener("click", send);
  $("undo-button").addEventListener("click", undo);
});
