// chatmem web: one page, routes in the address's #fragment (so the browser's Back works),
// every read a GET to /api/<read> that calls the same tool function as the CLI and MCP.
"use strict";

const view = () => document.getElementById("view");
const PAGE = 30; // messages fetched per step when paging a conversation
let READS = {}; // read name -> the arguments its tool function takes (from /api/whoami)

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

async function api(name, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  const response = await fetch(`/api/${name}?${q}`, { credentials: "same-origin" });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

// a snippet's **hit** marks as <mark>, everything else as text (never as HTML)
function highlighted(text) {
  const out = [];
  (text || "").split(/\*\*(.+?)\*\*/s).forEach((part, i) => {
    if (part) out.push(i % 2 ? el("mark", {}, part) : document.createTextNode(part));
  });
  return out;
}

function show(...nodes) { view().replaceChildren(...nodes); }
function failed(err) { show(el("p", { class: "error" }, String(err.message || err))); }
function day(ts) { return ts ? ts.slice(0, 16).replace("T", " ") : ""; }
function link(href, ...children) { return el("a", { href }, ...children); }
function route(path, params = {}) {
  const q = new URLSearchParams(params).toString();
  return `#/${path}${q ? "?" + q : ""}`;
}

// ---------------------------------------------------------------- chats
async function chatsView(params) {
  const filter = el("input", { class: "filter", type: "search", placeholder: "Filter chats by name or person",
                               value: params.get("q") || "", "aria-label": "Filter chats" });
  const list = el("ul", { class: "list", id: "chat-list" });
  show(el("h2", {}, "Chats"), filter, list);
  let pending = 0;
  async function load() {
    const mine = ++pending;
    try {
      const data = await api("chats", { query: filter.value.trim() || undefined, limit: 200 });
      if (mine !== pending) return;
      list.replaceChildren(...data.chats.map(c => el("li", {},
        link(route("chat/" + c.source), el("strong", {}, c.chat)), " ",
        el("span", { class: "badge" }, c.platform), c.group ? el("span", { class: "badge" }, "group") : null,
        el("div", { class: "meta" }, `${c.messages} messages · last ${day(c.last)}`,
           c.participants.length ? ` · ${c.participants.join(", ")}` : ""))));
      if (!data.chats.length) list.replaceChildren(el("li", { class: "muted" }, "No chat matches."));
    } catch (e) { list.replaceChildren(el("li", { class: "error" }, e.message)); }
  }
  let timer = null;
  filter.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(load, 150); });
  await load();
}

// ---------------------------------------------------------------- search
function hitItem(r) {
  return el("li", { class: "hit-item" },
    el("div", {}, link(route("chat/" + r.source, { at: r.id }), el("strong", {}, r.chat)), " ",
       el("span", { class: "badge" }, r.platform), el("span", { class: "meta" }, r.date),
       " ", el("a", { class: "meta", href: route("raw/" + r.id) }, "raw")),
    el("div", {}, r.sender ? el("span", { class: "who" }, r.sender + ": ") : null,
       ...highlighted(r.snippet || r.content)));
}

async function searchView(params) {
  const query = params.get("q") || "";
  const offset = Number(params.get("offset") || 0);
  document.getElementById("search-box").value = query;
  if (!query) { show(el("h2", {}, "Search"), el("p", { class: "muted" }, "Type words above; operators as in `chatmem search`.")); return; }
  show(el("p", { class: "muted" }, "Searching…"));
  try {
    const args = { query, limit: 20 };
    if (offset) args.offset = offset;
    const data = await api("search", args);
    const shown = data.results.length;
    const header = el("h2", {}, `${data.total} match${data.total === 1 ? "" : "es"} for “${query}”`);
    const canPage = (READS.search || []).includes("offset");
    const nav = el("div", { class: "pager" },
      canPage && offset > 0 ? el("button", { id: "previous-page", onclick: () => location.hash = route("search", { q: query, offset: Math.max(0, offset - 20) }) }, "Previous") : null,
      canPage && data.has_more ? el("button", { id: "next-page", onclick: () => location.hash = route("search", { q: query, offset: offset + shown }) }, "Next") : null,
      !canPage && data.has_more ? el("span", { class: "muted" }, `showing the first ${shown}; add words or operators to narrow`) : null);
    show(header, el("ul", { class: "list", id: "hits" }, ...data.results.map(hitItem)),
         shown ? nav : el("p", { class: "muted", id: "nothing-found" }, "Nothing found."));
  } catch (e) { failed(e); }
}

// ---------------------------------------------------------------- one conversation
function messageItem(m) {
  const kind = m.kind && m.kind !== "text" ? el("span", { class: "kind" }, `[${m.deleted ? "deleted" : m.kind}] `) : null;
  const text = m.sender && m.content.startsWith(m.sender + ": ") ? m.content.slice(m.sender.length + 2) : m.content;
  return el("div", { class: "msg" + (m.hit ? " hit" : "") + (m.sender === "me" ? " me" : ""), id: "msg-" + m.id, dataset: { id: m.id } },
    el("div", { class: "meta" }, m.date, " · ", el("a", { href: route("raw/" + m.id) }, "raw")),
    el("span", { class: "who" }, m.sender || "—"), kind, el("span", { class: "text" }, text));
}

async function chatView(source, params) {
  let at = params.get("at");
  try {
    if (!at) {
      const newest = await api("search", { query: "", source, sort: "newest", limit: 1 });
      if (!newest.results.length) { show(el("p", { class: "muted" }, "This chat has no messages.")); return; }
      at = newest.results[0].id;
    }
    const first = await api("context", { memory_id: at, before: params.get("at") ? 10 : PAGE, after: params.get("at") ? 10 : 0 });
    let messages = first.messages;
    const title = el("h2", {}, messages.length ? messages[0].chat : source);
    const box = el("div", { id: "messages" });
    const older = el("button", { id: "older" }, "Older");
    const newer = el("button", { id: "newer" }, "Newer");
    const render = () => box.replaceChildren(...messages.map(messageItem));
    older.addEventListener("click", async () => {
      const data = await api("context", { memory_id: messages[0].id, before: PAGE, after: 0 });
      const extra = data.messages.filter(m => m.id !== messages[0].id).map(m => ({ ...m, hit: false }));
      if (!extra.length) { older.disabled = true; older.textContent = "Start of the chat"; return; }
      messages = extra.concat(messages); render();
    });
    newer.addEventListener("click", async () => {
      const last = messages[messages.length - 1];
      const data = await api("context", { memory_id: last.id, before: 0, after: PAGE });
      const extra = data.messages.filter(m => m.id !== last.id).map(m => ({ ...m, hit: false }));
      if (!extra.length) { newer.disabled = true; newer.textContent = "End of the chat"; return; }
      messages = messages.concat(extra); render();
    });
    render();
    show(title, el("div", { class: "pager" }, older), box, el("div", { class: "pager" }, newer));
    const hit = box.querySelector(".msg.hit");
    if (hit) hit.scrollIntoView({ block: "center" });
  } catch (e) { failed(e); }
}

// ---------------------------------------------------------------- a record, raw
async function rawView(id) {
  try {
    const r = await api("raw", { record_id: id });
    if (r.ok === false) { show(el("p", { class: "error" }, r.error)); return; }
    const rel = r.relations || {};
    const links = [];
    if (rel.chat) links.push(["chat", [rel.chat], x => route("chat/" + x, r.type === "message" ? { at: id } : {})]);
    if (rel.reply_to) links.push(["reply to", [rel.reply_to], x => route("raw/" + x)]);
    for (const key of ["replies", "attachments", "versions"]) if ((rel[key] || []).length) links.push([key, rel[key], x => route("raw/" + x)]);
    show(el("h2", {}, r.title),
      el("table", {}, ...links.map(([name, ids, href]) => el("tr", {}, el("th", {}, name),
        el("td", {}, ...ids.map((x, i) => [i ? ", " : "", link(href(x), x)])))),
        (rel.reactions || []).length ? el("tr", {}, el("th", {}, "reactions"), el("td", {}, rel.reactions.join(", "))) : null),
      el("pre", { class: "raw", id: "raw-content" }, r.content));
  } catch (e) { failed(e); }
}

// ---------------------------------------------------------------- pictures
let plotlyLoading = null;
function loadPlotly() {
  if (window.Plotly) return Promise.resolve();
  plotlyLoading = plotlyLoading || new Promise((resolve, reject) => {
    const s = el("script", { src: "/static/plotly.min.js" });
    s.onload = resolve; s.onerror = () => reject(new Error("the charting library is missing: pip install 'chatmem[web]'"));
    document.head.append(s);
  });
  return plotlyLoading;
}

async function picturesView() {
  show(el("p", { class: "muted" }, "Counting…"));
  try {
    const [data] = await Promise.all([api("activity"), loadPlotly()]);
    const months = el("div", { class: "chart", id: "chart-months" });
    const people = el("div", { class: "chart", id: "chart-people" });
    const heat = el("div", { class: "chart", id: "chart-heat" });
    const years = el("div", { class: "chart", id: "chart-years" });
    const spans = el("div", { class: "chart", id: "chart-spans" });
    show(el("h2", {}, `${data.total.toLocaleString()} messages`), months, people, heat, years, spans);
    const cfg = { displaylogo: false, responsive: true };
    const layout = (title, extra = {}) => ({ title: { text: title }, margin: { t: 40, r: 10, b: 40, l: 50 }, ...extra });
    // the first chart is drawn and shown before the others are built (first paint)
    const nextFrame = () => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
    await Plotly.newPlot(months, Object.entries(data.by_platform).map(([p, ys]) => ({ type: "bar", name: p, x: data.months, y: ys })),
      layout("Messages per month, by platform", { barmode: "stack" }), cfg);
    await nextFrame(); if (!months.isConnected) return; // the reader went elsewhere
    Plotly.newPlot(people, Object.entries(data.by_person).map(([name, ys]) => ({ type: "scatter", mode: "lines", name, x: data.months, y: ys })),
      layout("Messages per month, by person"), cfg);
    await nextFrame(); if (!months.isConnected) return; // the reader went elsewhere
    const hours = [...Array(24).keys()].map(h => `${h}:00`);
    Plotly.newPlot(heat, [{ type: "heatmap", z: data.weekday_hour, x: hours, y: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], colorscale: "Blues", reversescale: true }],
      layout("When you write: weekday by hour", { yaxis: { autorange: "reversed" } }), cfg);
    await nextFrame(); if (!months.isConnected) return; // the reader went elsewhere
    const names = [...new Set(data.top_people_per_year.flatMap(y => y.people.map(p => p.name)))];
    Plotly.newPlot(years, names.map(name => ({ type: "bar", name,
      x: data.top_people_per_year.map(y => String(y.year)),
      y: data.top_people_per_year.map(y => (y.people.find(p => p.name === name) || { messages: 0 }).messages) })),
      layout("The people you talk to most, per year", { barmode: "stack", xaxis: { type: "category" } }), cfg);
    await nextFrame(); if (!months.isConnected) return; // the reader went elsewhere
    // one trace for every person (a gap between people): hundreds of traces would take seconds
    const spanX = [], spanY = [], spanText = [];
    for (const p of data.people) {
      spanX.push(p.first, p.last, null); spanY.push(p.name, p.name, null);
      const text = `${p.name}: ${p.messages} messages`; spanText.push(text, text, null);
    }
    Plotly.newPlot(spans, [{ type: "scatter", mode: "lines+markers", x: spanX, y: spanY, text: spanText,
      hovertemplate: "%{text}<br>%{x}<extra></extra>", showlegend: false }],
      layout("First and last message with each person", { height: Math.max(320, 28 * data.people.length + 80), margin: { t: 40, r: 10, b: 40, l: 140 },
                                                           yaxis: { type: "category", autorange: "reversed" } }), cfg);
    spans.dataset.people = String(data.people.length);
  } catch (e) { failed(e); }
}

// ---------------------------------------------------------------- routing
async function render() {
  const hash = location.hash.replace(/^#\/?/, "") || "chats";
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const [page, ...rest] = path.split("/");
  const arg = decodeURIComponent(rest.join("/"));
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.nav === page);
  if (page === "search") return searchView(params);
  if (page === "chat") return chatView(arg, params);
  if (page === "raw") return rawView(arg);
  if (page === "pictures") return picturesView();
  return chatsView(params);
}

document.addEventListener("DOMContentLoaded", async () => {
  document.getElementById("search-form").addEventListener("submit", ev => {
    ev.preventDefault();
    const q = document.getElementById("search-box").value.trim();
    location.hash = route("search", q ? { q } : {});
  });
  window.addEventListener("hashchange", render);
  try {
    const me = await api("whoami");
    document.getElementById("seat").textContent = me.owner ? "" : `seat: ${me.seat}`;
    READS = me.reads || {};
  } catch (e) { /* the reads below say what is wrong */ }
  render();
});
