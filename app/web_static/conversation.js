  // ------------------------------------------------------------- conversation
  // The answer page's conversation (issue 36; app.js inlines this file in its closure, app/web.py). With
  // "Conversation" ticked every question is a turn of one LangGraph thread on the server: POST /threads gives
  // the thread, each turn streams from POST /{system}/stream with config.configurable.thread_id, and the
  // server answers a follow-up ("And in FY2023?") as the standalone question it shows ("Answering: ...").
  // Turns stack oldest first, each with its answer, citations and routing as a single answer shows them. The
  // thread id is kept for the tab (sessionStorage), so a reload reads the turns back (GET /threads/{id}); a
  // thread the server no longer has (404) starts a new one with a note. Unticked, the page is the
  // single-question page it always was (side by side included).
  const THREAD_KEY = "finrag.thread";
  const MODE_KEY = "finrag.conversation";
  const SYSTEMS_KEY = "finrag.threadSystems"; // {turn: system} of the tab's thread (a thread's turns do not say)
  const ANSWERING = /^Answering: ([^\n]*)\n\n/;
  const conv = { on: false, thread: null, turns: [], busy: false, seq: 0 };
  let turnIds = 0;

  function splitAnswering(text) { // a turn's answer starts "Answering: <resolved question>" when it differs
    const m = (text || "").match(ANSWERING);
    return m ? { resolved: m[1], body: text.slice(m[0].length) } : { resolved: "", body: text || "" };
  }

  function announce(run) { // the aria-live region: one line per new answer (a card's own text streams)
    const body = (run.turn ? splitAnswering(run.contract.answer).body : run.contract.answer || "").replace(/\s+/g, " ");
    const who = (run.turn ? `Turn ${run.turn.li.dataset.turn}, ` : "") + (run.system || "answer").toUpperCase();
    $("live").textContent = `${who} answered: ${body.slice(0, 300)}`;
  }

  class Turn {
    constructor(run, n) {
      this.run = run;
      run.turn = this;
      const id = `turn-${++turnIds}`;
      this.no = el("span", { class: "turn-no", text: `Turn ${n}` });
      this.resolved = el("p", { class: "resolved", hidden: true });
      this.li = el("li", { class: "turn", "data-turn": n, "aria-labelledby": id },
        el("div", { class: "turn-ask" }, this.no, el("h2", { class: "turn-question", id, text: run.question })),
        this.resolved, run.card);
      this.update();
    }

    update() { // the turn's number and the resolved question, once the server has said them
      const c = this.run.contract;
      const n = (c.conversation || {}).turn;
      if (n) { this.li.dataset.turn = n; this.no.textContent = `Turn ${n}`; }
      const typed = (c.question || this.run.question).replace(/\s+/g, " ").trim();
      const resolved = c.resolved_question || splitAnswering(c.answer).resolved;
      const differs = !!resolved && resolved.trim() !== typed;
      this.resolved.hidden = !differs;
      if (differs && this.li.dataset.resolved !== resolved) {
        this.li.dataset.resolved = resolved;
        this.resolved.replaceChildren(el("span", { class: "label", text: "Answering:" }), " ", resolved);
      }
    }
  }

  function renderCitations(run) { // a turn read back from its thread: its citations (the thread keeps no passages)
    const cites = run.contract.citations || [];
    const asked = askedDocs(run);
    run.contexts.hidden = false;
    run.contexts.replaceChildren(el("summary", {}, "Citations ", el("span", { class: "muted", text: `(${cites.length})` })),
      cites.length ? el("ul", { class: "citations" }, ...cites.map((c) => el("li", {},
        chip(c.doc_id, c.page_start, c.page_end, { chunk: null, marks: [], shown: c.shown,
          other: asked.size > 0 && !asked.has(c.doc_id) }))))
        : el("p", { class: "muted", text: "The answer cites no page." }),
      el("p", { class: "muted small", text: "Read back from the conversation's thread, which keeps each turn's answer, "
        + "routing and citations (not its passages or cost)." }));
  }

  function turnSystems() {
    try { return JSON.parse(sessionStorage.getItem(SYSTEMS_KEY) || "{}") || {}; } catch (_) { return {}; }
  }

  function restoredRun(rec) {
    const system = rec.system || turnSystems()[rec.turn] || "";
    const run = new Run(CFG.systems.includes(system) ? system : "", rec.question || "", { heading: "h3" });
    run.restored = true;
    run.done = true;
    run.contract = { question: rec.question || "", resolved_question: rec.resolved_question || "",
      answer: rec.answer || "", routing: rec.routing || { status: "not_routed", routed_docs: [] },
      citations: rec.citations || [], conversation: { turn: rec.turn, inherited: rec.inherited || {} } };
    run.card.dataset.state = "done";
    run.card.dataset.restored = "1";
    run.setState("kept on the thread");
    return run;
  }

  function addTurn(run, n) {
    const turn = new Turn(run, n);
    for (const t of conv.turns) t.run.routing.open = false; // the latest turn's routing open, the earlier ones folded
    conv.turns.push(turn);
    runs.push(run);
    $("turns").append(turn.li);
    showInfo();
    return turn;
  }

  function clearTurns() {
    conv.seq++; // a read-back still under way adds nothing now
    conv.turns = [];
    runs = [];
    $("turns").replaceChildren();
    closeViewer();
    showInfo();
  }

  function convNote(text, kind) {
    const n = $("conversation-note");
    n.hidden = !text;
    n.className = "message " + (kind || "info");
    n.textContent = text || "";
  }

  function showInfo() {
    const n = conv.turns.length;
    $("conversation-info").textContent = conv.thread
      ? `thread ${conv.thread}${n ? `, ${n} turn${n === 1 ? "" : "s"}` : ""}` : "a new thread starts with the first question";
    $("conversation-hint").hidden = n > 0;
    const q = $("question");
    q.dataset.placeholder ||= q.placeholder;
    q.placeholder = conv.on && n ? "Ask a follow-up, e.g. \u201cAnd in FY2023?\u201d or \u201cWhat was its net income?\u201d" : q.dataset.placeholder;
  }

  function forgetThread(id) {
    if (id && conv.thread !== id) return;
    conv.thread = null;
    sessionStorage.removeItem(THREAD_KEY);
    sessionStorage.removeItem(SYSTEMS_KEY);
    showInfo();
  }

  function setBusy(busy) {
    conv.busy = busy;
    for (const id of ["ask-button", "new-conversation", "conversation-mode"]) $(id).disabled = busy;
  }

  async function newThread() {
    let resp;
    try {
      resp = await fetch("/threads", { method: "POST", body: "{}",
        headers: headers({ "Content-Type": "application/json", Accept: "application/json" }) });
    } catch (err) { throw new HttpError(0, String(err.message || err)); }
    if (!resp.ok) throw new HttpError(resp.status, await detailOf(resp));
    const id = (await resp.json()).thread_id;
    if (typeof id !== "string" || !id) throw new HttpError(0, "the server gave no thread id");
    conv.thread = id;
    sessionStorage.setItem(THREAD_KEY, id);
    sessionStorage.removeItem(SYSTEMS_KEY);
    showInfo();
    return id;
  }

  async function startTurn(question, system) {
    const thread = conv.thread || await newThread();
    const turn = addTurn(new Run(system, question, { thread, heading: "h3" }), conv.turns.length + 1);
    turn.li.scrollIntoView({ block: "nearest" });
    await turn.run.start();
    const n = (turn.run.contract.conversation || {}).turn;
    if (n && turn.run.done) sessionStorage.setItem(SYSTEMS_KEY, JSON.stringify({ ...turnSystems(), [n]: system }));
    return turn;
  }

  async function askTurn() {
    const question = $("question").value;
    if (!question.trim()) {
      convNote("Type a question first: the question is empty.", "warn");
      $("question").focus();
      return;
    }
    const system = $("system-a").value;
    history.replaceState(null, "", "/?" + new URLSearchParams({ s: system }));
    closeViewer();
    convNote("");
    setBusy(true);
    try {
      let turn;
      try {
        if (!conv.thread) await newThread();
      } catch (err) {
        convNote(`No conversation could be started: ${explain(err)}`, "error");
        if (err.status === 401) needKey(true);
        return;
      }
      $("question").value = "";
      turn = await startTurn(question, system);
      if (turn.run.error && turn.run.error.status === 404) { // the server no longer has the thread
        const gone = conv.thread, why = turn.run.error.message;
        clearTurns();
        forgetThread(gone);
        try { turn = await startTurn(question, system); } catch (err) {
          convNote(`No conversation could be started: ${explain(err)}`, "error");
          return;
        }
        convNote(`The conversation ${gone} is no longer on the server (${why}), so a new one started `
          + "and your question was asked on it.", "warn");
      }
    } finally {
      setBusy(false);
      const at = document.activeElement;
      if (!at || at === document.body || at.closest("#ask-form")) $("question").focus();
    }
  }

  function newConversation() {
    if (conv.busy) return;
    clearTurns();
    forgetThread();
    convNote("");
    $("live").textContent = "New conversation: the earlier turns are cleared.";
    $("question").focus();
  }

  async function restore() { // the tab's thread, read back (a reload, or Conversation ticked again)
    conv.thread = sessionStorage.getItem(THREAD_KEY) || null;
    showInfo();
    if (!conv.thread) return;
    const id = conv.thread, seq = ++conv.seq;
    const view = $("conversation-view");
    view.dataset.state = "loading";
    setBusy(true);
    try {
      const data = await getJSON(`/threads/${enc(id)}`);
      if (seq !== conv.seq) return;
      for (const rec of (Array.isArray(data) ? data : data.turns) || []) addTurn(restoredRun(rec), rec.turn || conv.turns.length + 1);
      renderAll();
    } catch (err) {
      if (seq !== conv.seq) return;
      if (err.status === 404) {
        forgetThread(id);
        convNote(`This tab's conversation (${id}) is no longer on the server (${err.message}): `
          + "a new one starts with your next question.", "warn");
      } else {
        convNote(`The conversation could not be read back: ${explain(err)}`, "error");
        if (err.status === 401) needKey(true);
      }
    } finally {
      if (seq === conv.seq) view.dataset.state = "ready";
      setBusy(false);
    }
  }

  function setMode(on) {
    conv.on = on;
    sessionStorage.setItem(MODE_KEY, on ? "on" : "off");
    $("conversation-mode").checked = on;
    $("ask-view").classList.toggle("chat", on);
    $("conversation-view").hidden = !on;
    $("results").hidden = on;
    const compare = $("compare");
    if (on && compare.checked) { compare.checked = false; compare.dispatchEvent(new Event("change")); }
    compare.disabled = $("system-b").disabled = on;
    compare.closest("label").title = on ? "In a conversation one system answers each turn" : "";
    $("results").replaceChildren();
    clearTurns();
    convNote("");
    if (on) restore();
    else { conv.thread = null; showInfo(); }
  }

  function setupConversation(fromTab) { // fromTab: no ?q= link, so the tab's own mode and thread apply
    $("conversation-mode").addEventListener("change", () => {
      history.replaceState(null, "", "/?" + new URLSearchParams({ s: $("system-a").value }));
      setMode($("conversation-mode").checked);
      $("question").focus();
    });
    $("new-conversation").addEventListener("click", newConversation);
    if (fromTab && sessionStorage.getItem(MODE_KEY) === "on") setMode(true);
  }
