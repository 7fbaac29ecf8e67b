// finrag's answer page (served by `finrag serve` at / and /documents; see app/web.py and docs/serving.md).
// No framework, no network beyond this server: answers stream from POST /{system}/stream_events (a turn of a
// conversation from POST /{system}/stream on a thread: conversation.js, inlined below), pages come from
// /documents/{id}/pages/{n}. Text from the index or an answer is only ever set as textContent.
"use strict";
(() => {
  const CFG = window.FINRAG;
  const $ = (id) => document.getElementById(id);
  const KEY = "finrag.apiKey";
  const GENERIC_500 = "Internal Server Error";
  const NO_ROUTE = new Set(["fallback_no_tickers", "fallback_low_confidence", "which_company"]);
  const MISSING = new Set(["company_not_indexed", "period_not_in_index"]);
  let filings = null; // {doc_id: identity} once /documents has answered
  let filingsPromise = null;
  let runs = []; // the runs on the page: one question's (one system, or two side by side), or every turn's

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c != null && c !== false) e.append(c instanceof Node ? c : String(c));
    return e;
  }
  const enc = encodeURIComponent;
  const fmt = (n) => (n == null ? "-" : Number(n).toLocaleString("en-US"));
  const ms = (n) => (n == null ? "-" : n >= 1000 ? (n / 1000).toFixed(2) + " s" : Math.round(n) + " ms");
  const possessive = (name) => (/s$/i.test(name) ? `${name}'` : `${name}'s`);

  function apiKey() { return sessionStorage.getItem(KEY) || ""; }
  function headers(extra) {
    const h = Object.assign({}, extra || {});
    if (apiKey()) h["X-API-Key"] = apiKey();
    return h;
  }
  class HttpError extends Error {
    constructor(status, detail) { super(detail); this.status = status; }
  }
  async function detailOf(resp) {
    try {
      const j = await resp.json();
      return typeof j.detail === "string" ? j.detail : JSON.stringify(j.detail || j);
    } catch (_) { return resp.statusText || "no detail"; }
  }
  async function getJSON(url) {
    let resp;
    try { resp = await fetch(url, { headers: headers({ Accept: "application/json" }) }); }
    catch (err) { throw new HttpError(0, String(err.message || err)); }
    if (!resp.ok) throw new HttpError(resp.status, await detailOf(resp));
    return resp.json();
  }
  function explain(err) {
    const s = err.status, d = err.message || String(err);
    if (s === 401) return `This server needs an API key (401: ${d}). Enter it with the "API key" button at the top.`;
    if (s === 422) return /question is empty/.test(d) ? "Type a question first: the question is empty." : `The request was refused (422): ${d}`;
    if (s === 413) return `The request is too large (413): ${d}`;
    if (s === 429 || s === 503) return `The server is busy or not ready (${s}): ${d}. Try again in a moment.`;
    if (s === 502) return `The language model failed (502): ${d}`;
    if (s === 504) return `The answer took too long (504): ${d}`;
    if (s === 404) return `Not found (404): ${d}`;
    if (s === 409) return `The conversation is busy (409): ${d}. Ask again when its other question has been answered.`;
    if (s) return `The server answered ${s}: ${d}`;
    return `No answer from the server (${d}). Is finrag serve still running?`;
  }
  function banner(text, kind) {
    const b = $("banner");
    b.hidden = !text;
    b.className = "message" + (kind ? " " + kind : "");
    b.textContent = text || "";
  }
  function needKey(show) {
    $("key-panel").hidden = !show;
    if (show) $("key-input").focus();
  }

  // ------------------------------------------------------------------ filings
  function loadFilings() {
    if (!filingsPromise) {
      filingsPromise = getJSON("/documents").then((data) => {
        filings = {};
        for (const d of data.documents) filings[d.doc_id] = d;
        const companies = new Set(data.documents.map((d) => d.fields.company.value));
        $("index-info").textContent = `${data.count} filings, ${companies.size} companies indexed`;
        return data;
      }).catch((err) => {
        filingsPromise = null;
        if (err.status === 401) needKey(true);
        throw err;
      });
    }
    return filingsPromise;
  }
  const companyOf = (doc) => (filings && filings[doc] ? filings[doc].fields.company.value : null);

  // ------------------------------------------------------------- citations
  const CITE = /\[([^[\]]{3,300})\]/g;
  // the answer's citations count pages as a PDF viewer does (from 1), with the filing's printed number when it
  // differs: "[DOC, p. 45 (printed 43)]"; /page/DOC/N and the contexts' page_start count from 0
  const PART = /^\s*([^,;[\]]+?)\s*,?\s+pp?\.\s*(\d+)(?:\s*[-\u2013]\s*(\d+))?(?:\s*\(printed [^()[\];]{1,40}\))?\s*$/;
  const NUMBER = /\(?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?|\(?\$?\d+\.\d+\)?/g;

  function sentenceBefore(text, at) {
    const head = text.slice(0, at);
    const cut = Math.max(head.lastIndexOf("]"), head.search(/[.!?]\s+[^.!?]*$/));
    return head.slice(cut + 1);
  }
  function marksFor(sentence, run, doc, page) {
    const marks = [];
    for (const m of sentence.matchAll(NUMBER)) marks.push(m[0].replace(/[()$]/g, ""));
    for (const m of sentence.matchAll(/'([^']{3,60})'/g)) marks.push(m[1]);
    for (const inp of (run.contract.reader || {}).inputs || []) {
      if (inp.doc_id === doc && inp.page === page && inp.label) marks.push(inp.label);
    }
    return [...new Set(marks)].slice(0, 6);
  }
  function pickChunk(run, doc, page, marks) {
    const here = (run.contract.contexts || []).filter((c) => c.doc_id === doc && c.chunk_id != null
      && c.page_start <= page && page <= c.page_end);
    const withMark = here.find((c) => marks.some((m) => /\d/.test(m) && c.text.includes(m)));
    return (withMark || here[0] || {}).chunk_id ?? null;
  }
  function knownDoc(doc, run) {
    if (filings) return doc in filings;
    return (run.contract.contexts || []).some((c) => c.doc_id === doc) || /^[\w.&-]+$/.test(doc);
  }
  function chip(doc, page, last, opts) { // page, last: zero-based; the label counts as a viewer does
    const label = opts.shown ? `[${opts.shown}]`
      : last != null && last !== page ? `[${doc}, pp. ${page + 1}-${last + 1}]` : `[${doc}, p. ${page + 1}]`;
    const b = el("button", { type: "button", class: "chip" + (opts.other ? " other" : ""), text: label,
      title: `Open ${doc}, page ${page + 1} of the file` });
    b.dataset.doc = doc;
    b.dataset.page = page;
    b.addEventListener("click", () => {
      document.querySelectorAll(".chip.open").forEach((c) => c.classList.remove("open"));
      b.classList.add("open");
      openViewer({ doc, page, chunk: opts.chunk ?? null, marks: opts.marks || [] });
    });
    return b;
  }
  function renderAnswer(target, run) {
    const text = run.turn ? splitAnswering(run.contract.answer || "").body : run.contract.answer || "";
    const asked = askedDocs(run);
    target.replaceChildren();
    let last = 0;
    for (const m of text.matchAll(CITE)) {
      const parts = m[1].split(";").map((p) => p.match(PART));
      if (!parts.every(Boolean) || !parts.every((p) => knownDoc(p[1].trim(), run))) continue;
      target.append(text.slice(last, m.index));
      const sentence = sentenceBefore(text, m.index);
      for (const p of parts) {
        const doc = p[1].trim(), page = Number(p[2]) - 1;
        const marks = marksFor(sentence, run, doc, page);
        target.append(chip(doc, page, p[3] ? Number(p[3]) - 1 : null,
          { marks, chunk: pickChunk(run, doc, page, marks), other: asked.size > 0 && !asked.has(doc),
            shown: p[0].trim() }));
      }
      last = m.index + m[0].length;
    }
    target.append(text.slice(last));
  }

  // --------------------------------------------------------------- one run
  function askedDocs(run) { // the filings routed for the question `run` answers (by any of its systems)
    const asked = new Set();
    for (const r of (run && run.peers) || runs) for (const d of ((r.contract.routing || {}).routed_docs || [])) asked.add(d);
    return asked;
  }

  class Run {
    // opts.thread: a turn of that conversation (POST /{system}/stream with config.configurable.thread_id);
    // opts.heading: the card's heading element (h3 inside a turn). A turn read back from its thread (GET
    // /threads/{id}: answer, routing, citations; no contexts or cost) is a Run with `restored` set.
    constructor(system, question, opts) {
      opts = opts || {};
      this.system = system;
      this.question = question;
      this.thread = opts.thread || null;
      this.peers = [this];
      this.contract = {};
      this.tokens = "";
      this.done = false;
      this.error = null;
      this.state = el("span", { class: "state", text: "asking..." });
      this.errorBox = el("div", { class: "error-box", role: "alert", hidden: true });
      this.notice = el("div", { class: "notice", hidden: true });
      this.answer = el("div", { class: "answer" });
      this.routing = el("details", { class: "routing", open: true, hidden: true });
      this.contexts = el("details", { class: "contexts", hidden: true });
      this.cost = el("details", { class: "cost", hidden: true });
      this.card = el("section", { class: "result", "data-system": system || null, "data-state": "asking" },
        el(opts.heading || "h2", {}, system ? system.toUpperCase() : "Answer",
          el("span", { class: "note", text: CFG.notes[system] || "" }), this.state),
        this.errorBox, this.notice, this.answer, this.routing, this.contexts, this.cost);
    }

    body() { // the request's body: the question, and the thread for a turn of a conversation
      const body = { input: { question: this.question } };
      if (this.thread) body.config = { configurable: { thread_id: this.thread } };
      return body;
    }

    async start() {
      this.t0 = performance.now();
      try {
        let resp;
        try {
          resp = await fetch(`/${this.system}/${this.thread ? "stream" : "stream_events"}`, {
            method: "POST",
            headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
            body: JSON.stringify(this.thread ? this.body() : Object.assign(this.body(),
              { include_names: ["/" + this.system], include_types: ["chat_model"] })),
          });
        } catch (err) { throw new HttpError(0, String(err.message || err)); }
        if (!resp.ok) throw new HttpError(resp.status, await detailOf(resp));
        await this.read(resp.body);
        if (!this.done) throw new HttpError(0, "the answer stream ended before the answer");
      } catch (err) {
        if (err.generic) { // LangServe's stream hides why: ask once more without streaming to learn it
          try { await this.invoke(); return; } catch (again) { err = again; }
        }
        this.fail(err);
      }
    }

    async invoke() {
      const resp = await fetch(`/${this.system}/invoke`, { method: "POST",
        headers: headers({ "Content-Type": "application/json" }),
        body: JSON.stringify(this.body()) });
      if (!resp.ok) throw new HttpError(resp.status, await detailOf(resp));
      this.merge((await resp.json()).output);
    }

    async read(body) {
      const reader = body.getReader();
      const decoder = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf = (buf + decoder.decode(value, { stream: true })).replace(/\r\n/g, "\n");
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          this.onEvent(block);
        }
      }
    }

    onEvent(block) {
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (event === "error") {
        let e = {};
        try { e = JSON.parse(data.join("\n")); } catch (_) { /* keep the defaults */ }
        const err = new HttpError(e.status_code || 500, e.message || "the stream failed");
        err.generic = err.status === 500 && err.message === GENERIC_500;
        throw err;
      }
      if (event !== "data" || !data.length) return;
      if (this.thread) { this.merge(JSON.parse(data.join("\n"))); return; } // /stream: the contract's pieces
      const ev = JSON.parse(data.join("\n"));
      const node = (ev.metadata || {}).langgraph_node;
      if (ev.event === "on_chain_stream" && ev.name === "/" + this.system) this.merge(ev.data.chunk);
      else if (ev.event === "on_chat_model_start" && node === "generate") this.tokens = "";
      else if (ev.event === "on_chat_model_stream" && node === "generate" && !this.done) {
        const c = ev.data.chunk.content;
        this.tokens += typeof c === "string" ? c : (c || []).map((p) => p.text || "").join("");
        this.card.dataset.tokens = Number(this.card.dataset.tokens || 0) + 1;
        this.answer.textContent = this.tokens;
        this.answer.classList.add("streaming");
        this.card.dataset.state = "streaming";
      }
    }

    merge(piece) {
      // /stream's pieces add up: the generator's tokens come as {answer} pieces, then the rest of the contract
      // (`cost` and the others; `answer` there too when no token streamed, or `answer_replaced`)
      const streamed = this.contract.answer || "";
      Object.assign(this.contract, piece);
      if ("answer" in piece) this.contract.answer = streamed + piece.answer;
      if ("answer_replaced" in piece) this.contract.answer = piece.answer_replaced;
      if (this.turn) this.turn.update();
      if (this.thread && ("answer" in piece || "answer_replaced" in piece) && !("cost" in piece)) { // /stream's tokens
        this.card.dataset.tokens = Number(this.card.dataset.tokens || 0) + 1;
        this.answer.textContent = splitAnswering(this.contract.answer).body;
        this.answer.classList.add("streaming");
        this.card.dataset.state = "streaming";
      }
      if ("routing" in piece) { renderRouting(this); this.setState("routed, retrieving..."); }
      if ("cost" in piece) {
        this.done = true;
        this.ms = performance.now() - this.t0;
        this.answer.classList.remove("streaming");
        this.card.dataset.state = "done";
        this.card.dataset.ms = Math.round(this.ms);
        this.setState(`answered in ${ms(this.ms)}`);
        renderAll();
        announce(this);
      }
    }

    setState(text) { this.state.textContent = text; }

    fail(err) {
      this.error = err;
      this.errorBox.hidden = false;
      this.errorBox.textContent = explain(err);
      this.answer.classList.remove("streaming");
      this.card.dataset.state = "error";
      this.setState("no answer");
      if (err.status === 401) needKey(true);
    }
  }

  // ---------------------------------------------------------------- panels
  function renderAll() {
    for (const r of runs) {
      if (!r.done) continue;
      renderAnswer(r.answer, r);
      renderRouting(r);
      renderContexts(r);
      renderCost(r);
    }
  }

  function docButton(doc, page) {
    return el("button", { type: "button", class: "chip", text: doc, title: `Open ${doc}`,
      onclick: () => openViewer({ doc, page: page || 0, chunk: null, marks: [] }) });
  }

  function fallbackText(run) {
    const r = run.contract.routing || {};
    const ctx = run.contract.contexts || [];
    const docs = [...new Set(ctx.map((c) => c.doc_id))];
    if ((r.routed_docs || []).length) return "none (routed)";
    if (r.status === "not_routed") return `no routing step: searched the whole index (contexts from ${docs.length} filing${docs.length === 1 ? "" : "s"})`;
    if (!ctx.length) return "no retrieval: the answer says why";
    return `no route: searched ${docs.length === 1 ? "one filing, " + docs[0] : docs.length + " filings"}`;
  }

  function renderRouting(run) {
    const r = run.contract.routing;
    if (!r) return;
    const words = CFG.statuses[r.status] || r.status;
    const kind = MISSING.has(r.status) ? "missing" : NO_ROUTE.has(r.status) ? "none" : (r.routed_docs || []).length ? "routed" : "";
    const x = r.extracted || {};
    const rows = [["Status", el("span", {}, el("span", { class: "status " + kind, text: r.status }), " ", words)]];
    if (r.reason) rows.push(["Reason", r.reason]);
    const inherited = Object.entries((run.contract.conversation || {}).inherited || {});
    if (inherited.length) rows.push(["From earlier turns", inherited.map(([slot, n]) => `${slot} (turn ${n})`).join(", ")]);
    rows.push(["Routed filings", (r.routed_docs || []).length ? el("span", {}, ...(r.routed_docs.map((d) => docButton(d)))) : "none"]);
    if (r.confidence != null) rows.push(["Confidence", `${Math.round(r.confidence * 100)}%`]);
    const asked = [(x.companies || []).join(", "), (x.tickers || []).join(", "), (x.periods || []).join(", ") || (x.years || []).join(", "),
      (x.forms || []).join(", ")].filter(Boolean).join(" | ");
    if (asked) rows.push(["Found in the question", asked]);
    if ((x.not_indexed || []).length) rows.push(["Not in the index", el("strong", { text: x.not_indexed.join(", ") })]);
    if (run.done && !run.restored) rows.push(["Fallback", fallbackText(run)]);
    if ((run.contract.offline_fallback || []).length) rows.push(["LLM fell back", `offline answer for: ${run.contract.offline_fallback.join(", ")}`]);
    const v = run.contract.verification;
    if (v) rows.push(["Verification", `${v.belongs ? "chunks belong to the company" : "chunks do not belong"} (attempt ${v.attempt}, ${v.retries} retries): ${v.reason}`]);
    if (run.contract.retrieval && run.contract.retrieval.note) rows.push(["Retrieval", run.contract.retrieval.note]);
    const panel = el("div", { class: "panel" }, el("dl", {}, ...rows.flatMap(([k, val]) => [el("dt", { text: k }), el("dd", {}, val)])));
    const cands = x.candidates || [];
    if (cands.length) {
      panel.append(el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "Candidate company" }), el("th", { text: "In the index" }),
        el("th", { class: "num", text: "Confidence" }), el("th", { text: "Reason" }))),
      el("tbody", {}, ...cands.map((c) => el("tr", {}, el("td", { text: c.name || c.text }), el("td", { text: c.in_index ? "yes" : "no" }),
        el("td", { class: "num", text: c.confidence != null ? c.confidence.toFixed(2) : "-" }), el("td", { text: c.reason || "" }))))));
    }
    run.routing.hidden = false;
    run.routing.replaceChildren(el("summary", {}, "Routing ", el("span", { class: "status " + kind, text: r.status }),
      run.turn && (r.routed_docs || []).length ? el("span", { class: "muted", text: ` ${r.routed_docs.join(", ")}` }) : null), panel);
    const say = `${words}${(x.not_indexed || []).length ? ": " + x.not_indexed.join(", ") : ""}.`;
    run.notice.hidden = !(kind === "missing" || kind === "none");
    if (!run.notice.hidden) run.notice.textContent = say.charAt(0).toUpperCase() + say.slice(1);
    const offered = ((x.fallback || {}).candidates || []).filter((c) => c.question);
    if (offered.length) { // no filing chosen (issue 48): the candidates set aside as one-click choices
      run.notice.hidden = false;
      run.notice.append(" Did you mean: ", ...offered.map((c) => el("button", { type: "button", class: "chip",
        text: c.ticker ? `${c.name} (${c.ticker})` : c.name, title: `Ask: ${c.question}`,
        onclick: () => { $("question").value = c.question; ask(); } })));
    }
  }

  function renderContexts(run) {
    if (run.restored) { renderCitations(run); return; }
    const ctx = run.contract.contexts || [];
    const asked = askedDocs(run);
    const askedCompanies = new Set([...asked].map(companyOf).filter(Boolean));
    let fromAsked = 0;
    const items = ctx.map((c) => {
      let tag = null;
      if (asked.size) {
        const own = asked.has(c.doc_id);
        fromAsked += own ? 1 : 0;
        const same = !own && askedCompanies.has(companyOf(c.doc_id));
        tag = el("span", { class: "from " + (own ? "asked" : "other"),
          text: own ? "asked filing" : same ? "same company, other filing" : "other company" });
      }
      const pages = c.pages || (c.page_start === c.page_end ? `p. ${c.page_start + 1}` : `pp. ${c.page_start + 1}-${c.page_end + 1}`);
      return el("li", {}, chip(c.doc_id, c.page_start, c.page_end, { chunk: c.chunk_id, marks: [], other: asked.size > 0 && !asked.has(c.doc_id) }),
        " ", el("span", { class: "muted", text: `${pages}, score ${Number(c.score).toFixed(3)}` }), " ", tag,
        el("span", { class: "snippet", text: (c.text || "").replace(/\s+/g, " ").slice(0, 160) }));
    });
    const routes = run.peers.some((r) => r.contract.routing && r.contract.routing.status !== "not_routed");
    const summary = asked.size ? `${ctx.length}; ${fromAsked} from the asked filing`
      : `${ctx.length}; ${routes ? "no filing was routed" : "asked filing unknown: no system here routes"}`;
    const others = ctx.filter((c) => asked.size && !asked.has(c.doc_id));
    const otherCompanies = others.filter((c) => !askedCompanies.has(companyOf(c.doc_id))).length;
    if (others.length && run.notice.hidden) {
      run.notice.hidden = false;
      run.notice.textContent = `${others.length} of ${ctx.length} passages come from other filings than the asked one`
        + (otherCompanies ? ` (${otherCompanies} from other companies).` : ".");
    }
    run.contexts.hidden = false;
    run.contexts.replaceChildren(el("summary", {}, "Contexts ", el("span", { class: "muted", text: `(${summary})` })),
      ctx.length ? el("ol", {}, ...items) : el("p", { class: "muted", text: "No passage was retrieved." }));
    run.card.dataset.fromAsked = fromAsked;
  }

  function renderCost(run) {
    if (run.restored) return; // a thread keeps no cost
    const c = run.contract.cost || {};
    const t = run.contract.timings_ms || {};
    const nodes = Object.entries(t).filter(([k]) => k !== "total");
    const panel = el("div", { class: "panel" },
      el("table", {}, el("tbody", {},
        ...[["LLM calls", c.llm_calls], ["Prompt tokens", c.prompt_tokens], ["Completion tokens", c.completion_tokens],
          ["Context tokens", c.context_tokens], ["LLM calls saved by the statement reader", c.llm_calls_saved]]
          .map(([k, v]) => el("tr", {}, el("td", { text: k }), el("td", { class: "num", text: fmt(v) }))))),
      (c.calls || []).length ? el("table", {}, el("thead", {}, el("tr", {}, ...["Call", "Model", "Prompt", "Completion", "Error"].map((h) => el("th", { text: h })))),
        el("tbody", {}, ...c.calls.map((k) => el("tr", {}, el("td", { text: k.role }), el("td", { text: k.model }), el("td", { class: "num", text: fmt(k.prompt_tokens) }),
          el("td", { class: "num", text: fmt(k.completion_tokens) }), el("td", { text: k.error || "" }))))) : null,
      el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "Node" }), el("th", { class: "num", text: "Time" }))),
        el("tbody", {}, ...nodes.map(([k, v]) => el("tr", {}, el("td", { text: k }), el("td", { class: "num", text: ms(v) }))),
          el("tr", {}, el("td", {}, el("strong", { text: "total (server)" })), el("td", { class: "num", text: ms(t.total) })),
          el("tr", {}, el("td", { text: "in this page (request to answer)" }), el("td", { class: "num", text: ms(run.ms) })))));
    run.cost.hidden = false;
    run.cost.replaceChildren(el("summary", {}, "Cost ", el("span", { class: "muted",
      text: `(${fmt(c.llm_calls)} LLM calls, ${fmt((c.prompt_tokens || 0) + (c.completion_tokens || 0))} LLM tokens, ${fmt(c.context_tokens)} context tokens, ${ms(t.total)})` })), panel);
  }

  // ----------------------------------------------------------------- asking
  async function ask(ev) {
    if (ev) ev.preventDefault();
    if (conv.on) return askTurn();
    const question = $("question").value;
    const systems = [$("system-a").value];
    if ($("compare").checked && $("system-b").value !== systems[0]) systems.push($("system-b").value);
    const params = new URLSearchParams({ q: question, s: systems[0] });
    if (systems[1]) params.set("vs", systems[1]);
    history.replaceState(null, "", "/?" + params);
    closeViewer();
    runs = systems.map((s) => new Run(s, question));
    for (const r of runs) r.peers = runs;
    const results = $("results");
    results.className = "results" + (runs.length === 2 ? " two" : "");
    results.replaceChildren(...runs.map((r) => r.card));
    $("ask-button").disabled = true;
    try { await Promise.all(runs.map((r) => r.start())); } finally { $("ask-button").disabled = false; }
  }

  function setupAsk() {
    for (const id of ["system-a", "system-b"]) {
      $(id).replaceChildren(...CFG.systems.map((s) => el("option", { value: s, text: s.toUpperCase(), title: CFG.notes[s] || "" })));
    }
    const url = new URLSearchParams(location.search);
    $("system-a").value = CFG.systems.includes(url.get("s")) ? url.get("s") : CFG.default;
    $("system-b").value = CFG.systems.includes(url.get("vs")) ? url.get("vs") : CFG.compare;
    $("compare").checked = CFG.systems.includes(url.get("vs"));
    const notes = () => {
      $("note-a").textContent = CFG.notes[$("system-a").value] || "";
      $("note-b").textContent = $("compare").checked ? CFG.notes[$("system-b").value] || "" : "";
    };
    for (const id of ["system-a", "system-b", "compare"]) $(id).addEventListener("change", notes);
    notes();
    setupConversation(!url.get("q"));
    $("ask-form").addEventListener("submit", ask);
    $("question").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); ask(); } });
    loadFilings().then((data) => {
      renderAll();
      const byCompany = {};
      for (const d of data.documents) (byCompany[d.fields.company.value] ||= []).push(d);
      const names = Object.keys(byCompany);
      const examples = [];
      if (names.length) {
        const d = byCompany[names[0]].slice(-1)[0];
        examples.push(`What was ${possessive(names[0])} total revenue in FY${d.fields.period.value}?`);
      }
      if (names.length > 1) examples.push(`What were ${possessive(names[1])} capital expenditures in ${byCompany[names[1]][0].fields.period.value}?`);
      examples.push("What was Globex Corp's revenue in 2022?");
      $("examples").replaceChildren(el("span", { class: "muted", text: "Try:" }), ...examples.map((q) =>
        el("button", { type: "button", text: q, onclick: () => { $("question").value = q; $("question").focus(); } })));
    }).catch((err) => banner(explain(err)));
    if (url.get("q")) { $("question").value = url.get("q"); ask(); }
  }

/*CONVERSATION_JS*/

  // ----------------------------------------------------------------- viewer
  const V = { doc: null, page: 0, chunk: null, marks: [], mode: "image", view: null, seq: 0 };
  const images = new Map(); // image URL -> blob URL (fetched with the API key header)

  async function imageURL(url) {
    if (images.has(url)) return images.get(url);
    const resp = await fetch(url, { headers: headers() });
    if (!resp.ok) throw new HttpError(resp.status, await detailOf(resp));
    const blobURL = URL.createObjectURL(await resp.blob());
    images.set(url, blobURL);
    if (images.size > 60) { const [k, v] = images.entries().next().value; URL.revokeObjectURL(v); images.delete(k); }
    return blobURL;
  }

  function openViewer(opts) {
    Object.assign(V, opts);
    $("viewer").hidden = false;
    showPage();
  }
  function closeViewer() {
    $("viewer").hidden = true;
    document.querySelectorAll(".chip.open").forEach((c) => c.classList.remove("open"));
  }

  async function showPage() {
    const seq = ++V.seq;
    const frame = $("page-frame");
    frame.dataset.state = "loading";
    $("viewer-title").textContent = V.doc;
    $("viewer-sub").textContent = "";
    $("viewer-page").textContent = `p. ${V.page + 1}`;
    const q = new URLSearchParams({ zoom: CFG.zoom });
    if (V.chunk != null) q.set("chunk", V.chunk);
    for (const m of V.marks || []) q.append("mark", m);
    const t0 = performance.now();
    let view;
    try {
      view = await getJSON(`/documents/${enc(V.doc)}/pages/${V.page}?${q}`);
    } catch (err) {
      if (seq !== V.seq) return;
      showNote(explain(err));
      frame.hidden = true;
      $("page-text").hidden = true;
      frame.dataset.state = "error";
      return;
    }
    if (seq !== V.seq) return;
    V.view = view;
    $("viewer-title").textContent = view.label;
    $("viewer-sub").textContent = `${view.doc_id} (${view.kind.toUpperCase()})`;
    $("viewer-page").textContent = `p. ${view.page + 1} of ${view.n_pages}`
      + (view.printed && view.printed !== String(view.page + 1) ? ` (printed ${view.printed})` : "");
    $("viewer-prev").disabled = view.prev == null;
    $("viewer-next").disabled = view.next == null;
    $("viewer-file").href = view.file + (view.kind === "pdf" ? `#page=${view.page + 1}` : "");
    $("viewer-mode").hidden = view.view !== "image";
    $("viewer-mode").textContent = V.mode === "image" ? "Text" : "Image";
    const found = view.boxes.length || view.spans.length;
    showNote([view.note, V.chunk != null && !view.passage.found && !view.boxes.length ? "the cited passage is not on this page" : "",
      !found && V.chunk == null && (V.marks || []).length ? "nothing to highlight on this page" : ""].filter(Boolean).join("; "));
    if (view.view === "image" && V.mode === "image") {
      $("page-text").hidden = true;
      try {
        const src = await imageURL(view.image);
        if (seq !== V.seq) return;
        const img = $("page-img");
        await new Promise((resolve) => { img.onload = img.onerror = resolve; img.src = src; });
        if (seq !== V.seq) return;
        frame.hidden = false;
        drawBoxes(view);
        frame.dataset.state = "ready";
        frame.dataset.ms = Math.round(performance.now() - t0);
      } catch (err) {
        showNote(explain(err));
        frame.dataset.state = "error";
      }
    } else {
      frame.hidden = true;
      showText(view);
      frame.dataset.state = "ready";
      frame.dataset.ms = Math.round(performance.now() - t0);
    }
  }

  function showNote(text) {
    $("viewer-note").hidden = !text;
    $("viewer-note").textContent = text || "";
  }

  function drawBoxes(view) {
    const layer = $("page-boxes");
    layer.replaceChildren(...view.boxes.map((b) => {
      const d = el("div", { class: "hl " + b.kind });
      Object.assign(d.style, { left: `${b.x * 100}%`, top: `${b.y * 100}%`, width: `${b.w * 100}%`, height: `${b.h * 100}%` });
      return d;
    }));
    const first = layer.querySelector(".hl.mark") || layer.querySelector(".hl");
    if (first) first.scrollIntoView({ block: "center" });
  }

  function showText(view) {
    const pre = $("page-text");
    const text = view.text;
    const cuts = new Set([0, text.length]);
    for (const [a, b] of view.spans) { cuts.add(a); cuts.add(b); }
    const points = [...cuts].sort((x, y) => x - y);
    pre.replaceChildren();
    for (let i = 0; i + 1 < points.length; i++) {
      const [a, b] = [points[i], points[i + 1]];
      const kinds = view.spans.filter(([s, e]) => s <= a && b <= e).map((s) => s[2]);
      const part = text.slice(a, b);
      pre.append(kinds.length ? el("mark", { class: kinds.includes("mark") ? "mark" : "passage", text: part }) : part);
    }
    pre.hidden = false;
    const first = pre.querySelector("mark.mark") || pre.querySelector("mark");
    if (first) first.scrollIntoView({ block: "center" });
  }

  function setupViewer() {
    $("viewer-close").addEventListener("click", closeViewer);
    $("viewer-prev").addEventListener("click", () => { if (V.view && V.view.prev != null) { V.page = V.view.prev; showPage(); } });
    $("viewer-next").addEventListener("click", () => { if (V.view && V.view.next != null) { V.page = V.view.next; showPage(); } });
    $("viewer-mode").addEventListener("click", () => { V.mode = V.mode === "image" ? "text" : "image"; showPage(); });
    document.addEventListener("keydown", (e) => {
      if ($("viewer").hidden || e.target.matches("textarea, input")) return;
      if (e.key === "Escape") closeViewer();
      else if (e.key === "ArrowLeft") $("viewer-prev").click();
      else if (e.key === "ArrowRight") $("viewer-next").click();
    });
    $("viewer-file").addEventListener("click", async (e) => {
      if (!apiKey()) return; // a plain link works without a key
      e.preventDefault();
      try {
        const resp = await fetch(V.view.file, { headers: headers() });
        if (!resp.ok) throw new HttpError(resp.status, await detailOf(resp));
        window.open(URL.createObjectURL(await resp.blob()), "_blank", "noopener");
      } catch (err) { showNote(explain(err)); }
    });
  }

  // -------------------------------------------------------------- filings page
  async function showDocuments() {
    const body = document.querySelector("#documents-table tbody");
    const box = $("documents-message");
    try {
      const data = await loadFilings();
      box.hidden = !!data.count;
      box.className = "message info";
      box.textContent = data.count ? "" : "The index holds no filing yet: run `finrag index PATH` first.";
      const cell = (f) => el("td", {}, Array.isArray(f.value) ? f.value.join(", ") : (f.value ?? ""),
        el("span", { class: "src", text: f.source }));
      body.replaceChildren(...data.documents.map((d) => el("tr", { "data-doc": d.doc_id },
        el("td", {}, docButton(d.doc_id), el("span", { class: "src", text: `${d.file} (${d.kind.toUpperCase()})` })),
        cell(d.fields.company), cell(d.fields.registrant), cell(d.fields.tickers), cell(d.fields.form),
        cell(d.fields.period), cell(d.fields.period_end), cell(d.fields.fiscal_year_end), el("td", { text: d.n_pages }))));
    } catch (err) {
      box.hidden = false;
      box.className = "message";
      box.textContent = explain(err);
    }
  }

  // ------------------------------------------------------------------ start
  function setupKey() {
    $("key-button").addEventListener("click", () => needKey($("key-panel").hidden));
    $("key-panel").addEventListener("submit", (e) => {
      e.preventDefault();
      const k = $("key-input").value.trim();
      if (k) sessionStorage.setItem(KEY, k);
      $("key-input").value = "";
      needKey(false);
      banner("");
      location.reload();
    });
    $("key-forget").addEventListener("click", () => { sessionStorage.removeItem(KEY); needKey(false); location.reload(); });
    $("key-button").textContent = apiKey() ? "API key (set)" : "API key";
  }

  setupKey();
  setupViewer();
  if (location.pathname === "/documents") {
    $("documents-view").hidden = false;
    $("nav-documents").classList.add("active");
    showDocuments();
  } else {
    $("ask-view").hidden = false;
    $("nav-ask").classList.add("active");
    setupAsk();
  }
})();
