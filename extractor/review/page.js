"use strict";
// The review page: a document list with filters, the selected document's text with every traced span
// highlighted in its field's colour, and the result as a tree. Only the selected document is rendered, so a
// page of thousands of documents opens at once. Document text only ever reaches the page as text nodes.
(function () {
  const palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                   "#7f7f00", "#393b79", "#637939", "#843c39"];
  const colours = new Map();
  const state = { filter: "all", shown: [], current: -1, pointer: null };
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const docs = load().map(clean);

  // The documents on the page, [] when its data cannot be read (a page cut short): the page says so.
  function load() {
    try {
      const data = JSON.parse(document.getElementById("review-data").textContent);
      if (Array.isArray(data)) return data;
    } catch {
      // said on the page, below
    }
    $("title").textContent = "the page's data cannot be read";
    return [];
  }

  // A document with every field of the type the page expects: the page is written from files anyone may have
  // edited, so nothing is trusted, and what is left out is said in the document's notes.
  function clean(raw, i) {
    const d = raw !== null && typeof raw === "object" ? raw : {};
    const str = (x) => (typeof x === "string" ? x : "");
    const list = (x) => (Array.isArray(x) ? x : []);
    const text = str(d.text);
    const span = (s) => Array.isArray(s) && Number.isInteger(s[0]) && Number.isInteger(s[1]) &&
      0 <= s[0] && s[0] <= s[1] && s[1] <= text.length;
    const values = list(d.trace).filter((v) => v !== null && typeof v === "object" &&
      typeof v.pointer === "string" && typeof v.status === "string");
    const trace = values.map((v) => ({ pointer: v.pointer, value: v.value, status: v.status, how: str(v.how),
                                       spans16: list(v.spans16).filter(span) }));
    const notes = list(d.notes).filter((n) => typeof n === "string");
    const lost = list(d.trace).length - values.length +
      values.flatMap((v) => list(v.spans16)).length - trace.flatMap((v) => v.spans16).length;
    if (lost) notes.push(`${lost} trace entries or spans the page cannot read: left out`);
    let error = d.error === undefined ? null : d.error;
    if (error !== null) {  // a bare string (or number) is the error's message
      error = typeof error === "object" ? { type: str(error.type) || "Error", message: str(error.message) } :
        { type: "Error", message: String(error) };
    }
    const num = (x) => (typeof x === "number" && Number.isFinite(x) ? x : null);
    const win = (x) => (Number.isInteger(x) ? x : -1);
    const entries = list(d.conflicts).filter((c) => c !== null && typeof c === "object" &&
      typeof c.pointer === "string");
    const conflicts = entries.map((c) => ({
      pointer: c.pointer, kept: c.kept, window: win(c.window), chosen: c.chosen === true,
      others: list(c.others).filter((o) => o !== null && typeof o === "object")
        .map((o) => ({ value: o.value, window: win(o.window) })),
      candidates: list(c.candidates).filter((o) => o !== null && typeof o === "object")
        .map((o) => ({ value: o.value, window: win(o.window), loglik: num(o.loglik),
                       spans16: list(o.spans16).filter(span) })),
    }));
    if (entries.length < list(d.conflicts).length) {
      notes.push(`${list(d.conflicts).length - entries.length} conflicts the page cannot read: left out`);
    }
    const readings = list(d.readings).filter((r) => r !== null && typeof r === "object")
      .map((r) => ({ window: win(r.window), score: num(r.score), kind: str(r.kind), dropped: r.dropped === true,
                     wrote: r.wrote === undefined ? null : r.wrote }));
    return { name: str(d.name) || `document ${i + 1}`, text, result: d.result, refused: d.refused === true,
             refusal: str(d.refusal), error, trace, notes, conflicts, readings,
             not_found: trace.filter((v) => v.status === "not_found").length };
  }

  // A field's colour: one per member path, array indices aside (/jobs/0/company and /jobs/1/company share).
  function colour(pointer) {
    const field = pointer.replace(/\/\d+(?=\/|$)/g, "");
    if (!colours.has(field)) colours.set(field, palette[colours.size % palette.length]);
    return colours.get(field);
  }

  const FILTERS = {
    all: () => true,
    refused: (d) => d.refused,
    errors: (d) => !!d.error,
    not_found: (d) => d.not_found > 0,
  };

  function renderFilters() {
    const bar = $("filters");
    bar.textContent = "";
    for (const [name, label] of [["all", "All"], ["refused", "Refused"], ["errors", "Errors"],
                                 ["not_found", "Values not found"]]) {
      const button = el("button", "", `${label} (${docs.filter(FILTERS[name]).length})`);
      button.dataset.filter = name;
      button.setAttribute("aria-pressed", String(state.filter === name));
      button.addEventListener("click", () => setFilter(name));
      bar.append(button);
    }
  }

  function setFilter(name) {
    state.filter = name;
    state.shown = docs.map((d, i) => i).filter((i) => FILTERS[name](docs[i]));
    renderFilters();
    renderList();
    show(state.shown.includes(state.current) ? state.current : state.shown.length ? state.shown[0] : -1);
  }

  function renderList() {
    const list = $("docs");
    const items = document.createDocumentFragment();
    for (const i of state.shown) {
      const d = docs[i];
      const li = el("li");
      li.dataset.index = String(i);
      li.setAttribute("role", "option");
      li.append(el("span", "name", d.name));
      if (d.refused) li.append(el("span", "tag refused", "refused"));
      if (d.error) li.append(el("span", "tag error", "error"));
      if (d.not_found) li.append(el("span", "tag missing", `${d.not_found} not found`));
      li.addEventListener("click", () => show(i));
      items.append(li);
    }
    list.textContent = "";
    list.append(items);
  }

  // The text cut at every span boundary; each piece inside spans is one <mark> knowing its fields.
  function renderText(d) {
    const box = $("text");
    box.textContent = "";
    const edges = new Set([0, d.text.length]);
    const spans = [];
    for (const v of d.trace) {
      for (const [start, end] of v.spans16) {
        spans.push({ start, end, pointer: v.pointer });
        edges.add(start);
        edges.add(end);
      }
    }
    const cuts = [...edges].sort((a, b) => a - b);
    const starting = new Map();
    for (const s of spans) {
      if (!starting.has(s.start)) starting.set(s.start, []);
      starting.get(s.start).push(s);
    }
    let open = [];
    const out = document.createDocumentFragment();
    for (let k = 0; k + 1 < cuts.length; k++) {
      const [a, b] = [cuts[k], cuts[k + 1]];
      open = open.filter((s) => s.end > a).concat(starting.get(a) || []);
      const piece = d.text.slice(a, b);
      if (!open.length) {
        out.append(document.createTextNode(piece));
        continue;
      }
      const mark = el("mark", "", piece);
      mark.pointers = open.map((s) => s.pointer);
      mark.dataset.pointers = JSON.stringify(mark.pointers);
      mark.style.setProperty("--c", colour(mark.pointers[mark.pointers.length - 1]));
      mark.addEventListener("click", () => select(mark.pointers[mark.pointers.length - 1], "tree"));
      out.append(mark);
    }
    box.append(out);
  }

  function renderTree(d) {
    const tree = $("tree");
    tree.textContent = "";
    if (d.refused || d.result === null || d.result === undefined) {
      tree.append(el("p", "hint", d.refused ? "No result: the document was refused." : "No result."));
      return;
    }
    const byPointer = new Map(d.trace.map((v) => [v.pointer, v]));
    const root = el("ul");
    const stack = [[d.result, "", "", root]];
    while (stack.length) {
      const [value, key, pointer, parent] = stack.pop();
      const li = el("li");
      parent.append(li);
      if (value !== null && typeof value === "object") {
        li.append(el("span", "key", key ? `${key}${Array.isArray(value) ? ` [${value.length}]` : ""}` : ""));
        const ul = el("ul");
        li.append(ul);
        const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
        for (const [k, v] of entries.reverse()) {
          stack.push([v, k, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, ul]);
        }
        continue;
      }
      const trace = byPointer.get(pointer);
      const leaf = el("span", "leaf");
      leaf.dataset.pointer = pointer;
      if (trace && trace.spans16.length) leaf.style.setProperty("--c", colour(pointer));
      leaf.append(el("span", "key", key ? `${key}: ` : ""), el("span", "value", JSON.stringify(value)));
      if (trace) {
        const badge = el("span", `status ${trace.status}`, trace.status.replace("_", " "));
        badge.title = trace.how ? `${trace.status} (${trace.how}), ${trace.spans16.length} span(s)` : trace.status;
        leaf.append(badge);
      }
      leaf.addEventListener("click", () => select(pointer, "text"));
      li.append(leaf);
    }
    tree.append(root);
  }

  function renderIssues(d) {
    const box = $("issues");
    box.textContent = "";
    if (d.refused) box.append(el("div", "notice refused", `Refused: ${d.refusal || "(no reason given)"}`));
    if (d.error) box.append(el("div", "notice", `${d.error.type}: ${d.error.message}`));
    for (const note of d.notes) box.append(el("div", "notice note", note));
    const missing = d.trace.filter((v) => v.status === "not_found");
    if (missing.length) {
      box.append(el("h2", "", `Values not found in the text (${missing.length})`));
      const ul = el("ul");
      ul.id = "missing";
      for (const v of missing) {
        const li = el("li", "", `${v.pointer}: ${JSON.stringify(v.value)}`);
        li.addEventListener("click", () => select(v.pointer, "tree"));
        ul.append(li);
      }
      box.append(ul);
    }
    renderConflicts(d, box);
    renderReadings(d, box);
  }

  // How each window of a long text read (the target against the likeliest other kind of document, in nats), and
  // what the windows read as another kind wrote: none of it is in the result.
  function renderReadings(d, box) {
    if (!d.readings.length) return;
    const dropped = d.readings.filter((r) => r.dropped).length;
    box.append(el("h2", "", `Windows read as another kind (${dropped} of ${d.readings.length} gave nothing)`));
    const ul = el("ul");
    ul.id = "readings";
    for (const r of d.readings) {
      const score = r.score === null ? "no stretch read" : `${r.score.toFixed(2)} nats against ${r.kind}`;
      const li = el("li", r.dropped ? "dropped" : "", `window ${r.window}: ${score}` +
                    (r.dropped ? ` · dropped, it wrote ${JSON.stringify(r.wrote)}` : ""));
      ul.append(li);
    }
    box.append(ul);
  }

  // Where a long text's windows wrote different values for a member: the value kept, whether the model chose it
  // among the candidates (each with its window and log-likelihood) or the merge kept it, and the other values.
  function renderConflicts(d, box) {
    if (!d.conflicts.length) return;
    box.append(el("h2", "", `Windows disagreed (${d.conflicts.length})`));
    const ul = el("ul");
    ul.id = "conflicts";
    for (const c of d.conflicts) {
      const how = c.chosen ? "chosen by the model" : "kept by the merge";
      const li = el("li", "", `${c.pointer}: ${JSON.stringify(c.kept)} (${how}, window ${c.window})`);
      li.addEventListener("click", () => select(c.pointer, "tree"));
      const rows = c.candidates.length ? c.candidates : c.others.map((o) => ({ ...o, loglik: null, spans16: [] }));
      const sub = el("ul", "candidates");
      for (const x of rows) {
        const said = x.window < 0 ? "null" : `window ${x.window}`;
        const ll = x.loglik === null ? "" : ` · log-likelihood ${x.loglik.toFixed(2)}`;
        const row = el("li", JSON.stringify(x.value) === JSON.stringify(c.kept) ? "kept" : "",
                       `${JSON.stringify(x.value)} · ${said}${ll}`);
        sub.append(row);
      }
      li.append(sub);
      ul.append(li);
    }
    box.append(ul);
  }

  function show(i) {
    state.current = i;
    state.pointer = null;
    for (const li of $("docs").children) li.setAttribute("aria-selected", String(Number(li.dataset.index) === i));
    const d = docs[i];
    if (!d) {
      for (const id of ["text", "tree", "issues"]) $(id).textContent = "";
      $("title").textContent = "no document";
      return;
    }
    $("title").textContent = d.name;
    try {
      renderText(d);
      renderTree(d);
      renderIssues(d);
    } catch (error) {  // a document the checks above let through: it alone is not shown
      $("issues").prepend(el("div", "notice broken", `This document cannot be shown: ${error}`));
    }
    const row = $("docs").querySelector(`li[data-index="${i}"]`);
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  // A field selected: its highlights and its tree entry marked, the other side scrolled to it.
  function select(pointer, scroll) {
    state.pointer = pointer;
    let first = null;
    for (const mark of $("text").querySelectorAll("mark")) {
      const on = mark.pointers.includes(pointer);
      mark.classList.toggle("active", on);
      if (on && !first) first = mark;
    }
    let leaf = null;
    for (const node of $("tree").querySelectorAll(".leaf")) {
      const on = node.dataset.pointer === pointer;
      node.classList.toggle("active", on);
      if (on) leaf = node;
    }
    if (scroll === "text" && first) first.scrollIntoView({ block: "center" });
    if (scroll === "tree" && leaf) leaf.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey || event.altKey) return;
    const at = state.shown.indexOf(state.current);
    if (["ArrowDown", "j"].includes(event.key) && at + 1 < state.shown.length) show(state.shown[at + 1]);
    else if (["ArrowUp", "k"].includes(event.key) && at > 0) show(state.shown[at - 1]);
    else return;
    event.preventDefault();
  });

  const values = docs.flatMap((d) => d.trace);
  const count = (status) => values.filter((v) => v.status === status).length;
  $("summary").textContent = `${docs.length} documents · ${docs.filter(FILTERS.refused).length} refused · ` +
    `${docs.filter(FILTERS.errors).length} errors · ${values.length} values: ${count("copied")} copied, ` +
    `${count("found")} found, ${count("not_found")} not found`;
  setFilter("all");
  window.review = { docs, show, select, setFilter, state };
})();
