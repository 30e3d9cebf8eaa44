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
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, v);
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
// a person's page, from an id, a name as a message shows it, or a handle
function personLink(who, ...children) {
  return el("a", { class: "person", href: route("person/" + encodeURIComponent(who)) }, ...children);
}
function senderNode(sender, cls = "who") {
  if (!sender) return el("span", { class: cls }, "—");
  if (sender === "me") return el("span", { class: cls }, "me");
  return el("span", { class: cls }, personLink(sender, sender));
}
function size(bytes) {
  if (bytes === null || bytes === undefined) return "size unknown";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// ---------------------------------------------------------------- chats
function chatItem(c) {
  return el("li", {},
    link(route("chat/" + c.source), el("strong", {}, c.chat)), " ",
    el("span", { class: "badge" }, c.platform), c.group ? el("span", { class: "badge" }, "group") : null,
    el("div", { class: "meta" }, `${c.messages} messages · last ${day(c.last)}`,
       c.participants.length ? " · " : "",
       ...c.participants.map((p, i) => [i ? ", " : "", personLink(p, p)])));
}

// a list with a filter box: `items(text)` reads and returns the <li>s (the newest typing wins)
async function filteredList(params, { title, label, placeholder, id, nothing, items }) {
  const filter = el("input", { class: "filter", type: "search", placeholder, value: params.get("q") || "", "aria-label": label });
  const list = el("ul", { class: "list", id });
  show(el("h2", {}, title), filter, list);
  let pending = 0;
  async function load() {
    const mine = ++pending;
    try {
      const shown = await items(filter.value.trim() || undefined);
      if (mine !== pending) return;
      list.replaceChildren(...(shown.length ? shown : [el("li", { class: "muted" }, nothing)]));
    } catch (e) { list.replaceChildren(el("li", { class: "error" }, e.message)); }
  }
  let timer = null;
  filter.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(load, 150); });
  await load();
}

function chatsView(params) {
  return filteredList(params, { title: "Chats", label: "Filter chats", placeholder: "Filter chats by name or person",
    id: "chat-list", nothing: "No chat matches.",
    items: async query => (await api("chats", { query, limit: 200 })).chats.map(chatItem) });
}

// ---------------------------------------------------------------- search
function hitItem(r) {
  return el("li", { class: "hit-item" },
    el("div", {}, link(route("chat/" + r.source, { at: r.id }), el("strong", {}, r.chat)), " ",
       el("span", { class: "badge" }, r.platform), el("span", { class: "meta" }, r.date),
       " ", el("a", { class: "meta", href: route("raw/" + r.id) }, "raw")),
    el("div", {}, r.sender ? [senderNode(r.sender), ": "] : null,
       ...highlighted(r.snippet || r.content)),
    attachmentsBox(r));
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
    senderNode(m.sender), kind, el("span", { class: "text" }, text), attachmentsBox(m));
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
    const chatName = messages.length ? messages[0].chat : source;
    const title = el("h2", {}, chatName,
      messages.length && !messages[0].group ? [" ", personLink(chatName, el("span", { class: "badge" }, "person"))] : null);
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

// ---------------------------------------------------------------- attachments
// A message's files, read when they scroll into view, each through read_attachment (images
// scaled down, EXIF dropped, as for the seat), a file a link.
const ATTACHMENT_BYTES = 200000;
const attachmentsSeen = new IntersectionObserver(entries => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    attachmentsSeen.unobserve(entry.target);
    loadAttachments(entry.target);
  }
}, { rootMargin: "200px" });

function attachmentsBox(m) {
  if (!m.attachments || !m.attachments.length || !m.id || m.id.startsWith("c_")) return null;
  const ids = m.attachments.every(a => a.id) ? JSON.stringify(m.attachments.map(a => a.id)) : "";
  const box = el("div", { class: "attachments", dataset: { message: m.id, ids } },
    ...m.attachments.map(a => el("div", { class: "attachment pending" }, `${a.name} · ${a.type}`)));
  attachmentsSeen.observe(box);
  return box;
}

function attachmentNode(a) {
  const label = `${a.name || a.id} · ${a.mime_type || "unknown type"} · ${size(a.size)}`;
  if (a.ok === false) return el("div", { class: "attachment error" }, a.error);
  if (a.image && a.image.data) {
    return el("figure", { class: "attachment image" },
      el("img", { src: `data:${a.image.mime_type};base64,${a.image.data}`, alt: a.name || "image",
                  width: a.image.width, height: a.image.height, loading: "lazy" }),
      el("figcaption", { class: "meta" }, label, " · ", el("a", { href: `/file/${a.id}`, download: a.name || "" }, "download")));
  }
  if (!a.present) {
    return el("div", { class: "attachment missing" }, label, " · ",
      el("span", { class: "muted" }, a.note && a.note.includes("may not read") ? "this seat may not open attachments" : "not on this machine"));
  }
  return el("div", { class: "attachment file" },
    el("a", { href: `/file/${a.id}`, download: a.name || "" }, a.name || a.id),
    el("span", { class: "meta" }, ` · ${a.mime_type || "unknown type"} · ${size(a.size)}`),
    a.note && a.note.startsWith("present but unreadable") ? el("div", { class: "meta" }, a.note) : null);
}

async function loadAttachments(box) {
  try {
    // a message's items carry its attachments' ids; the raw record's relations have them too
    let ids = JSON.parse(box.dataset.ids || "[]");
    if (!ids.length) {
      const raw = await api("raw", { record_id: box.dataset.message, max_chars: 1 });
      ids = (raw.relations && raw.relations.attachments) || [];
    }
    const read = await Promise.all(ids.map(id => api("attachment", { attachment_id: id, max_bytes: ATTACHMENT_BYTES })
      .catch(e => ({ ok: false, id, error: e.message }))));
    box.replaceChildren(...read.map(attachmentNode));
  } catch (e) { box.replaceChildren(el("div", { class: "attachment error" }, e.message)); }
}

// ---------------------------------------------------------------- people
function peopleView(params) {
  return filteredList(params, { title: "People", label: "Filter people", placeholder: "Filter people by name or handle",
    id: "people-list", nothing: "Nobody matches.",
    items: async query => (await api("people", { query, limit: 200 })).people.filter(p => p.person !== "me").map(p => el("li", {},
      personLink(p.person, el("strong", {}, p.name)), " ",
      ...p.platforms.map(x => el("span", { class: "badge" }, x)),
      el("div", { class: "meta" }, `${p.messages} messages`))) });
}

function endLine(label, m) {
  return el("li", {}, el("span", { class: "badge" }, label),
    link(route("chat/" + m.source, { at: m.id }), el("strong", {}, m.chat)), " ",
    el("span", { class: "badge" }, m.platform), el("span", { class: "meta" }, m.date),
    el("div", {}, m.content));
}

async function personView(who, params) {
  const sort = params.get("sort") === "oldest" ? "oldest" : "newest";
  const offset = Number(params.get("offset") || 0);
  const STEP = 20;
  show(el("p", { class: "muted" }, "Looking…"));
  try {
    const p = await api("person", { person: who });
    const here = (extra) => route("person/" + encodeURIComponent(p.person), { sort, ...extra });
    const platforms = el("table", { id: "person-platforms" },
      el("tr", {}, el("th", {}, "platform"), el("th", {}, "handles"), el("th", {}, "shown as"), el("th", {}, "messages from them"), el("th", {}, "chats")),
      ...p.platforms.map(x => el("tr", { dataset: { platform: x.platform } },
        el("td", {}, x.platform), el("td", {}, x.handles.join(", ") || "—"), el("td", {}, x.names.join(", ") || "—"),
        el("td", {}, String(x.messages)), el("td", {}, String(x.chats)))));
    const ends = el("ul", { class: "list", id: "person-ends" },
      p.first ? endLine("first", p.first) : null, p.last && (!p.first || p.last.id !== p.first.id) ? endLine("last", p.last) : null);
    const box = el("ul", { class: "list", id: "person-messages" }, el("li", { class: "muted" }, "Loading…"));
    const pager = el("div", { class: "pager" });
    const order = el("div", { class: "meta" }, "Messages from them on every platform, ",
      sort === "newest" ? ["newest first · ", link(here({ sort: "oldest" }), "oldest first")]
                        : [link(here({ sort: "newest" }), "newest first"), " · oldest first"]);
    show(el("h2", { id: "person-name" }, p.name), el("p", { class: "meta" },
           `${p.messages} messages from them · ${p.platforms.map(x => x.platform).join(", ")}`),
         platforms, el("h3", {}, "First and last message with them"), ends,
         el("h3", {}, "Chats"), el("ul", { class: "list", id: "person-chats" }, ...p.chats.map(chatItem)),
         el("h3", {}, "Their messages"), order, box, pager);
    if (!p.messages) { box.replaceChildren(el("li", { class: "muted" }, "No messages from them.")); return; }
    const args = { query: "", person: p.person, sort, limit: STEP };
    if (offset) args.offset = offset;
    const data = await api("search", args);
    box.replaceChildren(...data.results.map(hitItem));
    pager.replaceChildren(
      offset > 0 ? el("button", { id: "person-previous", onclick: () => location.hash = here({ offset: Math.max(0, offset - STEP) }) }, "Previous") : "",
      el("span", { class: "meta" }, ` ${offset + 1}–${offset + data.results.length} of ${data.total} `),
      data.has_more ? el("button", { id: "person-next", onclick: () => location.hash = here({ offset: offset + data.results.length }) }, "Next") : "");
  } catch (e) {
    show(el("p", { class: "error" }, e.message), el("p", {}, link(route("people", { q: who }), "See the people list")));
  }
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
  if (page === "people") return peopleView(params);
  if (page === "person") return personView(arg, params);
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
